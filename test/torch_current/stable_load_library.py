"""The torch-stable library of kernels/stable.cpp in static mode, used as a
PyTorch extension is: loaded by torch.ops.load_library (which dlopens it; its
registration runs as it loads) and called from Python through torch.ops.
Run in the chroot: python3 stable_load_library.py <path of the library>."""
import sys

import torch

failures = []


def check(what, actual, expected):
    if actual != expected:
        failures.append(f"{what}: got {actual!r}, expected {expected!r}")


library = sys.argv[1]
before = hasattr(torch.ops.stable_ops, "axpy")
torch.ops.load_library(library)
check("stable_ops::axpy before the library is loaded", before, False)
check("the library torch.ops recorded", library in torch.ops.loaded_libraries, True)

ops = torch.ops.stable_ops
check("axpy's schema", str(ops.axpy.default._schema),
      "stable_ops::axpy(Tensor self, Tensor other, float alpha=1.) -> Tensor")

x = torch.tensor([1.0, -2.0, 3.5])
y = torch.tensor([10.0, 20.0, 30.0])
check("axpy with its default alpha", ops.axpy(x, y).tolist(), [11.0, 18.0, 33.5])
check("axpy(alpha=0.5)", ops.axpy(x, y, alpha=0.5).tolist(), [6.0, 8.0, 18.5])

out = torch.zeros(3)
result = ops.fill.out(x, 7, True, out=out)
check("fill.out writes its out argument", out.tolist(), [-7.0, -7.0, -7.0])
check("fill.out returns it", result.data_ptr() == out.data_ptr(), True)

check("extremes returns a tuple", ops.extremes(x), (-2.0, 3.5, 2))
check("gather without bias", ops.gather(y, [2, 0], None).tolist(), [30.0, 10.0])
check("gather with bias", ops.gather(y, [1], torch.tensor([0.5])).tolist(), [20.5])
check("weighted_sum", ops.weighted_sum([x, y], [2.0, 0.5], 4), 4 + 2 * 2.5 + 0.5 * 60)
check("describe", ops.describe(x, "abc", None, torch.float32, torch.strided,
                               torch.channels_last, torch.device("cpu")), 3991111)

z = torch.tensor([1.0, 3.0])
ops.scale_each(z, [2.0, 5.0])
check("scale_each scales in place", z.tolist(), [10.0, 30.0])

g = torch.Generator().manual_seed(7)
expected = torch.zeros(4).uniform_(0, 1, generator=torch.Generator().manual_seed(7))
check("uniform_with draws from the caller's generator",
      ops.uniform_with(torch.zeros(4), g).tolist(), expected.tolist())
check("generator_on_cpu without one", ops.generator_on_cpu(x, None), -1)
check("generator_on_cpu with one", ops.generator_on_cpu(x, g), 1)
# An operator without a tensor argument, registered under CPU: a boxed call
# (Python's) finds no dispatch key in a Generator, so the dispatcher refuses
# it (docs/torch.md: register such kernels under CompositeExplicitAutograd).
try:
    ops.same_generator(g)
    failures.append("same_generator (no tensor argument) was dispatched from Python")
except NotImplementedError as error:
    check("the dispatcher says why", "no tensor arguments" in str(error), True)

# A wrong argument is PyTorch's own error, raised before the kernel runs.
try:
    ops.axpy(x, "not a tensor")
    failures.append("axpy with a str argument did not raise")
except RuntimeError as error:
    check("the error names the operator", "stable_ops::axpy" in str(error), True)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"torch {torch.__version__}: {library} loaded; every stable_ops call gave its value")
