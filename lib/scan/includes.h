// Where #include lines find files: header names as written, the search
// path of a compiler command, and reading files without blocking; private
// to lib/scan (the fragment cache and the automatic precompiled header).
#pragma once

#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::scan {

// The environment variables libclang's driver reads include directories from.
inline constexpr const char* kIncludePathVariables[] = {
    "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "OBJCPLUS_INCLUDE_PATH"};

std::string_view skip_blanks(std::string_view text);

// A header name as written: "name" (quoted) or <name>.
struct HeaderName {
  std::string name;
  bool quoted = false;
  auto operator<=>(const HeaderName&) const = default;
};

// The header name `text` starts with, if it starts with one on its line.
std::optional<HeaderName> header_name_at(std::string_view text);

// Adds the header names of the #include lines of `text`, active or not.
void add_included_names(std::string_view text, std::vector<HeaderName>& names);

// `dir`/`name` as the preprocessor forms it.
std::string joined(const std::string& dir, const std::string& name);

// The directory part of a file name as libclang gives it ("." for none).
std::string directory_of(const std::string& file);

// Whether `path` names nothing the preprocessor could open as a header.
bool names_no_file(const std::string& path);

// The files `args` include before the source (-include, -imacros).
std::vector<std::string> forced_includes(const std::vector<std::string>& args);

// The frontend's working directory, which relative paths are taken from
// (a compilation database's entry gives it); "" for the process's.
std::string working_directory_of(const std::vector<std::string>& args);

// Every directory that may be on the include search path of a scan with
// `args` (the default system ones included), in no particular order.
std::vector<std::string> search_directories(const std::vector<std::string>& args);

} // namespace opscan::scan
