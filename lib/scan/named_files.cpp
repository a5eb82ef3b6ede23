// The files compiler arguments name for the compiler to read, checked
// before libclang reads them (unreadable_named_file, scan/flags.h).
#include "scan/flags.h"
#include "scan/flags_internal.h"
#include "scan/includes.h"
#include "support/files.h"

#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

namespace opscan::scan {
namespace fs = std::filesystem;

namespace {

// The options naming a file the compiler reads, as the driver's table (and
// the frontend's) spells them.
struct NamedFile {
  std::string_view option;
  enum Form {
    separate,           // "-include-pch x.pch"
    joined_or_separate, // "-include x.h" or "-includex.h"
    joined,             // "-fprofile-list=x" (the spelling ends with '=')
  } form;
  bool text; // read whole as text: at most kMaxInputBytes
};
constexpr NamedFile kNamedFiles[] = {
    {"-include-pch", NamedFile::separate, false}, // before -include, which it starts with
    {"-include", NamedFile::joined_or_separate, true},
    {"--include", NamedFile::separate, true},
    {"--include=", NamedFile::joined, true},
    {"-imacros", NamedFile::joined_or_separate, true},
    {"--imacros", NamedFile::separate, true},
    {"--imacros=", NamedFile::joined, true},
    {"-chain-include", NamedFile::separate, true},
    {"-ivfsoverlay", NamedFile::joined_or_separate, true},
    {"-fmodule-map-file=", NamedFile::joined, true},
    {"-fmodule-file=", NamedFile::joined, false},
    {"-fprofile-list=", NamedFile::joined, true},
    {"-fsanitize-blacklist=", NamedFile::joined, true},
    {"-fsanitize-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-system-blacklist=", NamedFile::joined, true},
    {"-fsanitize-system-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-allowlist=", NamedFile::joined, true},
    {"-fsanitize-coverage-whitelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-ignorelist=", NamedFile::joined, true},
    {"-fsanitize-coverage-blacklist=", NamedFile::joined, true},
    {"-fxray-always-instrument=", NamedFile::joined, true},
    {"-fxray-never-instrument=", NamedFile::joined, true},
    {"-fxray-attr-list=", NamedFile::joined_or_separate, true},
    {"-fprofile-instr-use=", NamedFile::joined, false},
    {"-fprofile-use=", NamedFile::joined, false},
    {"-fprofile-sample-use=", NamedFile::joined, false},
    {"-fauto-profile=", NamedFile::joined, false},
    {"-fprofile-remapping-file=", NamedFile::joined, false},
    {"-fprofile-instrument-use-path=", NamedFile::joined, false},
    {"-fopenmp-host-ir-file-path", NamedFile::separate, false},
    {"-fcuda-include-gpubinary", NamedFile::separate, false},
    {"-mlink-bitcode-file", NamedFile::separate, false},
    {"-mlink-builtin-bitcode", NamedFile::separate, false},
    {"-mlink-cuda-bitcode", NamedFile::separate, false},
};

// The arguments as the frontend reads them: -Xclang X and -Xpreprocessor X
// as X, -Wp,A,B as A and B.
std::vector<std::string> unwrapped(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_wrapper(args[i]) && i + 1 < args.size()) {
      out.push_back(args[++i]);
    } else if (args[i].starts_with("-Wp,")) {
      for (size_t begin = 4;;) {
        const size_t comma = args[i].find(',', begin);
        out.push_back(args[i].substr(begin, comma - begin));
        if (comma == std::string::npos)
          break;
        begin = comma + 1;
      }
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

// The file `arg` (at `i` of `args`) names, with the option naming it; `i`
// moves past a separate value.
std::optional<std::pair<std::string_view, std::string>>
named_file(const std::vector<std::string>& args, size_t& i, bool& text) {
  const std::string& arg = args[i];
  for (const NamedFile& named : kNamedFiles) {
    text = named.text;
    if (named.form != NamedFile::joined && arg == named.option) {
      if (i + 1 < args.size())
        return std::pair{named.option, args[++i]};
      return std::nullopt;
    }
    if (named.form != NamedFile::separate && arg.starts_with(named.option) &&
        arg.size() > named.option.size())
      return std::pair{named.option, arg.substr(named.option.size())};
  }
  return std::nullopt;
}

} // namespace

std::optional<diag::Diagnostic> unreadable_named_file(const std::vector<std::string>& args,
                                                      bool missing_too) {
  const std::vector<std::string> read = unwrapped(args);
  const std::string working_directory = working_directory_of(args);
  for (size_t i = 0; i < read.size(); ++i) {
    bool text = false;
    const auto named = named_file(read, i, text);
    if (!named)
      continue;
    const auto& [option, given] = *named;
    std::string path = given;
    // -fmodule-file=[NAME=]FILE
    if (option == "-fmodule-file=" && given.find('=') != std::string::npos &&
        support::unreadable_reason(given).starts_with("No such"))
      path = given.substr(given.find('=') + 1);
    if (!path.starts_with('/') && !working_directory.empty())
      path = joined(working_directory, path);
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::directory)
      continue; // -fprofile-use=DIR; libclang says what else it makes of one
    if (status.type() == fs::file_type::not_found && !missing_too)
      continue; // -include searches the include path; libclang says when it is nowhere
    const std::string why = support::unreadable_reason(
        path, text ? support::kMaxInputBytes : std::numeric_limits<std::uintmax_t>::max());
    if (why.empty())
      continue;
    return diag::make_error(
        "opscan-io", {given, 0, 0, 0},
        fmt::format("cannot read {}, given with {}: {}; no file that uses it can be scanned", given,
                    option.ends_with('=') ? option.substr(0, option.size() - 1) : option, why));
  }
  return std::nullopt;
}

} // namespace opscan::scan
