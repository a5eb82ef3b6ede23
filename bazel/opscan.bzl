"""opscan_kernel_library: a C++ kernel library whose registration code opscan
generates from its annotated sources, in Bazel.

One scan action per source (its IR fragment), one generate action over the
fragments (the registration code and the library IR), and a cc_library of
the kernels and the generated code. The scans take their flags from the C++
toolchain and the library's deps, as the library's own compiles do, and
read only declared inputs: each runs in Bazel's sandbox, and a fragment
records sources by their paths relative to the execution root, so it is the
same in every checkout and a remote cache serves it to every user.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

OpscanLibraryInfo = provider(
    doc = "An opscan kernel library: what opscan_check reads of it.",
    fields = {
        "lib_name": "The library's name (register_<lib_name>_kernels()).",
        "target": "The target it was generated for (executorch, torch, ...).",
        "library_ir": "File: the library IR (<lib>/ir.json).",
    },
)

# The files `opscan generate --target <target>` writes per library, as
# `opscan generate --list-outputs` lists them (test/bazel/outputs_test.py
# checks that the two agree), and what `--operators-from` adds to them.
_GENERATED = {
    "executorch": [
        "RegisterKernels.h",
        "RegisterKernels.cpp",
        "KernelSources.cpp",
        "NativeFunctions.h",
        "Functions.h",
        "selected_operators.yaml",
        "kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h",
    ],
    "executorch-aot": ["RegisterKernels.h", "RegisterKernels.cpp", "KernelSources.cpp", "NativeFunctions.h"],
    "torch": ["RegisterKernels.h", "RegisterKernels.cpp", "KernelSources.cpp", "NativeFunctions.h"],
    "torch-stable": ["RegisterKernels.h", "RegisterKernels.cpp", "NativeFunctions.h"],
}
_GENERATED_WITH_OPERATORS_FROM = {
    "executorch": ["selected_prim_ops.h"],
}

# The defaults, as labels of this repository: a string default would name
# the package of the BUILD file calling the macro, in the caller's workspace.
_OPSCAN = Label("//bazel:opscan")
_CLANG_RESOURCE = Label("//bazel:clang_resource")

def _scan_arguments(ctx, cc_toolchain, compilation_context):
    """The compiler arguments of a C++ compile of the library's sources."""
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ctx.attr.copts,
        include_directories = compilation_context.includes,
        quote_include_directories = compilation_context.quote_includes,
        system_include_directories = compilation_context.system_includes,
        preprocessor_defines = depset(ctx.attr.defines + ctx.attr.local_defines, transitive = [compilation_context.defines]),
    )
    return cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = "c++-compile",
        variables = variables,
    )

def _resource_dir(files):
    """The clang resource directory `files` (its include/ headers) are in."""
    for f in files:
        if f.path.endswith("/include/stddef.h"):
            return f.path[:-len("/include/stddef.h")]
    fail("clang_resource: no include/stddef.h among its files (the resource directory's headers)")

def _scan(ctx, opscan, src, arguments, headers):
    """The action scanning `src` into its IR fragment; returns the fragment."""
    fragment = ctx.actions.declare_file("{}.opscan/scan/{}.ir.json".format(ctx.label.name, src.short_path))
    args = ctx.actions.args()
    args.add("scan", src)
    args.add("-o", fragment)
    # Each scan stands alone: a precompiled header shared between scans
    # would be an input no action declares.
    args.add("--no-auto-pch")
    args.add_all(ctx.files.schemas, before_each = "--schemas")
    args.add("--")
    # libclang's builtin headers from the declared files, not from where
    # the binary's libclang is installed.
    args.add("-resource-dir", _resource_dir(ctx.files.clang_resource))
    args.add_all(arguments)
    ctx.actions.run(
        executable = opscan,
        arguments = [args],
        inputs = depset([src] + ctx.files.schemas + ctx.files.clang_resource, transitive = [headers]),
        outputs = [fragment],
        mnemonic = "OpscanScan",
        progress_message = "opscan: scanning {} (kernel library '{}')".format(src.short_path, ctx.attr.lib_name),
    )
    return fragment

