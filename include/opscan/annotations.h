// opscan annotations for kernel sources.
//
//   OPSCAN_KERNEL("aten::add.out")                      // schema inferred from the signature
//   OPSCAN_KERNEL("my_ops::mul3.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)")
//   OPSCAN_KERNEL("aten::add.out", key = "v1/6;0,1|6;0,1|6;0,1|6;0,1")
//   OPSCAN_KERNEL("my_ops::gelu", dispatch = "CPU")
//
// The first argument is an operator name ("ns::name.overload") or a full
// operator schema. Optional fields follow as name = "value":
//   key       ExecuTorch kernel key of a dtype-specialised kernel
//   dispatch  dispatch key (torch target)
//
// While opscan scans (it defines OPSCAN_SCANNING) the macro becomes a clang
// annotate attribute holding its arguments as text; in every other build it
// expands to nothing, so any compiler accepts the annotated code.
#ifndef OPSCAN_ANNOTATIONS_H
#define OPSCAN_ANNOTATIONS_H

#if defined(OPSCAN_SCANNING)
#define OPSCAN_KERNEL(...) __attribute__((annotate("opscan:kernel:" #__VA_ARGS__)))
#else
#define OPSCAN_KERNEL(...)
#endif

#endif // OPSCAN_ANNOTATIONS_H
