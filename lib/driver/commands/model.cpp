// The table and diagnostics of `opscan check --model` (model.h).
#include "driver/commands/model.h"

#include "driver/model.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <set>

namespace opscan::driver {
namespace {

// The rows as an aligned table: operator, kernel key, library, kernel.
std::string render(const std::vector<ModelRow>& rows) {
  std::vector<std::array<std::string, 4>> cells = {{"operator", "kernel key", "library", "kernel"}};
  for (const ModelRow& row : rows) {
    std::string kernel = "MISSING";
    if (row.kernel != nullptr) {
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
  // A key two libraries serve has two rows: counted once.
  std::set<std::string> operators;
  std::set<std::pair<std::string, std::string>> keys;
  size_t missing = 0;
  for (const ModelRow& row : check.rows) {
    operators.insert(row.op);
    keys.emplace(row.op, row.key);
    missing += row.kernel == nullptr ? 1 : 0;
  }
  out.table = render(check.rows);
  out.table += fmt::format(
      "opscan: {}: {} operator{}, {} kernel key{} needed; {} by {} librar{}\n", model,
      operators.size(), operators.size() == 1 ? "" : "s", keys.size(), keys.size() == 1 ? "" : "s",
      missing == 0 ? "all served" : fmt::format("{} not served", missing), check.libraries,
      check.libraries == 1 ? "y" : "ies");
  return out;
}

} // namespace opscan::driver
