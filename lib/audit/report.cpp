// `opscan report`: what libraries provide, and their coverage of a list of operators.
#include "audit/report.h"

#include "audit/render.h"
#include "schema/schema.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace opscan::audit {

namespace {

using Json = nlohmann::ordered_json;

// The first of `fields` the kernel sets: "kernel key v1/6;0".
std::string keys_of(const ir::Kernel& k, const ir::Fields& fields) {
  for (const ir::Field& field : fields) {
    if (std::string_view value = k.field(field.key); !value.empty())
      return field.noun + " " + std::string(value);
  }
  return "";
}

std::string source_of(const ir::Kernel& k) {
  return k.location.line > 0 ? fmt::format("{}:{}", k.location.file, k.location.line)
                             : k.location.file;
}

size_t operator_count(const Library& library) {
  std::set<std::string> names;
  for (const ir::Kernel& k : library.kernels)
    names.insert(k.op.str());
  return names.size();
}

std::string registration_of(const Library& library) {
  if (!library.info)
    return "scan output (no library record)";
  const ir::LibraryInfo& info = *library.info;
  std::string text =
      fmt::format("target {}, registration {}", info.target, ir::to_string(info.registration));
  if (!info.function.empty())
    text += ": " + info.function + "()";
  return text;
}

} // namespace

ListRead parse_operator_list(std::string_view text, const std::string& path) {
  ListRead result;
  OperatorList list;
  std::set<std::string> seen;
  uint32_t line = 0;
  size_t start = 0;
  while (start < text.size()) {
    ++line;
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view content = text.substr(start, end - start);
    const size_t line_start = start;
    start = end + 1;
    if (size_t comment = content.find('#'); comment != std::string_view::npos)
      content = content.substr(0, comment);
    const size_t first = content.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
      continue;
    const size_t last = content.find_last_not_of(" \t\r");
    const std::string_view entry = content.substr(first, last - first + 1);
    std::optional<schema::OperatorName> name;
    std::optional<schema::Error> error;
    if (entry.find('(') != std::string_view::npos) {
      auto parsed = schema::parse_schema(entry);
      if (parsed)
        name = parsed.value->name;
      else
        error = parsed.error;
    } else {
      auto parsed = schema::parse_operator_name(entry);
      if (parsed)
        name = *parsed.value;
      else
        error = parsed.error;
    }
    if (error) {
      const size_t at = first + std::min(error->offset, entry.size());
      result.diagnostics.push_back(diag::make_error(
          error->code,
          {path, line, static_cast<uint32_t>(at + 1), static_cast<uint32_t>(line_start + at)},
          "not an operator name (ns::name.overload) or schema: " + error->message));
      continue;
    }
    if (seen.insert(name->str()).second)
      list.names.push_back(name->str());
  }
  if (result.diagnostics.empty())
    result.list = std::move(list);
  return result;
}

double Coverage::percent() const {
  return total() == 0 ? 100.0
                      : 100.0 * static_cast<double>(covered.size()) / static_cast<double>(total());
}

Coverage coverage_of(const std::vector<Library>& libraries, const OperatorList& list,
                     std::string list_file) {
  std::map<std::string, std::vector<std::string>> serving;
  for (const Library& library : libraries) {
    for (const ir::Kernel& k : library.kernels) {
      std::vector<std::string>& names = serving[k.op.str()];
      if (names.empty() || names.back() != display_name(library.name))
        names.push_back(display_name(library.name));
    }
  }
  Coverage coverage;
  coverage.list = std::move(list_file);
  for (const std::string& op : list.names) {
    if (auto it = serving.find(op); it != serving.end())
      coverage.covered.emplace_back(op, it->second);
    else
      coverage.missing.push_back(op);
  }
  return coverage;
}

