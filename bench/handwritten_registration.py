#!/usr/bin/env python3
"""Write the ExecuTorch registration a careful engineer would write by hand.

    handwritten_registration.py IR.json OUT.cpp [--no-profiling]

The baseline of bench/compile_cost.sh: for each kernel of an opscan IR, one
plain (non-template) wrapper `void f(KernelRuntimeContext&, Span<EValue*>)`
that unboxes each argument with EValue's named accessors (toTensor(),
toInt(), toOptional<T>(), ...), calls the kernel and fills the return slot
as opscan's wrappers do; then one kernel array registered with
register_kernels() by `torch::executor::register_<lib>_kernels()`. With
profiling (the default, as `opscan run`), each wrapper makes the same event
tracer and profiler calls as the generated one.

Left out, as a hand-writer would leave them out: the stack-size check of each
wrapper and its message, the check that the library fits in the registry
and that none of its kernels is registered already (the runtime aborts on
both instead), the per-kernel source/key tables and every ET_LOG message.

Standard library only. Only the schema types the IR uses need a row in
ACCESSORS; anything else stops the script (a benchmark must not guess).
"""
import argparse
import json
import re
import sys

# schema base type -> (C++ type, EValue accessor of a plain value)
ACCESSORS = {
    "Tensor": ("Tensor", "toTensor()"),
    "Scalar": ("Scalar", "toScalar()"),
    "ScalarType": ("ScalarType", "toScalarType()"),
    "MemoryFormat": ("MemoryFormat", "toMemoryFormat()"),
    "Layout": ("Layout", "toLayout()"),
    "Device": ("Device", "toDevice()"),
    "int": ("int64_t", "toInt()"),
    "SymInt": ("int64_t", "toInt()"),
    "float": ("double", "toDouble()"),
    "bool": ("bool", "toBool()"),
    "str": ("std::string_view", "toString()"),
}
LIST_ACCESSORS = {"Tensor": "toTensorList()", "int": "toIntList()", "SymInt": "toIntList()",
                  "float": "toDoubleList()", "bool": "toBoolList()"}


def die(msg):
    sys.exit(f"handwritten_registration.py: {msg}")


def parse_type(schema_type):
    """'Tensor(a!)' -> ('Tensor', '', True); 'int[2]' -> ('int', '[]', False)."""
    m = re.fullmatch(r"(\w+)(?:\(\w+!?\))?((?:\[\d*\]|\?)*)", schema_type.replace(" ", ""))
    if not m:
        die(f"cannot read schema type {schema_type!r}")
    suffix = re.sub(r"\[\d*\]", "[]", m.group(2))
    return m.group(1), suffix, "!" in schema_type


def unbox(schema_type):
    """(C++ type, accessor) of one argument."""
    base, suffix, _ = parse_type(schema_type)
    if base not in ACCESSORS:
        die(f"no accessor for {schema_type}")
    cpp, accessor = ACCESSORS[base]
    if suffix == "":
        return cpp, accessor
    if suffix == "?":
        return f"std::optional<{cpp}>", f"toOptional<{cpp}>()"
    if suffix == "[]" and base in LIST_ACCESSORS:
        return f"ArrayRef<{cpp}>", LIST_ACCESSORS[base]
    if suffix == "[]?" and base in LIST_ACCESSORS:
        return f"std::optional<ArrayRef<{cpp}>>", f"toOptional<ArrayRef<{cpp}>>()"
    if suffix == "?[]" and base == "Tensor":
        return "ArrayRef<std::optional<Tensor>>", "toListOptionalTensor()"
    die(f"no accessor for {schema_type}")


def param(cpp, canonical):
    """The parameter type as the kernel takes it (value, const& or &)."""
    if not canonical.endswith("&"):
        return cpp
    return f"const {cpp}&" if canonical.startswith("const ") else f"{cpp}&"


def return_type(kernel):
    types = []
    for r in kernel["returns"]:
        base, suffix, mutable = parse_type(r["schema_type"])
        cpp = ACCESSORS[base][0] + suffix.replace("?", "")
        types.append(cpp + "&" if mutable else cpp)
    if not types:
        return "void"
    return types[0] if len(types) == 1 else f"std::tuple<{', '.join(types)}>"


