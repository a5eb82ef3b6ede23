// Reading a build's compile_commands.json as libclang 14's reader reads it,
// checked first (CompilationDatabase, scan/flags.h).
#include "scan/flags.h"
#include "scan/response_files.h"
#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>

namespace opscan::scan {
namespace fs = std::filesystem;

namespace {

// `path` made absolute against `directory`, lexically normal.
std::string absolute_in(const fs::path& directory, const std::string& path) {
  std::error_code ec;
  return fs::absolute(directory / path, ec).lexically_normal().string();
}

using Json = nlohmann::json;

// The arguments of an entry's "command", split as libclang 14's JSON
// compilation database splits it (POSIX-like: only spaces separate;
// '...' quotes; "..." quotes with backslash escapes; a backslash outside
// quotes escapes the next character).
std::vector<std::string> split_command(std::string_view command) {
  std::vector<std::string> args;
  size_t i = 0;
  const size_t n = command.size();
  while (true) {
    while (i < n && command[i] == ' ')
      ++i;
    if (i >= n)
      break;
    std::string arg;
    while (i < n && command[i] != ' ') {
      const char c = command[i];
      if (c == '\'' || c == '"') {
        for (++i; i < n && command[i] != c; ++i) {
          if (c == '"' && command[i] == '\\' && i + 1 < n)
            ++i;
          arg += command[i];
        }
        ++i;
      } else {
        if (c == '\\' && i + 1 < n)
          ++i;
        arg += command[i++];
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

// Where the `entry`-th element of the array `text` (valid JSON) begins, or
// its member `key` when given and found: a byte offset.
size_t offset_of(std::string_view text, size_t entry, std::string_view key = {}) {
  size_t depth = 0, element = 0, found = 0;
  bool before_element = false; // at depth 1, the next token starts an element
  bool before_key = false;     // at depth 2, the next string is a key
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      continue;
    if (depth == 1 && before_element && c != ']') {
      before_element = false;
      if (element == entry) {
        found = i;
        if (key.empty())
          return i;
      }
    }
    if (c == '"') {
      const size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        i += text[i] == '\\';
      if (depth == 2 && before_key && element == entry &&
          text.substr(start + 1, i - start - 1) == key)
        return start;
      before_key = false;
    } else if (c == '[' || c == '{') {
      ++depth;
      before_element = depth == 1;
      before_key = depth == 2 && c == '{';
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',') {
      element += depth == 1;
      before_element = depth == 1;
      before_key = depth == 2;
    }
  }
  return found;
}

diag::Location location_at(std::string_view text, const std::string& path, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return {path, static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n') + 1),
          static_cast<uint32_t>(offset - line_start + 1), static_cast<uint32_t>(offset)};
}

// Checks the database before it is read (libclang's reader printed its own
// unlocated complaint, and read a response file that is not a regular file,
// which blocks on a FIFO): a JSON array of objects,
// each with the strings "directory" and "file", and "arguments" (an array
// of strings) or "command" (a string); "output" may be given. Every @FILE
// of an entry's arguments must be readable as expand_response_files reads
// it. Errors go to `diags`, located; the response files read, to
// `response_files`; the JSON, to `root`.
bool check_database(const std::string& text, const std::string& path, diag::Diagnostics& diags,
                    std::vector<std::string>& response_files, Json& root) {
  auto invalid = [&](size_t offset, const std::string& message) {
    diags.push_back(diag::make_error("opscan-compile-commands-invalid",
                                     location_at(text, path, offset), message));
    return false;
  };
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte counts the characters read, the offending one included.
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return invalid(at, at >= text.size() ? "not valid JSON: the file ends too early (truncated?)"
                                         : "not valid JSON");
  } catch (const Json::exception&) {
    return invalid(0, "not valid JSON");
  }
  if (!root.is_array()) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    return invalid(first == std::string::npos ? 0 : first,
                   "a compilation database is a JSON array of entries");
  }
  constexpr std::string_view kFields[] = {"directory", "file", "arguments", "command", "output"};
  for (size_t i = 0; i < root.size(); ++i) {
    const Json& entry = root[i];
    const std::string which = fmt::format("entry {}", i + 1);
    if (!entry.is_object())
      return invalid(offset_of(text, i), which + " is not an object");
    for (const auto& [key, value] : entry.items()) {
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
        return invalid(offset_of(text, i, key),
                       fmt::format("{}: unknown field {} (fields: {})", which, support::quoted(key),
                                   fmt::join(kFields, ", ")));
      }
      const bool is_arguments = key == "arguments";
      const bool ok =
          is_arguments
              ? value.is_array() && std::all_of(value.begin(), value.end(),
                                                [](const Json& arg) { return arg.is_string(); })
              : value.is_string();
      if (!ok) {
        return invalid(offset_of(text, i, key),
                       fmt::format("{}: \"{}\" is not {}", which, key,
                                   is_arguments ? "an array of strings" : "a string"));
      }
    }
    for (std::string_view required : {"directory", "file"}) {
      if (!entry.contains(required))
        return invalid(offset_of(text, i), fmt::format("{} has no \"{}\"", which, required));
    }
    if (!entry.contains("arguments") && !entry.contains("command"))
      return invalid(offset_of(text, i), which + " has neither \"arguments\" nor \"command\"");
    // libclang expands the entry's response files (each relative to the
    // entry's directory) as it reads the database.
    std::vector<std::string> args;
    if (entry.contains("arguments"))
      args = entry["arguments"].get<std::vector<std::string>>();
    else
      args = split_command(entry["command"].get<std::string>());
    if (std::none_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg.starts_with('@'); }))
      continue;
    diag::Diagnostics unread;
    if (!expand_response_files(args, entry["directory"].get<std::string>(), unread,
                               &response_files)) {
      for (diag::Diagnostic& d : unread)
        d.message += fmt::format(" (named by {} of {})", which, path);
      diags.insert(diags.end(), unread.begin(), unread.end());
      return false;
    }
  }
  return true;
}

