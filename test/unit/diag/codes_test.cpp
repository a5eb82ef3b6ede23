// ===== the registry of codes (lib/diag/codes.h) and its page ================
// Read from the source tree at test time: every code opscan's sources spell
// is registered, and every registered code is documented on
// docs/diagnostics.md under a heading that is the code (its anchor).

#include "diag/codes.h"
#include "files.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace {

using namespace opscan::diag;
namespace fs = std::filesystem;

const fs::path kSource = OPSCAN_SOURCE_DIR;

std::set<std::string> registered() {
  std::set<std::string> codes;
  for (const CodeInfo& info : all_codes())
    codes.insert(std::string(info.code));
  return codes;
}

// The sources that can report: lib/**/*.cpp and tool/*.cpp.
std::vector<fs::path> sources() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "lib"))
    if (entry.path().extension() == ".cpp")
      files.push_back(entry.path());
  for (const auto& entry : fs::directory_iterator(kSource / "tool"))
    if (entry.path().extension() == ".cpp")
      files.push_back(entry.path());
  return files;
}

// Each string literal that is a whole code ("opscan-io"), by file. Literals
// that only start one ("opscan-schema-" + rule) end in '-' and are not
// matched; those families are checked below.
std::map<std::string, std::string> spelled_codes() {
  static const std::regex literal(R"re("(opscan-[a-z0-9-]*[a-z0-9])")re");
  std::map<std::string, std::string> codes;
  for (const fs::path& file : sources()) {
    const std::string text = opscan::testing::read_file(file);
    for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it)
      codes.emplace((*it)[1], fs::relative(file, kSource).string());
  }
  return codes;
}

TEST(Codes, AreSortedUniqueAndEachHasASummary) {
  const std::vector<CodeInfo>& codes = all_codes();
  ASSERT_FALSE(codes.empty());
  for (size_t i = 0; i < codes.size(); ++i) {
    EXPECT_TRUE(codes[i].code.starts_with("opscan-")) << codes[i].code;
    EXPECT_FALSE(codes[i].summary.empty()) << codes[i].code << " has no summary";
    if (i > 0) {
      EXPECT_LT(codes[i - 1].code, codes[i].code) << "all_codes() must be sorted and unique";
    }
    EXPECT_EQ(find_code(codes[i].code), &codes[i]);
  }
  EXPECT_EQ(find_code("opscan-no-such-code"), nullptr);
}

TEST(Codes, EveryCodeTheSourcesSpellIsRegistered) {
  const std::set<std::string> known = registered();
  const std::map<std::string, std::string> spelled = spelled_codes();
  ASSERT_TRUE(spelled.contains("opscan-io")) << "no codes found under " << kSource;
  for (const auto& [code, file] : spelled)
    EXPECT_TRUE(known.contains(code)) << code << " (" << file << ") is not in all_codes()";
}

// lib/schema's rules are reported as "opscan-schema-" + rule, each rule
// named where it is added: add(<where>, "<rule>", ...) (a call: no brace
// between the parenthesis and the rule, unlike add's definition).
TEST(Codes, EverySchemaRuleIsRegistered) {
  static const std::regex rule(R"re([^a-z_]add\([^;"{}]*?,\s*"([a-z0-9-]+)")re");
  const std::set<std::string> known = registered();
  size_t rules = 0;
  for (const fs::path& file : sources()) {
    const std::string text = opscan::testing::read_file(file);
    if (text.find("\"opscan-schema-\" +") == std::string::npos)
      continue;
    for (std::sregex_iterator it(text.begin(), text.end(), rule), end; it != end; ++it) {
      const std::string code = "opscan-schema-" + (*it)[1].str();
      EXPECT_TRUE(known.contains(code)) << code << " (" << file << ") is not in all_codes()";
      ++rules;
    }
  }
  EXPECT_GT(rules, 0u) << "no schema rules found: has the way they are reported changed?";
}

std::set<std::string> documented() {
  const std::string page = opscan::testing::read_file(kSource / "docs/diagnostics.md");
  static const std::regex heading(R"(^### (.*)$)", std::regex::multiline);
  std::set<std::string> headings;
  for (std::sregex_iterator it(page.begin(), page.end(), heading), end; it != end; ++it)
    headings.insert((*it)[1]);
  return headings;
}

TEST(Codes, EveryCodeIsDocumentedUnderAHeadingThatIsTheCode) {
  const std::set<std::string> headings = documented();
  ASSERT_FALSE(headings.empty()) << "no '### ' headings in docs/diagnostics.md";
  for (const CodeInfo& info : all_codes()) {
    EXPECT_TRUE(headings.contains(std::string(info.code)))
        << "docs/diagnostics.md has no '### " << info.code << "'";
  }
  const std::set<std::string> known = registered();
  for (const std::string& heading : headings)
    EXPECT_TRUE(known.contains(heading))
        << "docs/diagnostics.md documents '" << heading << "', which is not a code opscan reports";
}

TEST(Codes, HelpLinksPointAtTheCodesEntry) {
  for (const CodeInfo& info : all_codes()) {
    const std::string url = help_url(info.code);
    EXPECT_TRUE(url.starts_with(docs_url()));
    EXPECT_TRUE(url.ends_with("#" + std::string(info.code))) << url;
  }
}

} // namespace
