"""bazel/opscan.bzl declares the files `opscan generate` writes per target
(Bazel must know an action's outputs before it runs): its _GENERATED table
must list, per target and registration, what `opscan generate
--list-outputs` lists, and _GENERATED_WITH_OPERATORS_FROM what
--operators-from adds.

    python3 outputs_test.py OPSCAN BZL_FILE
"""
import ast
import os
import re
import subprocess
import sys
import tempfile

opscan, bzl = sys.argv[1], sys.argv[2]
text = open(bzl).read()


def table(name):
    match = re.search(rf"^{name} = (\{{.*?^\}})", text, re.S | re.M)
    if not match:
        sys.exit(f"{bzl}: no {name} table")
    return ast.literal_eval(match.group(1))


declared = table("_GENERATED")
with_operators_from = table("_GENERATED_WITH_OPERATORS_FROM")


def listed(*options):
    """The files --list-outputs names below the library's directory, but its IR."""
    out = subprocess.run([opscan, "generate", "--list-outputs", "--lib", "x", "-o", "out", *options],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    names = [line.split(" ", 1)[1][len("x/"):] for line in out
             if line.split(" ", 1)[0] in ("header", "source", "data")]
    names.remove("ir.json")  # declared apart: the library IR
    return names


failures = []
with tempfile.TemporaryDirectory() as tmp:
    selection = os.path.join(tmp, "selected_operators.yaml")
    with open(selection, "w") as f:
        f.write("include_all_operators: false\noperators:\n  aten::add.out:\n    is_root_operator: true\n")
    for target, files in sorted(declared.items()):
        for registration in ("named", "static", "manual"):
            if target == "torch-stable" and registration == "manual":
                continue  # refused: torch-stable registers through StableLibrary
            options = ["--target", target, "--registration", registration]
            names = listed(*options)
            if names != files:
                failures.append(f"{target} ({registration}): opscan.bzl declares {files}, "
                                f"opscan lists {names}")
        names = listed("--target", target, "--registration", "named", "--operators-from", selection)
        expected = files + with_operators_from.get(target, [])
        if names != expected:
            failures.append(f"{target} (--operators-from): opscan.bzl declares {expected}, "
                            f"opscan lists {names}")
if failures:
    sys.exit("\n".join(failures))
print(f"ok: {len(declared)} targets declared as opscan lists them")
