#!/usr/bin/env python3
"""Write a synthetic kernel library for benchmarking opscan.

    make_corpus.py OUT_DIR [-n FILES] [--seed S] [--big-file OPS]

OUT_DIR/include/bench_kernels/*.h  shared project headers (every file includes
                                   kernel_runtime.h, which pulls in a mix of
                                   standard headers, templates and macros, so a
                                   file costs what a real kernel file costs)
OUT_DIR/kernels/op_NNNN.cpp        N files, 1-3 annotated kernels each
OUT_DIR/big/ops_big.cpp            with --big-file OPS: one file holding OPS
                                   kernels, to build a large IR with one parse

Compile with: -I<repo>/include -I<repo>/examples/include -IOUT_DIR/include.
The output depends only on the arguments (random.Random(seed), no clock).
"""
import argparse
import os
import random

# ---------------------------------------------------------------------------
# Shared project headers. Written once; their parse cost is paid per file,
# which is what dominates both opscan and clang++ -fsyntax-only.

KERNEL_RUNTIME_H = """\
// Umbrella header every kernel includes, as real kernel libraries have one.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

#include <bench_kernels/dtype_switch.h>
#include <bench_kernels/parallel.h>
#include <bench_kernels/tensor_util.h>
#include <bench_kernels/reduce_util.h>
"""

# The example ExecuTorch types are opaque (no members), so the project reaches
# tensor data through declared free functions: enough for -fsyntax-only.
TENSOR_UTIL_H = """\
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>
#include <opscan_examples/executorch_types.h>

namespace bench_rt {
using executorch::aten::ArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

int64_t numel(const Tensor& t);
int64_t dim(const Tensor& t);
int64_t size(const Tensor& t, int64_t d);
ScalarType dtype(const Tensor& t);
const void* const_data(const Tensor& t);
void* mutable_data(Tensor& t);
double to_double(const Scalar& s);
int64_t to_long(const Scalar& s);
bool resize_like(Tensor& out, const Tensor& like);
void fail(KernelRuntimeContext& ctx, std::string_view why);

template <typename T>
const T* data(const Tensor& t) { return static_cast<const T*>(const_data(t)); }
template <typename T>
T* data(Tensor& t) { return static_cast<T*>(mutable_data(t)); }

template <size_t N>
struct StridedIndex {
  std::array<int64_t, N> sizes{};
  std::array<int64_t, N> strides{};
  int64_t offset(int64_t linear) const {
    int64_t off = 0;
    for (size_t d = N; d-- > 0;) {
      off += (linear % sizes[d]) * strides[d];
      linear /= sizes[d];
    }
    return off;
  }
};

template <typename T, typename F>
void apply_unary(const Tensor& in, Tensor& out, F f) {
  const T* x = data<T>(in);
  T* y = data<T>(out);
  const int64_t n = numel(out);
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

template <typename T, typename F>
void apply_binary(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const T* x = data<T>(a);
  const T* y = data<T>(b);
  T* z = data<T>(out);
  const int64_t n = numel(out);
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}

template <typename T, typename F>
void apply_ternary(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out, F f) {
  const T* x = data<T>(a);
  const T* y = data<T>(b);
  const T* w = data<T>(c);
  T* z = data<T>(out);
  for (int64_t i = 0, n = numel(out); i < n; ++i) z[i] = f(x[i], y[i], w[i]);
}

template <typename T>
struct Accum { using type = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>; };
template <typename T>
using accum_t = typename Accum<T>::type;

inline std::vector<int64_t> normalize_dims(ArrayRef<int64_t> dims, int64_t rank) {
  std::vector<int64_t> out(dims.data(), dims.data() + dims.size());
  for (auto& d : out) if (d < 0) d += rank;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
} // namespace bench_rt
"""

