// Where an editor's file gets its compile command and its library context:
// the compilation database found as clangd finds it, the file that includes
// a header, and the kernel libraries the build has generated.
#pragma once

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

// A kernel library the build generated (its IR, <target>.opscan/include/<lib>/ir.json).
struct BuiltLibrary {
  std::string ir_file;
  ir::Module module; // with its library info
  // Where each kernel is (as module.kernels), the file made absolute against
  // the build directory.
  std::vector<diag::Location> locations;
  // What its kernels claim in the runtime (emit::Target::claims), by the
  // claim's key: the kernels making it, grouped by file, each with the
  // claim's description. Made once per reading, so that an open file's
  // kernels are checked against the library by lookup, not by a walk of all
  // its kernels for each (which was quadratic in the kernels of a file).
  struct Claimant {
    size_t kernel; // index into module.kernels
    std::string description;
  };
  std::map<std::string, std::map<std::string, std::vector<Claimant>>>
      claims; // key -> file -> kernels
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
  const std::vector<BuiltLibrary>& libraries(const std::string& database);

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
