// Where #include lines find files, and reading files without blocking.
#include "scan/includes.h"

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace opscan::scan {
namespace {
namespace fs = std::filesystem;

// The value of an option given as `-opt VALUE`, `-optVALUE` or `-opt=VALUE`
// at args[i] (`joined_with` says which joined forms it has), advancing i
// past it; nullopt when args[i] is not `opt`.
std::optional<std::string> option_value(const std::vector<std::string>& args, size_t& i,
                                        std::string_view opt, std::string_view joined_with) {
  const std::string& arg = args[i];
  if (arg == opt)
    return i + 1 < args.size() ? std::optional(args[++i]) : std::nullopt;
  if (!arg.starts_with(opt))
    return std::nullopt;
  std::string_view rest = std::string_view(arg).substr(opt.size());
  if (joined_with == "=" && rest.starts_with('='))
    return std::string(rest.substr(1));
  if (joined_with == "" && !rest.empty())
    return std::string(rest);
  return std::nullopt;
}

} // namespace

std::string_view skip_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  return text;
}

std::optional<HeaderName> header_name_at(std::string_view text) {
  if (text.empty() || (text.front() != '"' && text.front() != '<'))
    return std::nullopt;
  const char close = text.front() == '"' ? '"' : '>';
  const size_t end = text.find_first_of(std::string{close, '\n'}, 1);
  if (end == std::string_view::npos || text[end] != close || end == 1)
    return std::nullopt;
  return HeaderName{std::string(text.substr(1, end - 1)), close == '"'};
}

void add_included_names(std::string_view text, std::vector<HeaderName>& names) {
  for (size_t at = text.find('#'); at != std::string_view::npos; at = text.find('#', at + 1)) {
    std::string_view rest = skip_blanks(text.substr(at + 1));
    for (std::string_view word : {"include_next", "include", "import"}) {
      if (!rest.starts_with(word))
        continue;
      if (auto name = header_name_at(skip_blanks(rest.substr(word.size()))))
        names.push_back(std::move(*name));
      break;
    }
  }
}

std::string joined(const std::string& dir, const std::string& name) {
  if (dir.empty())
    return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string directory_of(const std::string& file) {
  const std::string parent = fs::path(file).parent_path().string();
  return parent.empty() ? "." : parent;
}

bool names_no_file(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) != 0 || S_ISDIR(status.st_mode);
}

std::vector<std::string> forced_includes(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].starts_with("-include-pch"))
      continue;
    for (std::string_view opt : {"-include", "-imacros", "--include"}) {
      if (auto value = option_value(args, i, opt, opt == "--include" ? "=" : "")) {
        names.push_back(*value);
        break;
      }
    }
  }
  return names;
}

std::string working_directory_of(const std::vector<std::string>& args) {
  std::string directory;
  for (size_t i = 0; i < args.size(); ++i) {
    if (auto value = option_value(args, i, "-working-directory", "="))
      directory = *value;
  }
  return directory;
}

std::vector<std::string> search_directories(const std::vector<std::string>& args) {
  std::set<std::string> dirs;
  std::vector<std::string> sysroots = {""};
  std::string prefix; // of -iwithprefix
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].starts_with("-include") || args[i].starts_with("-imacros"))
      continue; // not directories
    // Longer names first: -isystem-after before -isystem, and so on.
    static constexpr std::pair<std::string_view, std::string_view> kDirectoryOptions[] = {
        {"--include-directory-after", "="},
        {"--include-directory", "="},
        {"-iframeworkwithsysroot", ""},
        {"-iwithprefixbefore", ""},
        {"-iwithprefix", ""},
        {"-iwithsysroot", ""},
        {"-isystem-after", ""},
        {"-iframework", ""},
        {"-idirafter", ""},
        {"-cxx-isystem", ""},
        {"-isystem", ""},
        {"-iquote", ""},
        {"-I", ""},
        {"-F", ""},
    };
    bool matched = false;
    for (auto [opt, joined_with] : kDirectoryOptions) {
      if (auto value = option_value(args, i, opt, joined_with)) {
        if (opt.starts_with("-iwithprefix"))
          dirs.insert(prefix + *value);
        else if (opt.ends_with("withsysroot"))
          dirs.insert("=" + *value); // joined to each sysroot below
        else
          dirs.insert(*value);
        matched = true;
        break;
      }
    }
    if (matched)
      continue;
    if (auto value = option_value(args, i, "-iprefix", "")) {
      prefix = *value;
    } else if (auto root = option_value(args, i, "--sysroot", "=")) {
      sysroots.push_back(*root);
    } else if (auto isysroot = option_value(args, i, "-isysroot", "")) {
      sysroots.push_back(*isysroot);
    } else if (auto resource = option_value(args, i, "-resource-dir", "=")) {
      dirs.insert(*resource + "/include");
    }
  }
  for (const char* variable : kIncludePathVariables) {
    const char* value = std::getenv(variable);
    std::string_view list = value ? value : "";
    while (value) {
      const size_t colon = list.find(':');
      const std::string_view dir = list.substr(0, colon);
      dirs.insert(dir.empty() ? "." : std::string(dir)); // GCC's reading of an empty entry
      if (colon == std::string_view::npos)
        break;
      list.remove_prefix(colon + 1);
    }
  }
  const std::string working_directory = working_directory_of(args);
  std::vector<std::string> out;
  for (const std::string& root : sysroots) {
    for (const char* dir : {"/usr/local/include", "/usr/include"})
      out.push_back(root + dir);
  }
  for (const std::string& dir : dirs) {
    if (dir.starts_with('=')) {
      for (const std::string& root : sysroots)
        out.push_back(root + dir.substr(1));
    } else {
      out.push_back(dir);
    }
  }
  if (!working_directory.empty()) {
    for (std::string& dir : out) {
      if (!dir.starts_with('/'))
        dir = joined(working_directory, dir);
    }
  }
  return out;
}

} // namespace opscan::scan
