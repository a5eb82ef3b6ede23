"""opscan_tool_repository: the prebuilt opscan binary, and the builtin
headers of the libclang it links, as a repository whose files the rule's
actions declare as inputs.

The repository holds:
  opscan                 the binary (a link to it)
  clang-resource/include the resource directory's headers (a link to the
                         directory `opscan --version` names)
and its BUILD file exports `opscan` and the filegroup `clang_resource`.
"""

_BUILD = """\
# Made by opscan_tool_repository (@opscan//bazel:repositories.bzl).
exports_files(["opscan"])

# The headers libclang gives every parse (stddef.h, ...): an input of every
# scan, which passes -resource-dir for this directory.
filegroup(
    name = "clang_resource",
    srcs = glob(["clang-resource/include/**"]),
    visibility = ["//visibility:public"],
)
"""

_RESOURCE_LINE = "clang resource directory: "

def _opscan_tool_repository_impl(rctx):
    given = rctx.os.environ.get("OPSCAN") or rctx.attr.opscan
    if given.startswith("/"):
        opscan = rctx.path(given)
    else:
        workspace = rctx.path(Label("//bazel:repositories.bzl")).dirname.dirname
        opscan = rctx.path("{}/{}".format(workspace, given))
    if not opscan.exists:
        fail("opscan_tool_repository: no opscan binary at {} (build opscan first, or set --repo_env=OPSCAN=/path/to/opscan)".format(opscan))
    version = rctx.execute([opscan, "--version"])
    if version.return_code != 0:
        fail("opscan_tool_repository: `{} --version` failed: {}".format(opscan, version.stderr))
    resource_dir = None
    for line in version.stdout.splitlines():
        if line.startswith(_RESOURCE_LINE):
            resource_dir = line[len(_RESOURCE_LINE):]
    if not resource_dir:
        fail("opscan_tool_repository: `{} --version` names no clang resource directory (opscan 0.2 or later does)".format(opscan))
    if not rctx.path(resource_dir + "/include/stddef.h").exists:
        fail("opscan_tool_repository: {} has no include/stddef.h".format(resource_dir))
    rctx.symlink(opscan, "opscan")
    rctx.symlink(resource_dir + "/include", "clang-resource/include")
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD.bazel", _BUILD)

opscan_tool_repository = repository_rule(
    implementation = _opscan_tool_repository_impl,
    attrs = {
        "opscan": attr.string(
            doc = "The opscan binary: absolute, or relative to the main workspace. The environment variable OPSCAN (--repo_env=OPSCAN=...) overrides it.",
            mandatory = True,
        ),
    },
    environ = ["OPSCAN"],
    # The binary and its libclang live outside Bazel's view: look again on
    # every fetch.
    local = True,
)
