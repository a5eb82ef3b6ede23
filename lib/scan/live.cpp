// A translation unit an editor keeps open, re-parsed from memory after each edit.
#include "scan/live.h"

#include "ir/validate.h"
#include "scan/cache.h"
#include "scan/dependencies.h"
#include "scan/clang.h"
#include "scan/extract.h"
#include "scan/flags.h"

#include <algorithm>

namespace opscan::scan {

struct LiveUnit::State {
  explicit State(bool main_file_only)
      : index(clang_createIndex(/*excludeDeclarationsFromPCH=*/main_file_only ? 1 : 0,
                                /*displayDiagnostics=*/0)) {}
  Index index;
  TranslationUnit tu;
};

LiveUnit::LiveUnit(std::string main_file, std::vector<std::string> args, bool main_file_only,
                   const std::string& directory)
    : main_file_(std::move(main_file)), main_file_only_(main_file_only),
      state_(std::make_unique<State>(main_file_only)) {
  diag::Diagnostics dropped; // an editor has no build log to note them in
  args_ = parse_arguments(main_file_, std::move(args), dropped, 0, directory);
}

LiveUnit::~LiveUnit() = default;

LiveAnalysis LiveUnit::analyze(const std::vector<Buffer>& buffers,
                               const kernel::KnownSchemas* known, const ir::Fields& fields,
                               const std::string& suggest_in) {
  LiveAnalysis out;
  std::vector<CXUnsavedFile> unsaved;
  for (const Buffer& b : buffers)
    unsaved.push_back({b.path.c_str(), b.text.data(), static_cast<unsigned long>(b.text.size())});
  // A file the arguments name, made a FIFO since the last parse, would
  // block the re-parse: parse() refuses it.
  if (state_->tu && unreadable_named_file(args_))
    state_->tu.reset();
  if (state_->tu) {
    // A failed re-parse leaves the unit unusable: parse it anew.
    if (clang_reparseTranslationUnit(state_->tu.get(), static_cast<unsigned>(unsaved.size()),
                                     unsaved.data(),
                                     clang_defaultReparseOptions(state_->tu.get())) == 0)
      out.reparsed = true;
    else
      state_->tu.reset();
  }
  if (!state_->tu) {
    state_->tu = parse(state_->index.get(), main_file_, args_,
                       CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing |
                           kExtractParseOptions | CXTranslationUnit_PrecompiledPreamble |
                           CXTranslationUnit_CreatePreambleOnFirstParse,
                       out.diagnostics, unsaved);
    if (!state_->tu)
      return out;
  }
  CXTranslationUnit tu = state_->tu.get();
  Extracted extracted = extract_kernels(tu, main_file_, known, fields);
  if (main_file_only_) {
    // A first parse walks the headers too (their declarations are in no
    // preamble yet): what it finds there is left out, as later walks skip it.
    std::erase_if(extracted.fragment.kernels,
                  [&](const ir::Kernel& k) { return k.location.file != main_file_; });
    std::erase_if(extracted.diagnostics, [&](const diag::Diagnostic& d) {
      return d.location.file != main_file_ && d.code != "opscan-clang-error";
    });
  }
  out.diagnostics.insert(out.diagnostics.end(), extracted.diagnostics.begin(),
                         extracted.diagnostics.end());
  // The same checks a scan makes of its merged module.
  ir::MergeResult merged = ir::merge({std::move(extracted.fragment)}, fields);
  out.fragment = std::move(merged.module);
  out.diagnostics.insert(out.diagnostics.end(), merged.diagnostics.begin(),
                         merged.diagnostics.end());
  diag::Diagnostics invalid = ir::validate(out.fragment, ir::Locator());
  out.diagnostics.insert(out.diagnostics.end(), invalid.begin(), invalid.end());
  diag::sort(out.diagnostics);

  out.suggestions = suggest_kernels(tu, suggest_in);
  out.files.push_back(main_file_);
  for (Inclusion& inclusion : inclusions_of(tu, /*preamble=*/true)) {
    if (inclusion.depth > 0)
      out.files.push_back(std::move(inclusion.path));
  }
  return out;
}

} // namespace opscan::scan