// The --driver-mode libclang 14's database reader adds to a command whose
// compiler is `argv0` (clang's table of program-name suffixes: g++, c++,
// clang++-14 and x86_64-linux-gnu-g++-12 are g++), or none. It adds
// --target=PREFIX too for such a prefix, but only once an index has
// registered the targets: never when a scan reads the database, before any
// parse; neither is it added here.
std::string_view driver_mode_of(std::string_view argv0) {
  static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
      {"clang", ""},
      {"clang++", "--driver-mode=g++"},
      {"clang-c++", "--driver-mode=g++"},
      {"clang-cc", ""},
      {"clang-cpp", "--driver-mode=cpp"},
      {"clang-g++", "--driver-mode=g++"},
      {"clang-gcc", ""},
      {"clang-cl", "--driver-mode=cl"},
      {"cc", ""},
      {"cpp", "--driver-mode=cpp"},
      {"cl", "--driver-mode=cl"},
      {"++", "--driver-mode=g++"},
      {"flang", "--driver-mode=flang"}};
  auto mode_of = [](std::string_view name) -> std::optional<std::string_view> {
    for (const auto& [suffix, mode] : kSuffixes) {
      if (name.ends_with(suffix))
        return mode;
    }
    return std::nullopt;
  };
  std::string_view name = argv0.substr(argv0.rfind('/') + 1);
  auto mode = mode_of(name);
  if (!mode) { // clang++3.5
    name = name.substr(0, name.find_last_not_of("0123456789.") + 1);
    mode = mode_of(name);
  }
  if (!mode) // clang++-tot
    mode = mode_of(name.substr(0, name.rfind('-')));
  return mode.value_or("");
}

