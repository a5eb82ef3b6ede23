// What a shared library leaves for libtorch to define: the check extension
// authors run (nm -u) to see that a library built on the stable ABI calls
// libtorch through its C shim only.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace opscan_test {

// The undefined symbols of `library`, demangled ("nm -u -C").
inline std::vector<std::string> undefined_symbols(const std::string& library) {
  std::vector<std::string> symbols;
  const std::string command = "nm -u -C '" + library + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> nm(popen(command.c_str(), "r"), pclose);
  if (!nm)
    return symbols;
  char line[4096];
  while (fgets(line, sizeof line, nm.get())) {
    std::string symbol(line);
    symbol.erase(0, symbol.find_first_not_of(' '));
    if (symbol.starts_with("U "))
      symbol.erase(0, 2);
    while (!symbol.empty() && (symbol.back() == '\n' || symbol.back() == ' '))
      symbol.pop_back();
    symbols.push_back(symbol);
  }
  return symbols;
}

// Those of `symbols` that are C++ names of libtorch's (c10, at, torch, caffe2).
inline std::vector<std::string> libtorch_cpp_symbols(const std::vector<std::string>& symbols) {
  std::vector<std::string> found;
  for (const std::string& s : symbols) {
    for (const char* ns : {"c10::", "at::", "torch::", "caffe2::"}) {
      if (s.starts_with(ns) || s.find(" " + std::string(ns)) != std::string::npos ||
          s.find("(" + std::string(ns)) != std::string::npos) {
        found.push_back(s);
        break;
      }
    }
  }
  return found;
}

} // namespace opscan_test
