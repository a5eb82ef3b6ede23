"""What a Bazel JSON execution log (--execution_log_json_file) says of
opscan's actions, for bazel_cache_test.sh.

  execution_log.py count LOG MNEMONIC
      prints "<spawns> <remote cache hits>" of the actions MNEMONIC
  execution_log.py resource-dir LOG
      fails unless every OpscanScan declares libclang's builtin headers
      (the tool repository's clang-resource) as inputs and passes their
      directory as -resource-dir
"""
import json
import sys

RESOURCE_DIR = "external/opscan_tool/clang-resource"


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


def main(command, log, mnemonic=None):
    if command == "count":
        found = list(spawns(log, mnemonic))
        print(len(found), sum(1 for s in found if s.get("remoteCacheHit")))
        return 0
    scans = list(spawns(log, "OpscanScan"))
    if not scans:
        return "no OpscanScan in " + log
    for scan in scans:
        if not declares_resource_dir(scan):
            return "a scan without the declared resource directory: " + " ".join(scan["commandArgs"])
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
