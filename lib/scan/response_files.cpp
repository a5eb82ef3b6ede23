// Expanding response files (@FILE) as checked inputs.
#include "scan/response_files.h"

#include "support/files.h"
#include "support/text.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>

namespace opscan::scan {
namespace fs = std::filesystem;
namespace {

// Response files are small (a build's include paths); these bound what a
// hostile one can make opscan read, however they nest or repeat.
constexpr std::uintmax_t kMaxResponseFileBytes = std::uintmax_t{1} << 20;
constexpr std::uintmax_t kMaxResponseBytesInAll = std::uintmax_t{16} << 20;
constexpr int kMaxResponseFileDepth = 8;

// The arguments of a response file as clang's driver splits them (GNU
// style, llvm::cl::TokenizeGNUCommandLine): blanks separate; a backslash
// takes the next character as it is; '...' and "..." quote (a backslash
// escapes inside "..." too).
std::vector<std::string> split_response_file(std::string_view text) {
  std::vector<std::string> args;
  std::string token;
  bool in_token = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      token += text[++i];
      in_token = true;
    } else if (c == '\'' || c == '"') {
      in_token = true;
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\' && c == '"' && i + 1 < text.size())
          ++i;
        token += text[i];
      }
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      if (in_token)
        args.push_back(std::move(token));
      token.clear();
      in_token = false;
    } else {
      token += c;
      in_token = true;
    }
  }
  if (in_token)
    args.push_back(std::move(token));
  return args;
}

struct ResponseFiles {
  diag::Diagnostics& diags;
  std::vector<std::string>* read; // the files read, when asked
  std::uintmax_t bytes = 0;
  std::vector<std::string> open; // the files being expanded, outermost first

  // Appends `args` to `out`, each @FILE replaced by its arguments; false,
  // with an error, when one cannot be read.
  bool expand(const std::vector<std::string>& args, const fs::path& directory,
              std::vector<std::string>& out) {
    for (const std::string& arg : args) {
      if (!arg.starts_with('@')) {
        out.push_back(arg);
        continue;
      }
      const std::string name = arg.substr(1);
      const std::string path = name.empty() ? name : (directory / name).lexically_normal().string();
      auto fail = [&](const std::string& why) {
        std::string message = "cannot read the response file " +
                              (name.empty() ? support::quoted(arg) : support::quoted(path, 256));
        if (!open.empty())
          message += " (named in " + support::quoted(open.back(), 256) + ")";
        diags.push_back(diag::make_error("opscan-io", {path, 0, 0, 0}, message + ": " + why));
        return false;
      };
      if (name.empty())
        return fail("it names no file");
      if (std::find(open.begin(), open.end(), path) != open.end())
        return fail("it names itself, through the response files it is read from");
      if (open.size() >= kMaxResponseFileDepth)
        return fail(fmt::format("response files nest more than {} deep", kMaxResponseFileDepth));
      std::string error;
      std::optional<std::string> text = support::read_file(path, &error, kMaxResponseFileBytes);
      if (!text)
        return fail(error);
      if ((bytes += text->size()) > kMaxResponseBytesInAll)
        return fail(fmt::format("the response files of one command hold more than {} MiB",
                                kMaxResponseBytesInAll >> 20));
      if (read && std::find(read->begin(), read->end(), path) == read->end())
        read->push_back(path);
      open.push_back(path);
      const bool ok = expand(split_response_file(*text), fs::path(path).parent_path(), out);
      open.pop_back();
      if (!ok)
        return false;
    }
    return true;
  }
};

} // namespace

std::optional<std::vector<std::string>> expand_response_files(const std::vector<std::string>& args,
                                                              const std::string& directory,
                                                              diag::Diagnostics& diags,
                                                              std::vector<std::string>* read) {
  std::vector<std::string> out;
  ResponseFiles files{diags, read, 0, {}};
  if (!files.expand(args, directory, out))
    return std::nullopt;
  return out;
}

} // namespace opscan::scan