def wrapper(kernel, name, profiling):
    args = kernel["arguments"]
    n = len(args)
    lines, call_args, outs = [], [], []
    for i, a in enumerate(args):
        cpp, accessor = unbox(a["schema_type"])
        local = a["name"] + ("_" if a["name"] in ("ctx", "stack") else "")
        # Tensors bind to the value on the stack; everything else is a copy.
        decl = param(cpp, a["cpp_canonical_type"]) if cpp == "Tensor" else cpp
        lines.append(f"  {decl} {local} = stack[{i}]->{accessor};")
        call_args.append(local)
        if a["kwarg_only"] and parse_type(a["schema_type"])[2]:
            outs.append(i)
    call = f"{kernel['cpp_function']}({', '.join(['ctx'] + call_args)})"
    if kernel["returns"] and not outs:      # functional: the result goes to the return slot
        body, results = [f"  *stack[{n}] = EValue({call});"], [n]
    elif not kernel["returns"]:             # out variant returning nothing
        body, results = [f"  {call};", f"  stack[{n}] = stack[{outs[0]}];"], [n]
    else:                                   # out variant: the outs are the result
        body, results = [f"  {call};"], outs
    if profiling:
        op = kernel["operator"]
        event = f'"native_call_{op["name"]}{"." + op["overload"] if op["overload"] else ""}"'
        body = ([f"  internal::EventTracerProfileOpScope scope(ctx.internal_event_tracer(), {event});",
                 f"  EXECUTORCH_SCOPE_PROF({event});"] + body +
                [f"  internal::event_tracer_log_evalue(ctx.internal_event_tracer(), *stack[{s}]);"
                 for s in results])
    return "\n".join([f"void {name}(KernelRuntimeContext& ctx, Span<EValue*> stack) {{"]
                     + lines + body + ["}"])


def declaration(kernel):
    """The kernel's declaration, in its own namespace."""
    if kernel["cpp_linkage"] != "C++" or kernel["cpp_inline_namespaces"]:
        die(f"{kernel['cpp_function']}: only C++ linkage without inline namespaces is handled")
    ns, _, fn = kernel["cpp_function"].rpartition("::")
    params = ["KernelRuntimeContext& ctx"] + [
        f"{param(unbox(a['schema_type'])[0], a['cpp_canonical_type'])} {a['name']}"
        for a in kernel["arguments"]]
    noexcept = " noexcept" if kernel["cpp_noexcept"] else ""
    decl = f"{return_type(kernel)} {fn}({', '.join(params)}){noexcept};"
    return f"namespace {ns} {{ {decl} }}" if ns else decl


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ir")
    p.add_argument("out")
    p.add_argument("--no-profiling", action="store_true")
    a = p.parse_args()
    with open(a.ir, encoding="utf-8") as f:
        ir = json.load(f)
    lib = ir["library"]["name"]
    kernels = ir["kernels"]
    if any(k["context"] != "KernelRuntimeContext" for k in kernels):
        die("every kernel must take KernelRuntimeContext& first (the ExecuTorch target)")

    names, wrappers, entries = set(), [], []
    for k in kernels:
        op = k["operator"]
        name = re.sub(r"\W", "_", f"{op['namespace']}_{op['name']}_{op['overload']}".rstrip("_"))
        while name in names:
            name += "_"
        names.add(name)
        wrappers.append(wrapper(k, name, not a.no_profiling))
        full = f"{op['namespace']}::{op['name']}" + (f".{op['overload']}" if op["overload"] else "")
        key = f'"{k["kernel_key"]}", ' if k["kernel_key"] else ""
        entries.append(f'    Kernel("{full}", {key}{name}),')

    profiling_includes = ("#include <executorch/runtime/core/event_tracer_hooks.h>\n"
                          "#include <executorch/runtime/platform/profiler.h>\n"
                          if not a.no_profiling else "")
    text = f"""\
// Generated for benchmarking by bench/handwritten_registration.py: the
// registration of library '{lib}' as an engineer would write it by hand, the
// baseline bench/compile_cost.sh compares opscan's RegisterKernels.cpp with.
// Leaves out what opscan's file adds: the stack-size check of each wrapper,
// the registry capacity and already-registered checks, the source/key
// tables and all log messages.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
{profiling_includes}
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

using executorch::aten::ArrayRef;
using executorch::aten::Device;
using executorch::aten::Layout;
using executorch::aten::MemoryFormat;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;
namespace internal = executorch::runtime::internal;

// The kernels (defined in the library's sources).
{chr(10).join(declaration(k) for k in kernels)}

namespace {{

{(chr(10) + chr(10)).join(wrappers)}

const Kernel kKernels[] = {{
{chr(10).join(entries)}
}};

}}  // namespace

namespace torch::executor {{
Error register_{lib}_kernels() {{
  return executorch::runtime::register_kernels({{kKernels}});
}}
}}  // namespace torch::executor
"""
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
