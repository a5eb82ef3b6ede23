// The table and diagnostics of `opscan check --model` (model.h).
#include "driver/commands/model.h"

#include "driver/model.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <string_view>

namespace opscan::driver {
namespace {

// The rows as an aligned table: operator, kernel key, library, kernel.
std::string render(const std::vector<ModelRow>& rows) {
  std::vector<std::array<std::string, 4>> cells = {{"operator", "kernel key", "library", "kernel"}};
  for (const ModelRow& row : rows) {
    std::string kernel = "MISSING";
    if (row.library == kPrimOps) {
      kernel = "the runtime's (kernels/prim_ops)";
    } else if (row.kernel != nullptr) {
      kernel = fmt::format("{}:{} {}{}", row.kernel->location.file, row.kernel->location.line,
                           row.kernel->cpp_function, row.fallback ? " (fallback)" : "");
    }
    cells.push_back({row.op, row.key.empty() ? "(no tensors)" : row.key,
                     row.library.empty() ? "-" : row.library, kernel});
  }
  std::array<size_t, 3> width{};
  for (const auto& line : cells)
    for (size_t i = 0; i < width.size(); ++i)
      width[i] = std::max(width[i], line[i].size());
  std::string out;
  for (const auto& line : cells) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", line[0], width[0], line[1], width[1],
                       line[2], width[2], line[3]);
  }
  return out;
}

std::string counted(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "4 operators, 5 kernel keys needed; 1 library checked: 1 operator not
// implemented, 1 kernel key not served (1 for its dim order)": operators no
// library implements and kernel keys of the others no kernel serves, each
// counted as what it is.
std::string summary(const std::string& model, const ModelCheck& check) {
  // A key two libraries serve has two rows: counted once.
  std::set<std::pair<std::string, std::string>> keys, unserved, dim_order;
  std::set<std::string> operators;
  for (const ModelRow& row : check.rows) {
    operators.insert(row.op);
    keys.emplace(row.op, row.key);
    if (row.kernel != nullptr || row.library == kPrimOps ||
        check.missing_operators.contains(row.op))
      continue;
    unserved.emplace(row.op, row.key);
    if (row.dim_order)
      dim_order.emplace(row.op, row.key);
  }
  const std::string needed =
      fmt::format("{}, {} needed", counted(operators.size(), "operator", "operators"),
                  counted(keys.size(), "kernel key", "kernel keys"));
  const std::string libraries = counted(check.libraries, "library", "libraries");
  if (check.missing_operators.empty() && unserved.empty())
    return fmt::format("opscan: {}: {}; all served by {}\n", model, needed, libraries);
  std::vector<std::string> parts;
  if (!check.missing_operators.empty()) {
    parts.push_back(counted(check.missing_operators.size(), "operator", "operators") +
                    " not implemented");
  }
  if (!unserved.empty()) {
    std::string part = counted(unserved.size(), "kernel key", "kernel keys") + " not served";
    if (!dim_order.empty())
      part += fmt::format(" ({} for {} dim order)", dim_order.size(),
                          dim_order.size() == 1 ? "its" : "their");
    parts.push_back(part);
  }
  return fmt::format("opscan: {}: {}; {} checked: {}\n", model, needed, libraries,
                     fmt::join(parts, ", "));
}

} // namespace

ModelOutcome check_model_against(const std::string& model, const std::vector<std::string>& irs) {
  ModelOutcome out;
  ReadIrs read = read_irs(irs);
  out.diagnostics = std::move(read.diagnostics);
  out.status = read.status;
  ReadModel program = read_model(model);
  out.diagnostics.insert(out.diagnostics.end(), program.diagnostics.begin(),
                         program.diagnostics.end());
  out.status = worst(out.status, program.status);
  if (out.status != Status::ok || !program.program)
    return out;
  ModelCheck check = check_model(*program.program, model, read.files);
  out.diagnostics.insert(out.diagnostics.end(), check.diagnostics.begin(), check.diagnostics.end());
  out.status = status_of(out.diagnostics);
  out.table = render(check.rows);
  out.table += summary(model, check);
  return out;
}

} // namespace opscan::driver
