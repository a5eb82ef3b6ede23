// Writing Makefile-syntax depfiles for Ninja and Make.
#include "support/depfile.h"

namespace opscan::support {
namespace {

std::string escaped(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == ' ' || c == '#') {
      // Backslashes right before an escaped character are doubled.
      for (size_t j = i; j > 0 && path[j - 1] == '\\'; --j)
        out += '\\';
      out += '\\';
    } else if (c == '$') {
      out += '$';
    }
    out += c;
  }
  return out;
}

} // namespace

std::optional<std::string> make_depfile(const std::string& target,
                                        const std::vector<std::string>& prerequisites,
                                        std::string* unwritable) {
  auto writable = [&](const std::string& path) {
    if (path.find_first_of("\r\n") == std::string::npos)
      return true;
    if (unwritable)
      *unwritable = path;
    return false;
  };
  if (!writable(target))
    return std::nullopt;
  std::string out = escaped(target) + ":";
  for (const std::string& p : prerequisites) {
    if (!writable(p))
      return std::nullopt;
    out += " \\\n  " + escaped(p);
  }
  return out + "\n";
}

} // namespace opscan::support
