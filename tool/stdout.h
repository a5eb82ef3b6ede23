// opscan's standard output, kept private. What opscan prints there (a JSON
// or SARIF document, a report, --list-outputs' listing, the language
// server's messages) is one document: whatever libclang, LLVM or any other
// library prints goes to stderr instead. And a write there that fails is an
// error the command reports (exit code 3), not a silent loss.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opscan::tool {

// Called first in main. Moves the process's stdout to a private descriptor
// (closed on exec) and points descriptor 1 at stderr, so that what
// libraries print there goes to stderr. A standard descriptor that is
// closed is opened on /dev/null, so that no file opened later (an output,
// a file libclang opens) becomes it and receives what is printed; a closed
// stdout stays closed to opscan (writing fails with EBADF). SIGPIPE is
// ignored: a reader that has gone is a write error (EPIPE), reported, not a
// silent death.
void keep_stdout_private();

// Writes all of `text` to opscan's stdout now. False when it cannot; the
// first error is kept for close_stdout.
bool write_stdout(std::string_view text);

// The descriptor of opscan's stdout (-1 when it was closed), for a writer
// that handles its own errors (the language server).
int stdout_descriptor();

// The end of a command: closes opscan's stdout and says why a write there
// failed (strerror's text), if one did. A command that wrote nothing there
// has nothing to fail.
std::optional<std::string> close_stdout();

} // namespace opscan::tool
