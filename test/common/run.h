// Runs a command the way users do, in a directory of the test's choosing,
// with its exit code, output and error output, and a time bound: a command
// that hangs is killed (exit code 124, as timeout(1) reports it) instead of
// hanging the test suite.
#pragma once

#include "files.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>

namespace opscan::testing {

struct RunResult {
  int exit_code = -1; // 124: killed after the time bound
  std::string out;
  std::string err;
};

// Runs `command` (shell syntax) in `dir`; stdin is /dev/null.
inline RunResult run_command(const std::filesystem::path& dir, const std::string& command,
                             int timeout_seconds = 60) {
  TempDir io;
  const std::string line = "cd '" + dir.string() + "' && timeout -k 5 " +
                           std::to_string(timeout_seconds) + " " + command + " </dev/null >'" +
                           (io.path() / "out").string() + "' 2>'" + (io.path() / "err").string() +
                           "'";
  const int status = std::system(line.c_str());
  RunResult run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(io.path() / "out");
  run.err = read_file(io.path() / "err");
  return run;
}

} // namespace opscan::testing