DTYPE_SWITCH_H = """\
#pragma once
#include <cstdint>
#include <opscan_examples/executorch_types.h>

// ExecuTorch-style dtype switches: the lambda body is repeated once per case,
// so each kernel body is parsed and instantiated several times, as in real
// kernel libraries.
#define BENCH_CASE(ST, CT, ...)                                                \\
  case ::executorch::aten::ScalarType::ST: {                                   \\
    using CTYPE = CT;                                                          \\
    __VA_ARGS__();                                                             \\
    break;                                                                     \\
  }

#define BENCH_SWITCH_FLOAT_TYPES(TYPE, CTX, NAME, ...)                         \\
  [&] {                                                                        \\
    switch (TYPE) {                                                            \\
      BENCH_CASE(Float, float, __VA_ARGS__)                                    \\
      BENCH_CASE(Double, double, __VA_ARGS__)                                  \\
      default: ::bench_rt::fail(CTX, NAME);                                    \\
    }                                                                          \\
  }()

#define BENCH_SWITCH_REAL_TYPES(TYPE, CTX, NAME, ...)                          \\
  [&] {                                                                        \\
    switch (TYPE) {                                                            \\
      BENCH_CASE(Byte, uint8_t, __VA_ARGS__)                                   \\
      BENCH_CASE(Char, int8_t, __VA_ARGS__)                                    \\
      BENCH_CASE(Short, int16_t, __VA_ARGS__)                                  \\
      BENCH_CASE(Int, int32_t, __VA_ARGS__)                                    \\
      BENCH_CASE(Long, int64_t, __VA_ARGS__)                                   \\
      BENCH_CASE(Float, float, __VA_ARGS__)                                    \\
      BENCH_CASE(Double, double, __VA_ARGS__)                                  \\
      default: ::bench_rt::fail(CTX, NAME);                                    \\
    }                                                                          \\
  }()

#define BENCH_CHECK(CTX, COND, MSG)                                            \\
  do {                                                                         \\
    if (!(COND)) {                                                             \\
      ::bench_rt::fail(CTX, MSG);                                              \\
    }                                                                          \\
  } while (false)
"""

PARALLEL_H = """\
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>

namespace bench_rt {
// Chunked loop with a type-erased body, as kernel libraries' parallel_for.
inline bool parallel_for(int64_t begin, int64_t end, int64_t grain,
                         const std::function<void(int64_t, int64_t)>& f) {
  for (int64_t i = begin; i < end; i += std::max<int64_t>(grain, 1))
    f(i, std::min(end, i + grain));
  return true;
}
} // namespace bench_rt
"""

REDUCE_UTIL_H = """\
#pragma once
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <bench_kernels/tensor_util.h>

namespace bench_rt {
template <typename T, typename Acc, typename Op>
Acc reduce_all(const Tensor& in, Acc init, Op op) {
  const T* x = data<T>(in);
  return std::accumulate(x, x + numel(in), init, op);
}

template <typename T>
std::tuple<T, int64_t> argmax(const T* x, int64_t n) {
  T best = std::numeric_limits<T>::lowest();
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i)
    if (x[i] > best) { best = x[i]; at = i; }
  return {best, at};
}

using ReduceAttr = std::variant<int64_t, double, bool>;
inline std::unordered_map<std::string_view, ReduceAttr>& reduce_cache() {
  static std::unordered_map<std::string_view, ReduceAttr> cache;
  return cache;
}
} // namespace bench_rt
"""

HEADERS = {
    "kernel_runtime.h": KERNEL_RUNTIME_H,
    "tensor_util.h": TENSOR_UTIL_H,
    "dtype_switch.h": DTYPE_SWITCH_H,
    "parallel.h": PARALLEL_H,
    "reduce_util.h": REDUCE_UTIL_H,
}

# ---------------------------------------------------------------------------
# Kernel shapes. Each returns (annotation, definition) for operator `op` and
# C++ function name `fn`; `r` varies the bodies.

UNARY_EXPRS = [
    "static_cast<CTYPE>(std::exp(static_cast<double>(x)))",
    "static_cast<CTYPE>(std::tanh(static_cast<double>(x)))",
    "static_cast<CTYPE>(std::sqrt(std::abs(static_cast<double>(x))))",
    "static_cast<CTYPE>(x * x)",
    "static_cast<CTYPE>(x > 0 ? x : 0)",
    "static_cast<CTYPE>(1.0 / (1.0 + std::exp(-static_cast<double>(x))))",
]
BINARY_EXPRS = [
    "static_cast<CTYPE>(x + a * y)",
    "static_cast<CTYPE>(x - a * y)",
    "static_cast<CTYPE>(std::max<double>(x, a * y))",
    "static_cast<CTYPE>(std::fmod(static_cast<double>(x), a * y + 1))",
]


def k_unary_out(op, fn, r):
    e = r.choice(UNARY_EXPRS)
    return f'OPSCAN_KERNEL("{op}.out")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {{
  BENCH_CHECK(ctx, bench_rt::resize_like(out, self), "{fn}: resize failed");
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    bench_rt::apply_unary<CTYPE>(self, out, [](CTYPE x) {{ return {e}; }});
  }});
  return out;
}}"""


def k_binary_alpha_out(op, fn, r):
    e = r.choice(BINARY_EXPRS)
    schema = (f"{op}.out(Tensor self, Tensor other, *, Scalar alpha=1, "
              "Tensor(a!) out) -> Tensor(a!)")
    return f'OPSCAN_KERNEL("{schema}")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
             const Scalar& alpha, Tensor& out) {{
  BENCH_CHECK(ctx, bench_rt::numel(self) == bench_rt::numel(other), "{fn}: shape mismatch");
  BENCH_CHECK(ctx, bench_rt::resize_like(out, self), "{fn}: resize failed");
  const double a = bench_rt::to_double(alpha);
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    bench_rt::apply_binary<CTYPE>(self, other, out, [a](CTYPE x, CTYPE y) {{ return {e}; }});
  }});
  return out;
}}"""