// The command of a checked database entry, as libclang 14 read it: its
// "arguments" (one alone is split as a command), else its "command" split;
// response files expanded; the driver mode its compiler's name implies
// added after it, unless one is given.
std::vector<std::string> command_of(const Json& entry) {
  std::vector<std::string> args;
  if (entry.contains("arguments")) {
    args = entry["arguments"].get<std::vector<std::string>>();
    if (args.size() == 1)
      args = split_command(args[0]);
  } else {
    args = split_command(entry["command"].get<std::string>());
  }
  if (std::any_of(args.begin(), args.end(),
                  [](const std::string& arg) { return arg.starts_with('@'); })) {
    diag::Diagnostics unread; // none: the check read them all
    if (auto expanded = expand_response_files(args, entry["directory"].get<std::string>(), unread))
      args = std::move(*expanded);
  }
  if (args.empty())
    return args;
  const std::string_view mode = driver_mode_of(args[0]);
  if (!mode.empty() && std::none_of(args.begin() + 1, args.end(), [](const std::string& arg) {
        return arg.starts_with("--driver-mode=");
      }))
    args.insert(args.begin() + 1, std::string(mode));
  return args;
}

} // namespace

std::unique_ptr<CompilationDatabase> CompilationDatabase::open(const std::string& build_dir,
                                                               diag::Diagnostics& diags) {
  const std::string path = (fs::path(build_dir) / "compile_commands.json").string();
  // Checked first: a FIFO would block, a device never end.
  std::string error;
  std::optional<std::string> text = support::read_file(path, &error);
  if (!text) {
    diags.push_back(
        diag::make_error("opscan-no-compile-commands", {}, "cannot read " + path + ": " + error));
    return nullptr;
  }
  std::vector<std::string> response_files;
  Json root;
  if (!check_database(*text, path, diags, response_files, root))
    return nullptr;
  // Read here rather than by libclang, which a scan that parses nothing
  // does not load; with the same commands (flags_test holds libclang's).
  // Each file's first entry counts (libclang's reader listed them all, and
  // opscan took the first).
  std::unique_ptr<CompilationDatabase> out(new CompilationDatabase(build_dir));
  for (const Json& entry : root) {
    const std::string directory = entry["directory"].get<std::string>();
    const std::string file = absolute_in(directory, entry["file"].get<std::string>());
    if (out->commands_.count(file))
      continue;
    out->commands_.emplace(file, Entry{directory, command_of(entry)});
    out->files_.insert(file);
  }
  std::sort(response_files.begin(), response_files.end());
  response_files.erase(std::unique(response_files.begin(), response_files.end()),
                       response_files.end());
  out->response_files_ = std::move(response_files);
  return out;
}

CompilationDatabase::CompilationDatabase(std::string build_dir)
    : build_dir_(std::move(build_dir)) {}

CompilationDatabase::~CompilationDatabase() = default;

std::optional<CompileCommand> CompilationDatabase::command_for(const std::string& file,
                                                               diag::Diagnostics& diags) const {
  std::string absolute = absolute_in(fs::current_path(), file);
  auto entry = commands_.find(absolute);
  if (entry == commands_.end()) {
    diags.push_back(
        diag::make_error("opscan-no-compile-command", {file, 0, 0, 0},
                         "no entry for this file in " + build_dir_ + "/compile_commands.json"));
    return std::nullopt;
  }
  CompileCommand out;
  out.file = absolute;
  out.directory = entry->second.directory;
  const std::string& directory = out.directory;
  const std::vector<std::string>& args = entry->second.args;
  // Its output (-o) and everything else a scan must not pass on goes in
  // filter_arguments, with the arguments given on the command line.
  for (size_t i = 1; i < args.size(); ++i) { // 0 is the compiler
    const std::string& arg = args[i];
    if (arg == "-c")
      continue;
    if (absolute_in(directory, arg) == absolute)
      continue;
    out.args.push_back(arg);
  }
  return out;
}

} // namespace opscan::scan
