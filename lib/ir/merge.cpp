// Merging scan fragments into one module, dropping a kernel declared in several files.
#include "ir/fields.h"
#include "ir/ir.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace opscan::ir {
namespace {

bool same_except_location(Kernel a, const Kernel& b) {
  a.location = b.location;
  return a == b;
}

// One library's sources are scanned against one version of the runtime's
// headers: generated code spells each name one way. `seen_in` is the first
// file whose fragment listed each name.
void merge_aliases(const Module& fragment, Module& out, std::map<std::string, std::string>& seen_in,
                   diag::Diagnostics& diagnostics) {
  const std::string file = fragment.sources.empty() ? "" : fragment.sources.front().path;
  for (const auto& [name, denoted] : fragment.aliases) {
    auto [it, fresh] = out.aliases.emplace(name, denoted);
    if (fresh)
      seen_in.emplace(name, file);
    if (fresh || it->second == denoted)
      continue;
    const std::string& other = seen_in[name];
    diagnostics.push_back(diag::make_error(
        "opscan-ir-headers-differ", {file, 0, 0, 0},
        fmt::format("{} and {} were scanned against different headers: {} is {} in one and {} in "
                    "the other; scan every source of a library with the same headers",
                    other, file, name, it->second, denoted)));
  }
}

} // namespace

MergeResult merge(std::vector<Module> fragments, const Fields& fields) {
  MergeResult result;
  Module& out = result.module;
  std::map<std::string, size_t> by_usr;
  std::map<std::string, std::string> alias_seen_in;
  for (Module& fragment : fragments) {
    if (out.generator.empty())
      out.generator = fragment.generator;
    if (out.libclang_version.empty())
      out.libclang_version = fragment.libclang_version;
    merge_aliases(fragment, out, alias_seen_in, result.diagnostics);
    for (SourceFile& s : fragment.sources)
      out.sources.push_back(std::move(s));
    for (Kernel& k : fragment.kernels) {
      auto [it, inserted] = by_usr.emplace(k.usr, out.kernels.size());
      if (inserted) {
        out.kernels.push_back(std::move(k));
        continue;
      }
      Kernel& seen = out.kernels[it->second];
      // Whatever the order of fragments: keep the kernel at the smaller
      // location, and report a conflict at the larger one.
      bool k_first = std::tie(k.location.file, k.location.offset) <
                     std::tie(seen.location.file, seen.location.offset);
      if (!same_except_location(k, seen)) {
        const Kernel& here = k_first ? seen : k;
        const Kernel& there = k_first ? k : seen;
        std::string message =
            describe(here, fields) != describe(there, fields)
                ? "kernel '" + here.cpp_function + "' is annotated as " + describe(here, fields) +
                      " here and as " + describe(there, fields) + " elsewhere"
                : "kernel '" + here.cpp_function + "' for " + describe(here, fields) +
                      " differs between translation units (scanned with different flags?)";
        auto d = diag::make_error("opscan-kernel-conflict", here.location, std::move(message));
        d.notes.push_back({"other annotation is here", there.location});
        result.diagnostics.push_back(std::move(d));
        if (k_first)
          seen = std::move(k);
      } else if (k_first) {
        seen.location = k.location; // keep one location, whatever the order of fragments
      }
    }
  }
  canonicalize(out);
  // Sources seen in several fragments with different content mean the files
  // changed during the scan or fragments are stale.
  for (size_t i = 1; i < out.sources.size(); ++i) {
    // One report per file, however many versions of it the fragments saw.
    bool first_disagreement = i < 2 || out.sources[i - 2].path != out.sources[i].path;
    if (out.sources[i].path == out.sources[i - 1].path && first_disagreement) {
      result.diagnostics.push_back(
          diag::make_error("opscan-ir-stale", {out.sources[i].path, 0, 0, 0},
                           "fragments disagree on the content of this file; scan it again"));
    }
  }
  // Reported: the merged module keeps one entry per file, as a valid IR does.
  out.sources.erase(
      std::unique(out.sources.begin(), out.sources.end(),
                  [](const SourceFile& a, const SourceFile& b) { return a.path == b.path; }),
      out.sources.end());
  return result;
}

} // namespace opscan::ir
