// Files sharing leading #include lines, parsed as re-parses of one unit with that preamble.
#include "scan/preamble_unit.h"

#include "scan/extract.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace opscan::scan {
namespace {

constexpr unsigned kUnitParseOptions =
    CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing | kExtractParseOptions |
    CXTranslationUnit_PrecompiledPreamble | CXTranslationUnit_CreatePreambleOnFirstParse;

// `name` as a string literal's characters; nullopt when a #line directive
// cannot spell it (a line break ends the directive).
std::optional<std::string> escaped(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\n' || c == '\r')
      return std::nullopt;
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

bool needs_own_unit(const std::string& text) {
  return text.find("__BASE_FILE__") != std::string::npos ||
         text.find("__TIMESTAMP__") != std::string::npos;
}

PreambleUnit::PreambleUnit(PlannedPch prefix, std::string main_file)
    : prefix_(std::move(prefix)), path_(std::move(main_file)) {
  for (const HeaderName& name : prefix_.includes)
    shared_ += name.quoted ? "#include \"" + name.name + "\"\n" : "#include <" + name.name + ">\n";
}

CXTranslationUnit PreambleUnit::parse(CXIndex index, const std::string& file,
                                      const std::string& text, UnitPlacement& placement) {
  const std::optional<std::string> name = escaped(file);
  if (unfit_ || !name || needs_own_unit(text) ||
      std::filesystem::path(file).extension() != std::filesystem::path(path_).extension())
    return nullptr;
  std::string unit = shared_ + ";\n#line 1 \"" + *name + "\"\n";
  placement = {path_, file, static_cast<uint32_t>(prefix_.includes.size() + 2),
               static_cast<uint32_t>(unit.size()), static_cast<uint32_t>(prefix_.includes.size())};
  unit += text;
  std::vector<CXUnsavedFile> unsaved = {
      {path_.c_str(), unit.data(), static_cast<unsigned long>(unit.size())}};
  if (tu_ && !reparse(tu_.get(), file, unsaved)) {
    tu_.reset();
    unfit_ = true; // libclang leaves a unit it could not re-parse unusable
    return nullptr;
  }
  if (!tu_) {
    diag::Diagnostics diags;
    tu_ = scan::parse(index, path_, prefix_.args, kUnitParseOptions, diags, unsaved);
    if (!tu_ || !diags.empty()) {
      tu_.reset();
      unfit_ = true;
      return nullptr;
    }
  }
  if (!checked_) {
    checked_ = true;
    unfit_ = !check_preamble();
  }
  // libclang names the main file of a unit given unsaved text otherwise
  // (absolute); a plain parse names it as given.
  placement.unit = main_name_;
  return unfit_ ? nullptr : tu_.get();
}

// Whether the headers the preamble holds may stand for the file's own
// #include lines of them: each shared one guarded (or a system header, made
// to be included again), none mentioning an annotation.
bool PreambleUnit::check_preamble() {
  CXFile main = clang_getFile(tu_.get(), path_.c_str());
  if (!main)
    return false;
  main_name_ = take(clang_getFileName(main));
  struct Check {
    CXTranslationUnit tu;
    CXFile main;
    size_t shared_bytes;
    bool fit = true;
  } check{tu_.get(), main, shared_.size()};
  clang_getInclusions(
      tu_.get(),
      [](CXFile file, CXSourceLocation* stack, unsigned depth, CXClientData data) {
        auto& c = *static_cast<Check*>(data);
        if (depth == 0 || !c.fit)
          return;
        // The #include line of the unit's main file this header came from.
        CXFile bottom = nullptr;
        unsigned offset = 0;
        clang_getExpansionLocation(stack[depth - 1], &bottom, nullptr, nullptr, &offset);
        if (!clang_File_isEqual(bottom, c.main) || offset >= c.shared_bytes)
          return; // the file's own
        if (depth == 1 && !clang_isFileMultipleIncludeGuarded(c.tu, file) &&
            !clang_Location_isInSystemHeader(clang_getLocation(c.tu, file, 1, 1)))
          c.fit = false;
        size_t size = 0;
        const char* bytes = clang_getFileContents(c.tu, file, &size);
        const std::string_view text(bytes ? bytes : "", bytes ? size : 0);
        const std::string name = take(clang_getFileName(file));
        if (!bytes ||
            ((text.find("OPSCAN_KERNEL") != text.npos || text.find("opscan:kernel") != text.npos) &&
             name != "opscan/annotations.h" && !name.ends_with("/opscan/annotations.h")))
          c.fit = false;
      },
      &check);
  return check.fit;
}

} // namespace opscan::scan
