// Where an editor's file gets its compile command and its library context:
// the compilation database found as clangd finds it, the file that includes
// a header, and the kernel libraries the build has generated.
#pragma once

#include "driver/driver.h"
#include "ir/ir.h"
#include "scan/flags.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace opscan::lsp {

// What tells one version of a file from another without reading it: a
// rewrite in place changes its size or times, a rename over it the inode.
struct Stamp {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = -1; // -1: no such file
  int64_t mtime = -1;
  int64_t ctime = -1;
  friend bool operator==(const Stamp&, const Stamp&) = default;
};
Stamp stamp_of(const std::string& path);

// Whether a rewrite could keep `stamp`: file times are as coarse as the
// kernel's clock tick, so a file changed again within a tick of its last
// change may keep its size and times. Until it is older than that (with a
// margin), its content decides.
bool racy(const Stamp& stamp);

struct FileCommand {
  std::string main_file;         // the translation unit to parse: the file, or one including it
  std::vector<std::string> args; // its compile command's arguments
  std::string database;          // the compile_commands.json used; "" when none
  std::string directory;         // its entry's directory; "" when none
  // Why the compile_commands.json found (or named by the editor's setting)
  // cannot be used, located in it: then the file has default flags.
  diag::Diagnostics database_problems;
};

// The kernel libraries a build generated (their IRs,
// <target>.opscan/include/<lib>/ir.json), read as the command line reads
// IR files (driver::read_irs: each validated, and refused with located
// diagnostics when invalid) and checked together (driver::check_libraries:
// what their kernels claim in each runtime).
struct BuiltLibraries {
  std::vector<driver::IrFile> files; // the valid library IRs, by path
  // Where each kernel of each file is (as files[i].module.kernels), the
  // file made absolute against the build directory.
  std::vector<std::vector<diag::Location>> locations;
  driver::LibraryCheck check;
  // Why IRs found were left out (located in them when they could be read).
  diag::Diagnostics problems;
};

class Workspace {
public:
  // `database_dir`: a directory holding compile_commands.json that every
  // file uses (the editor's setting); unset: found per file. A database is
  // read again when its file changes (or appears, or goes), so a changed
  // compile_commands.json applies to the next analysis of every file.
  explicit Workspace(std::optional<std::string> database_dir = std::nullopt);
  ~Workspace();

  // How to parse `path` (absolute). A file the database has an entry for
  // is its own unit; a header is parsed through a source of the database
  // that includes it (directly or by a header that does), found by reading
  // the sources' #include lines; else the file alone with default flags.
  FileCommand command_for(const std::string& path);

  // Remembers that `main_file`'s unit read `files`: they are parsed through
  // it from now on.
  void note_includes(const std::string& main_file, const std::string& database,
                     const std::vector<std::string>& files);

  // The libraries generated under the database's build directory; read
  // again when their IR files change.
  const BuiltLibraries& built_libraries(const std::string& database);
  const std::vector<driver::IrFile>& libraries(const std::string& database) {
    return built_libraries(database).files;
  }

private:
  struct Database;
  Database* database_for(const std::string& path);
  Database* open(const std::string& file);

  std::optional<std::string> database_dir_;
  std::map<std::string, std::unique_ptr<Database>> databases_; // by compile_commands.json
};

// The compile_commands.json clangd would use for `path`: in the file's
// directory or an ancestor, or in a build/ directory beside one of them;
// "" when there is none. One that is there but no regular file (a
// directory, a FIFO, a link to a device) is found too, so that it is
// reported rather than silently passed over.
std::string find_database(const std::string& path);

} // namespace opscan::lsp