def k_reduce_out(op, fn, r):
    init = r.choice(["0", "1"])
    combine = "acc + v" if init == "0" else "acc * v"
    return f'OPSCAN_KERNEL("{op}.out")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims,
             bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {{
  const auto rank = bench_rt::dim(self);
  const std::vector<int64_t> reduced = bench_rt::normalize_dims(dims, rank);
  BENCH_CHECK(ctx, reduced.size() <= static_cast<size_t>(rank), "{fn}: bad dims");
  BENCH_CHECK(ctx, !dtype || *dtype == bench_rt::dtype(out), "{fn}: dtype");
  (void)keepdim;
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    using Acc = bench_rt::accum_t<CTYPE>;
    const Acc total = bench_rt::reduce_all<CTYPE>(
        self, Acc({init}), [](Acc acc, CTYPE v) {{ return {combine}; }});
    bench_rt::data<CTYPE>(out)[0] = static_cast<CTYPE>(total);
  }});
  return out;
}}"""


def k_functional(op, fn, r):
    declared = r.random() < 0.5
    ann = (f'OPSCAN_KERNEL("{op}(Tensor self, float eps, int dim) -> Tensor")'
           if declared else f'OPSCAN_KERNEL("{op}")')
    return ann, f"""\
Tensor {fn}(KernelRuntimeContext& ctx, const Tensor& self, double eps, int64_t dim) {{
  Tensor result;
  BENCH_CHECK(ctx, bench_rt::resize_like(result, self), "{fn}: alloc failed");
  const int64_t rows = bench_rt::size(self, dim < 0 ? dim + bench_rt::dim(self) : dim);
  BENCH_SWITCH_FLOAT_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    const CTYPE* x = bench_rt::data<CTYPE>(self);
    CTYPE* y = bench_rt::data<CTYPE>(result);
    const int64_t cols = bench_rt::numel(self) / std::max<int64_t>(rows, 1);
    bench_rt::parallel_for(0, rows, 8, [&](int64_t begin, int64_t end) {{
      for (int64_t i = begin; i < end; ++i) {{
        double mean = 0, var = 0;
        for (int64_t j = 0; j < cols; ++j) mean += x[i * cols + j];
        mean /= cols;
        for (int64_t j = 0; j < cols; ++j) var += (x[i * cols + j] - mean) * (x[i * cols + j] - mean);
        const double inv = 1.0 / std::sqrt(var / cols + eps);
        for (int64_t j = 0; j < cols; ++j) y[i * cols + j] = static_cast<CTYPE>((x[i * cols + j] - mean) * inv);
      }}
    }});
  }});
  return result;
}}"""


def k_norm_optional_out(op, fn, r):
    return f'OPSCAN_KERNEL("{op}.out")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
             const std::optional<Tensor>& bias, double eps, Tensor& out) {{
  BENCH_CHECK(ctx, bench_rt::resize_like(out, input), "{fn}: resize failed");
  BENCH_SWITCH_FLOAT_TYPES(bench_rt::dtype(input), ctx, "{fn}", [&]() {{
    const CTYPE* w = weight ? bench_rt::data<CTYPE>(*weight) : nullptr;
    const CTYPE* b = bias ? bench_rt::data<CTYPE>(*bias) : nullptr;
    int64_t i = 0;
    bench_rt::apply_unary<CTYPE>(input, out, [&](CTYPE x) {{
      const double scaled = x / std::sqrt(static_cast<double>(x) * x + eps);
      const double v = scaled * (w ? w[i] : CTYPE(1)) + (b ? b[i] : CTYPE(0));
      ++i;
      return static_cast<CTYPE>(v);
    }});
  }});
  return out;
}}"""


def k_max_dim_out(op, fn, r):
    declared = r.random() < 0.5
    ann = (f'OPSCAN_KERNEL("{op}.max(Tensor self, int dim, bool keepdim=False, *, '
           'Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")'
           if declared else f'OPSCAN_KERNEL("{op}.max")')
    return ann, f"""\
std::tuple<Tensor&, Tensor&> {fn}(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                  bool keepdim, Tensor& values, Tensor& indices) {{
  BENCH_CHECK(ctx, dim < bench_rt::dim(self), "{fn}: dim out of range");
  (void)keepdim;
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    auto [best, at] = bench_rt::argmax(bench_rt::data<CTYPE>(self), bench_rt::numel(self));
    bench_rt::data<CTYPE>(values)[0] = best;
    bench_rt::data<int64_t>(indices)[0] = at;
  }});
  return {{values, indices}};
}}"""


