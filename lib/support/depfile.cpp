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

std::string make_depfile(const std::string& target, const std::vector<std::string>& prerequisites) {
  std::string out = escaped(target) + ":";
  for (const std::string& p : prerequisites)
    out += " \\\n  " + escaped(p);
  return out + "\n";
}

} // namespace opscan::support