std::string render_report_markdown(const std::vector<Library>& libraries,
                                   const std::optional<Coverage>& coverage,
                                   const ir::Fields& fields) {
  std::string out = "# opscan report\n";
  for (const Library& library : libraries) {
    out += fmt::format("\n## Library {}\n\n", markdown_code(display_name(library.name)));
    out += fmt::format("{} operator{}, {} kernel{}; {}; from {}.\n\n", operator_count(library),
                       operator_count(library) == 1 ? "" : "s", library.kernels.size(),
                       library.kernels.size() == 1 ? "" : "s",
                       markdown_cell(registration_of(library)), markdown_code(library.path));
    out += "| Operator | Schema | C++ function | Keys | Source |\n|---|---|---|---|---|\n";
    const ir::Kernel* previous = nullptr;
    for (const ir::Kernel& k : library.kernels) {
      const bool first = previous == nullptr || previous->op != k.op;
      previous = &k;
      out +=
          fmt::format("| {} | {} | {} | {} | {} |\n", first ? markdown_code(k.op.str()) : "",
                      first ? markdown_code(k.schema().str()) : "", markdown_code(k.cpp_function),
                      markdown_cell(keys_of(k, fields)), markdown_cell(source_of(k)));
    }
  }
  if (!coverage)
    return out;
  out += fmt::format("\n## Coverage of {}\n\n", markdown_code(coverage->list));
  out += fmt::format("{} of {} operator{} covered ({:.1f}%), {} missing.\n",
                     coverage->covered.size(), coverage->total(), coverage->total() == 1 ? "" : "s",
                     coverage->percent(), coverage->missing.size());
  if (!coverage->missing.empty()) {
    out += "\n### Missing\n\n";
    for (const std::string& op : coverage->missing)
      out += "- " + markdown_code(op) + "\n";
  }
  if (!coverage->covered.empty()) {
    out += "\n### Covered\n\n| Operator | Libraries |\n|---|---|\n";
    for (const auto& [op, served_by] : coverage->covered) {
      std::string names;
      for (const std::string& name : served_by)
        names += (names.empty() ? "" : ", ") + markdown_code(name);
      out += fmt::format("| {} | {} |\n", markdown_code(op), names);
    }
  }
  return out;
}

std::string render_report_json(const std::vector<Library>& libraries,
                               const std::optional<Coverage>& coverage, const ir::Fields& fields) {
  Json libs = Json::array();
  for (const Library& library : libraries) {
    Json operators = Json::array();
    for (const ir::Kernel& k : library.kernels) {
      if (operators.empty() || operators.back()["operator"] != k.op.str())
        operators.push_back(Json{
            {"operator", k.op.str()}, {"schema", k.schema().str()}, {"kernels", Json::array()}});
      Json kernel{{"cpp_function", k.cpp_function}};
      for (const ir::Field& field : fields)
        kernel[field.key] = k.field(field.key);
      kernel["file"] = k.location.file;
      kernel["line"] = k.location.line;
      operators.back()["kernels"].push_back(std::move(kernel));
    }
    Json lib{{"name", library.name}, {"ir", library.path}};
    lib["target"] = library.info ? Json(library.info->target) : Json(nullptr);
    lib["registration"] =
        library.info ? Json(ir::to_string(library.info->registration)) : Json(nullptr);
    lib["registration_function"] = library.info ? Json(library.info->function) : Json(nullptr);
    lib["operators"] = std::move(operators);
    libs.push_back(std::move(lib));
  }
  Json doc{{"version", 1}, {"libraries", std::move(libs)}, {"coverage", nullptr}};
  if (coverage) {
    Json covered = Json::array();
    for (const auto& [op, served_by] : coverage->covered)
      covered.push_back(Json{{"operator", op}, {"libraries", served_by}});
    doc["coverage"] = Json{{"list", coverage->list},
                           {"total", coverage->total()},
                           {"covered", coverage->covered.size()},
                           {"missing", coverage->missing.size()},
                           {"percent", coverage->percent()},
                           {"covered_operators", std::move(covered)},
                           {"missing_operators", coverage->missing}};
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace opscan::audit
