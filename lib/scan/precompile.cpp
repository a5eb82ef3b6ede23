// Precompiled headers for scans: one header (`opscan pch`), and the
// automatic ones of a set of sources stored ahead of one scan per source
// (`opscan pch --shared`).
#include "scan/scan.h"

#include "scan/auto_pch.h"
#include "scan/batch.h"
#include "scan/cache.h"
#include "scan/clang.h"
#include "scan/dependencies.h"
#include "scan/extract.h"
#include "scan/libclang_loader.h"
#include "scan/flags.h"
#include "support/files.h"
#include "support/temporaries.h"

#include <algorithm>
#include <filesystem>

namespace opscan::scan {

PrecompileResult precompile(const PrecompileOptions& options) {
  PrecompileResult out;
  if (auto unavailable = libclang_unavailable()) {
    out.diagnostics.push_back(std::move(*unavailable));
    return out;
  }
  std::vector<std::string> args = options.args;
  add_default_language(args);
  args = parse_arguments(options.header, std::move(args), out.diagnostics);
  args.insert(args.end(), {"-x", "c++-header"}); // the last -x wins
  Index index(clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0));
  // With the preprocessing record, which scans loading the header read.
  if (TranslationUnit tu =
          parse(index.get(), options.header, args,
                CXTranslationUnit_ForSerialization | kExtractParseOptions, out.diagnostics)) {
    diag::Diagnostics errors = clang_errors(tu.get());
    out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
    if (errors.empty()) {
      // libclang saves to a path only: a private temporary, read back.
      std::string why;
      std::optional<std::string> pch;
      if (auto dir = support::PrivateDirectory::make("pch", &why)) {
        const std::filesystem::path temporary = dir->path() / "header.pch";
        if (clang_saveTranslationUnit(tu.get(), temporary.c_str(),
                                      clang_defaultSaveOptions(tu.get())) == CXSaveError_None)
          pch = support::read_file(temporary, &why, size_t{1} << 30);
        else if (std::string full = support::unwritable_reason(dir->path(), kLargePchBytes);
                 !full.empty())
          why = "libclang could not write it into " + dir->path().parent_path().string() +
                " (TMPDIR): " + full;
      }
      if (pch) {
        out.pch = std::move(*pch);
        out.inputs = real_paths(inputs_of(inclusions_of(tu.get())));
      } else {
        out.diagnostics.push_back(
            !why.empty() ? diag::make_error("opscan-io", {options.header, 0, 0, 0},
                                            "cannot save the precompiled header: " + why)
                         : diag::make_error("opscan-pch-failed", {options.header, 0, 0, 0},
                                            "libclang could not save the precompiled header"));
      }
    }
  }
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

SharedPchResult precompile_shared(const Options& options) {
  SharedPchResult out;
  if (!options.cache_dir)
    return out;
  std::unique_ptr<CompilationDatabase> db;
  if (!ready_to_parse(options, db, out.diagnostics))
    return out;
  FragmentCache cache(*options.cache_dir, options.fields);
  PchStore store(std::filesystem::path(*options.cache_dir) / "pch", cache);
  std::vector<PchCandidate> candidates;
  for (CompileCommand& command : commands_for(options, db.get(), out.diagnostics))
    candidates.push_back({command.file, std::move(command.args)});
  const PchPlan plan = plan_pchs(candidates);
  std::vector<std::optional<AutoPch>> made(plan.pchs.size());
  in_parallel(jobs_for(options, plan.pchs.size()), plan.pchs.size(),
              [&](Indexes& indexes, size_t i) {
                made[i] = store.get(index_of(indexes.plain, false), plan.pchs[i]);
              });
  if (std::string why = store.failure(); !why.empty() || !(why = cache.failure()).empty())
    out.diagnostics.push_back(diag::make_error("opscan-io", {*options.cache_dir, 0, 0, 0},
                                               "cannot store the precompiled headers in " +
                                                   *options.cache_dir + ": " + why));
  // What the list depends on: the sources, the headers read to plan it,
  // and those of each header made.
  std::vector<std::string> inputs = plan.read;
  for (const PchCandidate& candidate : candidates)
    inputs.push_back(candidate.file);
  if (db)
    inputs.insert(inputs.end(), db->response_files().begin(), db->response_files().end());
  for (size_t i = 0; i < made.size(); ++i) {
    if (!made[i])
      continue;
    SharedPch pch{made[i]->path, {}, 0};
    for (const HeaderName& name : plan.pchs[i].includes)
      pch.includes.push_back(name.quoted ? '"' + name.name + '"' : '<' + name.name + '>');
    pch.files = std::count(plan.pch_of.begin(), plan.pch_of.end(), static_cast<int>(i));
    out.pchs.push_back(std::move(pch));
    for (const CachedInput& input : made[i]->dependencies.inputs)
      inputs.push_back(input.path);
  }
  std::sort(out.pchs.begin(), out.pchs.end(),
            [](const SharedPch& a, const SharedPch& b) { return a.path < b.path; });
  out.inputs = real_paths(inputs);
  for (auto& d : out.diagnostics)
    d.location.file = display(d.location);
  diag::sort(out.diagnostics);
  return out;
}

} // namespace opscan::scan
