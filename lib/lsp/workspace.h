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
#include <vector>

namespace opscan::lsp {

struct FileCommand {
  std::string main_file;         // the translation unit to parse: the file, or one including it
  std::vector<std::string> args; // its compile command's arguments
  std::string database;          // the compile_commands.json used; "" when none
  std::string directory;         // its entry's directory; "" when none
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
// "" when there is none.
std::string find_database(const std::string& path);

} // namespace opscan::lsp