def _generate(ctx, opscan, fragments):
    """The action generating the library from `fragments`; returns its files and its IR."""
    names = list(_GENERATED[ctx.attr.target])
    if ctx.file.operators_from:
        names += _GENERATED_WITH_OPERATORS_FROM.get(ctx.attr.target, [])
    lib_dir = "{}.opscan/include/{}".format(ctx.label.name, ctx.attr.lib_name)
    generated = [ctx.actions.declare_file("{}/{}".format(lib_dir, name)) for name in names]
    library_ir = ctx.actions.declare_file(lib_dir + "/ir.json")
    args = ctx.actions.args()
    args.add("generate")
    args.add_all(fragments)
    args.add_all(["--target", ctx.attr.target, "--registration", ctx.attr.registration, "--lib", ctx.attr.lib_name])
    if ctx.attr.dispatch_key:
        args.add("--dispatch-key", ctx.attr.dispatch_key)
    args.add_all(ctx.attr.operators, before_each = "--operators")
    if ctx.file.operators_from:
        args.add("--operators-from", ctx.file.operators_from)
    if not ctx.attr.profiling:
        args.add("--no-profiling")
    if ctx.attr.exception_boundary:
        args.add("--exception-boundary")
    if ctx.attr.aten_mode:
        args.add("--use-aten-lib")
    if ctx.attr.torch_target_version:
        args.add("--torch-target-version", ctx.attr.torch_target_version)
    # opscan writes <lib_name>/... below the directory given.
    args.add("-o", library_ir.dirname.rsplit("/", 1)[0])
    ctx.actions.run(
        executable = opscan,
        arguments = [args],
        inputs = fragments + ([ctx.file.operators_from] if ctx.file.operators_from else []),
        outputs = generated + [library_ir],
        mnemonic = "OpscanGenerate",
        progress_message = "opscan: generating registration code for kernel library '{}'".format(ctx.attr.lib_name),
    )
    return generated, library_ir

def _opscan_generated_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    compilation_context = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps if CcInfo in dep],
    ).compilation_context
    arguments = _scan_arguments(ctx, cc_toolchain, compilation_context)
    headers = depset(ctx.files.hdrs, transitive = [compilation_context.headers, cc_toolchain.all_files])
    opscan = ctx.executable.opscan
    fragments = [_scan(ctx, opscan, src, arguments, headers) for src in ctx.files.srcs]
    generated, library_ir = _generate(ctx, opscan, fragments)

    return [
        DefaultInfo(files = depset(generated)),
        OutputGroupInfo(
            sources = depset([f for f in generated if f.extension == "cpp"]),
            headers = depset([f for f in generated if f.extension == "h"]),
            library_ir = depset([library_ir]),
        ),
        OpscanLibraryInfo(
            lib_name = ctx.attr.lib_name,
            target = ctx.attr.target,
            library_ir = library_ir,
        ),
    ]

