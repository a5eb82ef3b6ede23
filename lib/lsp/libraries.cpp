// A document's library, its kernels' claims elsewhere, unusable library IRs.
#include "lsp/libraries.h"

#include "emit/registry.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace opscan::lsp {
namespace {

// A kernel that other kernels of a library claim too gets a diagnostic for
// each of them up to this many (a file of kernels all registering one
// operator would otherwise get the square of its kernels); the last one
// says there are more.
constexpr size_t kMaxOverlapsShown = 8;

using Claim = driver::LibraryCheck::Claim;

// The kernels of library `index` that make one of `k`'s claims in another
// file than the document, with the claim's description (the last found);
// `more` when there are more than are shown. Files in order, each one's
// kernels in order.
std::map<size_t, std::string> others_claiming(const ir::Kernel& k, size_t index,
                                              const BuiltLibraries& built, const IsDocument& here,
                                              bool& more) {
  std::map<size_t, std::string> others; // kernel -> the claim's description
  const ir::Module& module = built.files[index].module;
  const std::vector<diag::Location>& locations = built.locations[index];
  const emit::Target* target = emit::builtin_targets().find(module.library->target);
  if (!target)
    return others;
  for (const emit::Target::Claim& c : target->claims(k)) {
    auto found = built.check.claims.find({std::string(target->runtime()), c.key});
    if (found == built.check.claims.end())
      continue;
    std::vector<const Claim*> claimants;
    for (const Claim& claim : found->second) {
      if (claim.library == index)
        claimants.push_back(&claim);
    }
    std::stable_sort(claimants.begin(), claimants.end(), [&](const Claim* a, const Claim* b) {
      return locations[a->kernel].file < locations[b->kernel].file;
    });
    const std::string* full = nullptr; // the file where one more was found
    for (const Claim* other : claimants) {
      const std::string& file = locations[other->kernel].file;
      if ((full && *full == file) || here(file))
        continue; // the rest of the file; this file's own kernels, as last built
      if (module.kernels[other->kernel].usr == k.usr)
        continue;
      if (auto it = others.find(other->kernel); it != others.end()) {
        it->second = other->description;
      } else if (others.size() < kMaxOverlapsShown) {
        others.emplace(other->kernel, other->description);
      } else {
        more = true;
        full = &file;
      }
    }
  }
  return others;
}

} // namespace

LibraryContext library_of(const BuiltLibraries& built, const std::string& database,
                          const IsDocument& here) {
  LibraryContext context;
  for (const driver::IrFile& l : built.files) {
    for (const ir::SourceFile& source : l.module.sources) {
      std::string file = source.path;
      if (!file.empty() && std::filesystem::path(file).is_relative())
        file = (std::filesystem::path(database).parent_path() / file).lexically_normal().string();
      if (here(file))
        context = {l.module.library->name, l.module.library->function, l.module.library->target};
    }
  }
  return context;
}

diag::Diagnostics claimed_elsewhere(const std::vector<const ir::Kernel*>& kernels,
                                    const BuiltLibraries& built, const std::string& library,
                                    const IsDocument& here) {
  diag::Diagnostics diags;
  for (const ir::Kernel* k : kernels) {
    for (size_t index = 0; index < built.files.size(); ++index) {
      bool more = false;
      const std::map<size_t, std::string> others = others_claiming(*k, index, built, here, more);
      const ir::Module& module = built.files[index].module;
      const std::string& name = module.library->name;
      const bool same = name == library;
      size_t shown = 0;
      for (const auto& [other, shared] : others) {
        const diag::Location& at = built.locations[index][other];
        diag::Diagnostic d;
        d.severity = same ? diag::Severity::error : diag::Severity::warning;
        d.code = same ? "opscan-duplicate-kernel" : "opscan-library-overlap";
        d.message = same ? fmt::format("library '{}' registers {} here and in {}:{}", name, shared,
                                       at.file, at.line)
                         : fmt::format("library '{}' registers {} too ({}:{}): a program cannot "
                                       "link both libraries",
                                       name, shared, at.file, at.line);
        if (++shown == others.size() && more)
          d.message += fmt::format(" (and more kernels of library '{}')", name);
        d.location = k->location;
        d.notes = {
            {fmt::format("{} in library '{}'",
                         ir::describe(module.kernels[other], emit::builtin_targets().fields()),
                         name),
             at},
            {ir::describe(*k, emit::builtin_targets().fields()) + " here", k->location}};
        diags.push_back(std::move(d));
      }
    }
  }
  return diags;
}

diag::Diagnostics refused_libraries(const BuiltLibraries& built) {
  // The problems of each IR file, in order.
  std::vector<std::pair<std::string, diag::Diagnostics>> by_file;
  for (const diag::Diagnostic& problem : built.problems) {
    if (by_file.empty() || by_file.back().first != problem.location.file)
      by_file.push_back({problem.location.file, {}});
    by_file.back().second.push_back(problem);
  }
  diag::Diagnostics diags;
  for (const auto& [file, problems] : by_file) {
    const diag::Diagnostic& first = problems.front();
    const std::string place =
        first.location.valid()
            ? fmt::format("{}:{}:{}", file, first.location.line, first.location.column)
            : file;
    diag::Diagnostic d;
    d.severity = diag::Severity::warning;
    d.code = first.code;
    d.message = fmt::format("the build's library IR {} cannot be used ({}), so this file's kernels "
                            "are not checked against that library: {}",
                            place, first.code, first.message);
    if (problems.size() > 1)
      d.message += fmt::format(" (and {} more problems in it)", problems.size() - 1);
    for (const diag::Diagnostic& problem : problems) {
      if (problem.location.valid())
        d.notes.push_back({problem.message, problem.location});
    }
    diags.push_back(std::move(d));
  }
  return diags;
}

} // namespace opscan::lsp
