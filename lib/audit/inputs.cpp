// Reading the IR files and library directories `diff` and `report` take, grouped by library.
#include "audit/inputs.h"

#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

namespace opscan::audit {

namespace fs = std::filesystem;

Expanded ir_files_of(const std::string& path) {
  Expanded out;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    out.diagnostics.push_back(diag::make_error("opscan-io", {path, 0, 0, 0},
                                               "cannot read " + support::quoted(path, 200) + ": " +
                                                   (ec && ec != std::errc::no_such_file_or_directory
                                                        ? ec.message()
                                                        : "No such file or directory")));
    return out;
  }
  if (!fs::is_directory(status)) {
    out.files.push_back(path); // read (and refused if not a regular file) by read_irs
    return out;
  }
  const fs::path dir(path);
  auto is_ir = [](const fs::path& file) {
    std::error_code ignored;
    return fs::is_regular_file(file, ignored);
  };
  if (is_ir(dir / "ir.json"))
    out.files.push_back((dir / "ir.json").string());
  std::vector<std::string> found;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code ignored;
    if (it->is_directory(ignored) && fs::exists(it->path() / "ir.json", ignored))
      found.push_back((it->path() / "ir.json").string());
  }
  if (ec) {
    out.diagnostics.push_back(diag::make_error(
        "opscan-io", {path, 0, 0, 0},
        "cannot list the directory " + support::quoted(path, 200) + ": " + ec.message()));
    out.files.clear();
    return out;
  }
  std::sort(found.begin(), found.end());
  out.files.insert(out.files.end(), found.begin(), found.end());
  if (out.files.empty()) {
    out.diagnostics.push_back(diag::make_error(
        "opscan-audit-no-ir", {path, 0, 0, 0},
        "the directory " + support::quoted(path, 200) +
            " holds no IR file (neither ir.json nor */ir.json, as opscan generate -o DIR "
            "writes them)"));
  }
  return out;
}

std::string display_name(const std::string& library) {
  return library.empty() ? "(scan output)" : library;
}

Libraries group_libraries(const std::vector<ir::File>& inputs, const ir::Fields& fields) {
  Libraries out;
  std::map<std::string, Library> by_name;
  std::vector<ir::Module> fragments;
  std::string first_fragment;
  for (const ir::File& input : inputs) {
    if (!input.module.library) {
      if (first_fragment.empty())
        first_fragment = input.path;
      fragments.push_back(input.module);
      continue;
    }
    const std::string& name = input.module.library->name;
    auto [it, added] = by_name.try_emplace(name);
    if (!added) {
      diag::Diagnostic d = diag::make_error(
          "opscan-duplicate-library", input.positions.at("library.name"),
          "library '" + name + "' is given twice on one side (also by " + it->second.path + ")");
      out.diagnostics.push_back(std::move(d));
      continue;
    }
    it->second = {name, input.module.library, input.module.kernels, input.path,
                  input.positions.at("library")};
  }
  if (!fragments.empty()) {
    ir::MergeResult merged = ir::merge(std::move(fragments), fields);
    out.diagnostics.insert(out.diagnostics.end(), merged.diagnostics.begin(),
                           merged.diagnostics.end());
    ir::canonicalize(merged.module);
    by_name[""] = {"",
                   std::nullopt,
                   std::move(merged.module.kernels),
                   first_fragment,
                   {first_fragment, 0, 0, 0}};
  }
  for (auto& [name, library] : by_name) {
    ir::Module sorted;
    sorted.kernels = std::move(library.kernels);
    ir::canonicalize(sorted);
    library.kernels = std::move(sorted.kernels);
    out.libraries.push_back(std::move(library));
  }
  return out;
}

} // namespace opscan::audit