def k_clamp_out(op, fn, r):
    return f'OPSCAN_KERNEL("{op}.out")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max, bool propagate_nan, Tensor& out) {{
  BENCH_CHECK(ctx, bench_rt::resize_like(out, self), "{fn}: resize failed");
  const double lo = min ? bench_rt::to_double(*min) : -INFINITY;
  const double hi = max ? bench_rt::to_double(*max) : INFINITY;
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    bench_rt::apply_unary<CTYPE>(self, out, [=](CTYPE x) {{
      if (propagate_nan && std::isnan(static_cast<double>(x))) return x;
      return static_cast<CTYPE>(std::clamp<double>(x, lo, hi));
    }});
  }});
  return out;
}}"""


def k_where_out(op, fn, r):
    schema = (f"{op}.self_out(Tensor condition, Tensor self, Tensor other, *, "
              "Tensor(a!) out) -> Tensor(a!)")
    return f'OPSCAN_KERNEL("{schema}")', f"""\
Tensor& {fn}(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self,
             const Tensor& other, Tensor& out) {{
  BENCH_CHECK(ctx, bench_rt::resize_like(out, self), "{fn}: resize failed");
  BENCH_SWITCH_REAL_TYPES(bench_rt::dtype(self), ctx, "{fn}", [&]() {{
    bench_rt::apply_ternary<CTYPE>(condition, self, other, out,
                                   [](CTYPE c, CTYPE x, CTYPE y) {{ return c ? x : y; }});
  }});
  return out;
}}"""


SHAPES = [k_unary_out, k_binary_alpha_out, k_reduce_out, k_functional,
          k_norm_optional_out, k_max_dim_out, k_clamp_out, k_where_out]

FILE_PROLOGUE = """\
// Generated by bench/make_corpus.py: benchmark input, not a real kernel.
#include <bench_kernels/kernel_runtime.h>

namespace bench_kernels::{ns} {{

using executorch::aten::ArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace {{
// A file-local helper, as most kernel files have one.
template <typename T>
T lerp_{ns}(T a, T b, double w) {{ return static_cast<T>(a + (b - a) * w); }}
}} // namespace
"""


def kernels(r, file_index, count):
    """(annotation, definition) pairs of file `file_index`, ops bench::opI_J."""
    out = []
    for j in range(count):
        shape = r.choice(SHAPES)
        op = f"bench::op{file_index}_{j}"
        fn = f"op{file_index}_{j}_{shape.__name__[2:]}"
        out.append(shape(op, fn, r))
    return out


def render(ns, pairs):
    parts = [FILE_PROLOGUE.format(ns=ns)]
    for ann, body in pairs:
        parts.append(f"{ann}\n{body}\n")
    parts.append(f"}} // namespace bench_kernels::{ns}\n")
    return "\n".join(parts)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("-n", "--files", type=int,
                   help="kernel files (default 200; 150 with --shape executorch)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--big-file", type=int, metavar="OPS", default=0,
                   help="also write big/ops_big.cpp with OPS kernels")
    p.add_argument("--shape", choices=["default", "executorch"], default="default",
                   help="executorch: a library laid out like ExecuTorch's portable kernels")
    a = p.parse_args()
    if a.shape == "executorch":
        if a.big_file:
            p.error("--big-file is for the default shape")
        from et_corpus import write_executorch  # beside this script
        write_executorch(a.out_dir, 150 if a.files is None else a.files, a.seed)
        return
    a.files = 200 if a.files is None else a.files

    for name, text in HEADERS.items():
        write(os.path.join(a.out_dir, "include", "bench_kernels", name), text)

    r = random.Random(a.seed)
    for i in range(a.files):
        pairs = kernels(r, i, r.randint(1, 3))
        write(os.path.join(a.out_dir, "kernels", f"op_{i:04d}.cpp"), render(f"f{i}", pairs))

    if a.big_file:
        # Operator names differ from the per-file corpus (bench::big...), so
        # the big IR is self-contained.
        rb = random.Random(a.seed + 1)
        pairs = []
        for i in range(a.big_file):
            shape = rb.choice(SHAPES)
            pairs.append(shape(f"bench::big{i}", f"big{i}_{shape.__name__[2:]}", rb))
        write(os.path.join(a.out_dir, "big", "ops_big.cpp"), render("big", pairs))


if __name__ == "__main__":
    main()
