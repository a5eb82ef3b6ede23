// Prints every operator schema registered in this process's libtorch, one per
// line and sorted, as PyTorch prints them: the known-schemas file that
// opscan's tests check kernels against (built from the installed libtorch at
// test time; no list is kept in the repository).
#include <ATen/core/dispatch/Dispatcher.h>
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <torch/library.h>
#include <vector>

int main() {
  auto& dispatcher = c10::Dispatcher::singleton();
  std::vector<std::string> lines;
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    auto op = dispatcher.findSchema(name);
    if (!op || !op->hasSchema())
      continue;
    std::ostringstream line;
    line << op->schema();
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());
  if (lines.empty()) {
    std::cerr << "dump_schemas: libtorch registered no operators\n";
    return 1;
  }
  for (const std::string& line : lines)
    std::cout << line << '\n';
}
