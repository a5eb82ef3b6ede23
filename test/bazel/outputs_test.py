"""bazel/opscan.bzl declares the files `opscan generate` writes per target
(Bazel must know an action's outputs before it runs): its _GENERATED table
must list, per target, what `opscan generate --list-outputs` lists.

    python3 outputs_test.py OPSCAN BZL_FILE
"""
import ast
import re
import subprocess
import sys

opscan, bzl = sys.argv[1], sys.argv[2]
text = open(bzl).read()
match = re.search(r"^_GENERATED = (\{.*?^\})", text, re.S | re.M)
if not match:
    sys.exit(f"{bzl}: no _GENERATED table")
declared = ast.literal_eval(match.group(1))

failures = []
for target, files in sorted(declared.items()):
    for registration in ("named", "static"):
        listed = subprocess.run(
            [opscan, "generate", "--list-outputs", "--target", target,
             "--registration", registration, "--lib", "x", "-o", "out"],
            capture_output=True, text=True, check=True).stdout.split("\n")
        names = [line.split(" ", 1)[1][len("x/"):] for line in listed
                 if line.split(" ", 1)[0] in ("header", "source", "data")]
        names.remove("ir.json")  # declared apart: the library IR
        if names != files:
            failures.append(f"{target} ({registration}): opscan.bzl declares {files}, "
                            f"opscan lists {names}")
if failures:
    sys.exit("\n".join(failures))
print(f"ok: {len(declared)} targets declared as opscan lists them")
