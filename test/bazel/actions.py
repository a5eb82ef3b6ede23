"""What Bazel says of opscan's actions, for bazel_cache_test.sh: its JSON
execution log (--execution_log_json_file) and aquery --output=jsonproto.

  actions.py count LOG MNEMONIC
      prints "<spawns> <remote cache hits>" of the actions MNEMONIC
  actions.py resource-dir LOG
      fails unless every OpscanScan declares libclang's builtin headers
      (the tool repository's clang-resource) as inputs and passes their
      directory as -resource-dir
  actions.py options AQUERY
      fails unless the consumer workspace's //:aten, //:aot and //:stable
      libraries pass their generation options to opscan and their defines
      to their scans and compiles
"""
import json
import sys

RESOURCE_DIR = "external/opscan_tool/clang-resource"

ATEN = "-DUSE_ATEN_LIB=1"
STABLE_2_10 = "-DTORCH_TARGET_VERSION=0x020a000000000000"
# Per library: the arguments each of its actions must have (and, for the
# generate, the options it must not have).
EXPECTED = {
    "aten": {"OpscanGenerate": ["--use-aten-lib"], "OpscanScan": [ATEN], "CppCompile": [ATEN]},
    "aot": {"OpscanGenerate": [], "OpscanScan": [ATEN], "CppCompile": [ATEN]},
    "stable": {"OpscanGenerate": ["--torch-target-version", "2.10"],
               "OpscanScan": [STABLE_2_10], "CppCompile": [STABLE_2_10]},
}
GENERATE_OPTIONS = ("--use-aten-lib", "--torch-target-version", "--exception-boundary",
                    "--no-profiling")


def spawns(path, mnemonic):
    """The log's spawns of `mnemonic` (the log is a stream of JSON objects)."""
    text = open(path).read()
    decoder, at = json.JSONDecoder(), 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return
        spawn, at = decoder.raw_decode(text, at)
        if spawn.get("mnemonic") == mnemonic:
            yield spawn


def declares_resource_dir(spawn):
    inputs = {i["path"] for i in spawn["inputs"]}
    args = spawn["commandArgs"]
    given = [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-resource-dir"]
    return given == [RESOURCE_DIR] and RESOURCE_DIR + "/include/stddef.h" in inputs


def has_sequence(args, wanted):
    return any(args[k:k + len(wanted)] == wanted for k in range(len(args) - len(wanted) + 1))


def option_failures(aquery):
    """What the aquery's actions lack of EXPECTED."""
    labels = {t["id"]: t["label"] for t in aquery["targets"]}
    seen, failures = set(), []
    for action in aquery["actions"]:
        library = labels[action["targetId"]].removeprefix("//:").removesuffix("_opscan")
        mnemonic, args = action["mnemonic"], action["arguments"]
        wanted = EXPECTED.get(library, {}).get(mnemonic)
        if wanted is None:
            continue
        seen.add((library, mnemonic))
        if not has_sequence(args, wanted):
            failures.append(f"{library}: {mnemonic} lacks {wanted}: {args}")
        if mnemonic == "OpscanGenerate":
            extra = [a for a in args if a in GENERATE_OPTIONS and a not in wanted]
            if extra:
                failures.append(f"{library}: {mnemonic} has {extra}")
    for library, actions in EXPECTED.items():
        failures += [f"{library}: no {m} action" for m in actions if (library, m) not in seen]
    return failures


def count(log, mnemonic):
    found = list(spawns(log, mnemonic))
    print(len(found), sum(1 for s in found if s.get("remoteCacheHit")))
    return 0


def options(aquery):
    failures = option_failures(json.load(open(aquery)))
    return "\n".join(failures) if failures else 0


def resource_dir(log):
    scans = list(spawns(log, "OpscanScan"))
    if not scans:
        return "no OpscanScan in " + log
    for scan in scans:
        if not declares_resource_dir(scan):
            return "a scan without the declared resource directory: " + " ".join(scan["commandArgs"])
    return 0


COMMANDS = {"count": count, "options": options, "resource-dir": resource_dir}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:]))