_opscan_generated = rule(
    implementation = _opscan_generated_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cc", ".cpp", ".cxx", ".c++"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(),
        "copts": attr.string_list(),
        "defines": attr.string_list(),
        "local_defines": attr.string_list(),
        "target": attr.string(mandatory = True, values = _GENERATED.keys()),
        "registration": attr.string(mandatory = True, values = ["named", "static", "manual"]),
        "lib_name": attr.string(mandatory = True),
        "dispatch_key": attr.string(),
        "operators": attr.string_list(),
        "operators_from": attr.label(allow_single_file = True),
        "schemas": attr.label_list(allow_files = True),
        "profiling": attr.bool(default = True),
        "exception_boundary": attr.bool(),
        "aten_mode": attr.bool(),
        "torch_target_version": attr.string(),
        "opscan": attr.label(executable = True, cfg = "exec", allow_single_file = True, mandatory = True),
        "clang_resource": attr.label(mandatory = True),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def _local_defines(name, target, aten_mode, torch_target_version):
    """What the kernels are compiled (and so scanned) with for the build
    their registration is generated for, as CMake's function defines it."""
    defines = []
    if target == "executorch-aot" or aten_mode:
        defines.append("USE_ATEN_LIB=1")
    if torch_target_version:
        major, _, minor = torch_target_version.partition(".")
        if major != "2" or not minor.isdigit() or int(minor) > 255:
            fail("opscan_kernel_library {}: torch_target_version is 2.<minor>, not '{}'".format(name, torch_target_version))
        digits = "0123456789abcdef"
        # TORCH_TARGET_VERSION: major in the top byte, minor in the next.
        defines.append("TORCH_TARGET_VERSION=0x02{}{}000000000000".format(digits[int(minor) // 16], digits[int(minor) % 16]))
    return defines

def opscan_kernel_library(
        name,
        srcs,
        target,
        registration,
        lib_name = None,
        hdrs = [],
        deps = [],
        copts = [],
        defines = [],
        dispatch_key = None,
        operators = [],
        operators_from = None,
        schemas = [],
        profiling = True,
        exception_boundary = False,
        aten_mode = False,
        torch_target_version = None,
        opscan = None,
        clang_resource = None,
        **kwargs):
    """A cc_library of annotated kernels and the registration code opscan generates for them.

    Consumers include "<lib_name>/RegisterKernels.h". The options are those of
    CMake's opscan_add_kernel_library (docs/bazel.md).

    Args:
      name: the cc_library's name.
      srcs: the annotated kernel sources; each is scanned on its own.
      target: executorch, executorch-aot, torch or torch-stable.
      registration: named, static or manual.
      lib_name: the library's name (default: name).
      hdrs: headers of the kernels.
      deps: what the kernels compile against (their headers reach the scans).
      copts: compile options of the kernels, also used to scan them.
      defines: defines of the kernels and of everything that depends on them.
      dispatch_key: the dispatch key of kernels naming none (torch targets).
      operators: generate only these operators (ns::op.overload).
      operators_from: a model (.pte) or selected_operators.yaml (executorch).
      schemas: files of known operator schemas.
      profiling: per-operator profiling calls (False: opscan --no-profiling).
      exception_boundary: a kernel's exception fails its call (executorch).
      aten_mode: ExecuTorch's ATen mode (executorch; the kernels get
        USE_ATEN_LIB=1, as executorch-aot's always do).
      torch_target_version: the stable ABI 2.<minor> to build for
        (torch-stable; the kernels get TORCH_TARGET_VERSION).
      opscan: the opscan binary (default: //bazel:opscan).
      clang_resource: the headers of the resource directory of opscan's
        libclang (default: //bazel:clang_resource).
      **kwargs: passed to the cc_library (visibility, testonly, ...).
    """
    lib_name = lib_name or name
    generated = name + "_opscan"
    local_defines = _local_defines(name, target, aten_mode, torch_target_version)
    _opscan_generated(
        name = generated,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        defines = defines,
        local_defines = local_defines,
        target = target,
        registration = registration,
        lib_name = lib_name,
        dispatch_key = dispatch_key,
        operators = operators,
        operators_from = operators_from,
        schemas = schemas,
        profiling = profiling,
        exception_boundary = exception_boundary,
        aten_mode = aten_mode,
        torch_target_version = torch_target_version,
        opscan = opscan or _OPSCAN,
        clang_resource = clang_resource or _CLANG_RESOURCE,
        testonly = kwargs.get("testonly", False),
    )
    native.filegroup(name = generated + "_sources", srcs = [":" + generated], output_group = "sources")
    native.filegroup(name = generated + "_headers", srcs = [":" + generated], output_group = "headers")
    native.cc_library(
        name = name,
        srcs = srcs + [":" + generated + "_sources"],
        hdrs = hdrs + [":" + generated + "_headers"],
        includes = [generated + ".opscan/include"],
        deps = deps,
        copts = copts,
        defines = defines,
        local_defines = local_defines,
        # Nothing calls into a statically registered library: keep it linked.
        alwayslink = registration == "static",
        **kwargs
    )

OpscanLibrariesInfo = provider(
    doc = "The opscan kernel libraries a target links (collected by an aspect).",
    fields = {"libraries": "depset of OpscanLibraryInfo"},
)

def _linked_libraries_impl(target, ctx):
    direct = [target[OpscanLibraryInfo]] if OpscanLibraryInfo in target else []
    transitive = []

    # A kernel library's cc_library reaches its generation through srcs (a
    # filegroup of the generated sources), other libraries through deps.
    for attr in ("deps", "srcs"):
        for dep in getattr(ctx.rule.attr, attr, []):
            if type(dep) == "Target" and OpscanLibrariesInfo in dep:
                transitive.append(dep[OpscanLibrariesInfo].libraries)
    return [OpscanLibrariesInfo(libraries = depset(direct, transitive = transitive))]

_linked_libraries = aspect(
    implementation = _linked_libraries_impl,
    attr_aspects = ["deps", "srcs"],
)

def _opscan_check_impl(ctx):
    libraries = depset(transitive = [dep[OpscanLibrariesInfo].libraries for dep in ctx.attr.deps]).to_list()
    if not libraries:
        fail("opscan_check {}: no opscan_kernel_library among deps or what they depend on".format(ctx.label))
    irs = [lib.library_ir for lib in libraries]
    stamp = ctx.actions.declare_file(ctx.label.name + ".opscan-check")
    args = ctx.actions.args()
    args.add("check")
    args.add_all(irs)
    args.add("--stamp", stamp)
    ctx.actions.run(
        executable = ctx.executable.opscan,
        arguments = [args],
        inputs = irs,
        outputs = [stamp],
        mnemonic = "OpscanCheck",
        progress_message = "opscan: checking kernel libraries {}".format(", ".join([lib.lib_name for lib in libraries])),
    )

    # In runfiles too: a program's data dependency on the check builds it.
    return [DefaultInfo(files = depset([stamp]), runfiles = ctx.runfiles(files = [stamp]))]

_opscan_check = rule(
    implementation = _opscan_check_impl,
    attrs = {
        "deps": attr.label_list(aspects = [_linked_libraries], mandatory = True),
        "opscan": attr.label(executable = True, cfg = "exec", allow_single_file = True, mandatory = True),
    },
)

def opscan_check(name, deps, opscan = None, **kwargs):
    """Checks the kernel libraries one program links, together (opscan check).

    Two libraries registering one operator (and kernel key, or dispatch key)
    in one runtime fail the build here, naming it, as they would fail the
    program at start-up. The libraries are every opscan_kernel_library among
    `deps` and what they depend on. Building the target runs the check; a
    program's data dependency on it checks on every build of the program.

    Args:
      name: the check's name.
      deps: what the program links (its deps).
      opscan: the opscan binary (default: //bazel:opscan).
      **kwargs: common attributes (visibility, tags, ...).
    """
    _opscan_check(name = name, deps = deps, opscan = opscan or _OPSCAN, **kwargs)
