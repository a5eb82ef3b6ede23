// A field added to the test-only tiny target (test/unit/emit/tiny_target/)
// goes through every floor with no change outside that folder: the scan
// reads and checks it, the IR's JSON carries it, generation checks it again
// for the target chosen, and the target uses it.
#include "emit/generate.h"
#include "emit/registry.h"
#include "files.h"
#include "ir/json.h"
#include "ir/validate.h"
#include "scan/scan.h"

#include <gtest/gtest.h>
#include <string>

// The unit-test build compiles only the files directly in test/unit/driver/:
// the tiny target's folder is compiled here, into this file.
#include "emit/tiny_target/tiny_target.cpp"

namespace {

using namespace opscan;
using opscan::testing::TempDir;

const std::string kInclude = OPSCAN_SOURCE_DIR "/include";

// The built-in targets plus the tiny one, as a program that adds it has.
emit::TargetRegistry with_listing() {
  emit::TargetRegistry targets = emit::builtin_targets();
  EXPECT_TRUE(targets.add(emit::make_listing_target()));
  return targets;
}

// A scan of one source with `note` in its kernel's annotation.
scan::Result scan_note(const TempDir& dir, const std::string& note, const ir::Fields& fields) {
  const std::string source = dir.file("kernels.cpp");
  opscan::testing::write_file(source, "#include <opscan/annotations.h>\n"
                                      "#include <cstdint>\n"
                                      "namespace t {\n"
                                      "OPSCAN_KERNEL(\"my_ops::twice(int x) -> int\", note = \"" +
                                          note +
                                          "\")\n"
                                          "int64_t twice(int64_t x) { return 2 * x; }\n"
                                          "}  // namespace t\n");
  scan::Options options;
  options.fields = fields;
  options.files = {source};
  options.extra_args = {"-std=c++17", "-I" + kInclude};
  return scan::scan(options);
}

TEST(TinyTargetField, FromTheAnnotationToTheGeneratedFile) {
  const emit::TargetRegistry targets = with_listing();
  const ir::Field* note = targets.fields().by_annotation("note");
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->key, "listing_note");

  TempDir dir;
  const scan::Result scanned = scan_note(dir, "fast path", targets.fields());
  ASSERT_TRUE(scanned.diagnostics.empty()) << scanned.diagnostics[0].message;
  ASSERT_EQ(scanned.module.kernels.size(), 1u);
  EXPECT_EQ(scanned.module.kernels[0].field("listing_note"), "fast path");

  // The IR's JSON carries it, beside the built-in targets' fields.
  const std::string json = ir::to_json(scanned.module, targets.fields());
  EXPECT_NE(json.find("\"listing_note\": \"fast path\""), std::string::npos) << json;
  ir::ReadResult read = ir::from_json(json, "ir.json", targets.fields());
  ASSERT_TRUE(read.module) << read.diagnostics.at(0).message;
  EXPECT_EQ(read.module->kernels, scanned.module.kernels);

  // The tiny target reads it; the others refuse a kernel that sets it.
  emit::Options options;
  options.target = "listing";
  options.library = "lib";
  const ir::Locator locator;
  emit::Output listing = emit::generate(*read.module, options, targets, locator);
  ASSERT_TRUE(listing.diagnostics.empty()) << listing.diagnostics[0].message;
  ASSERT_FALSE(listing.files.empty());
  EXPECT_EQ(listing.files[0].path, "lib/kernels.txt");
  EXPECT_EQ(listing.files[0].content, "my_ops::twice t::twice (fast path)\n");
  options.target = "torch";
  emit::Output torch = emit::generate(*read.module, options, targets, locator);
  ASSERT_FALSE(torch.diagnostics.empty());
  EXPECT_EQ(torch.diagnostics[0].code, "opscan-unsupported-field");
  EXPECT_EQ(torch.diagnostics[0].message,
            "the annotation sets note = 'fast path', which the torch target does not read: "
            "remove it, or generate for a target that does");
}

TEST(TinyTargetField, ItsCheckJudgesTheValueWhereItIsWritten) {
  TempDir dir;
  const scan::Result scanned = scan_note(dir, "fast Path", with_listing().fields());
  ASSERT_EQ(scanned.diagnostics.size(), 1u);
  const diag::Diagnostic& d = scanned.diagnostics[0];
  EXPECT_EQ(d.code, "opscan-listing-note");
  EXPECT_EQ(d.message, "a note is lowercase letters and spaces");
  // At the 'P': line 4, after `OPSCAN_KERNEL("...", note = "fast `.
  EXPECT_EQ(d.location.line, 4u);
  EXPECT_EQ(d.location.column,
            std::string("OPSCAN_KERNEL(\"my_ops::twice(int x) -> int\", note = \"fast ").size() +
                1);
  EXPECT_TRUE(scanned.module.kernels.empty());
}

TEST(TinyTargetField, UnknownWhereTheTinyTargetIsNot) {
  TempDir dir;
  const scan::Result scanned = scan_note(dir, "fast path", emit::builtin_targets().fields());
  ASSERT_EQ(scanned.diagnostics.size(), 1u);
  EXPECT_EQ(scanned.diagnostics[0].code, "opscan-annotation-syntax");
  EXPECT_EQ(scanned.diagnostics[0].message,
            "unknown OPSCAN_KERNEL field 'note' (known fields: key, dispatch)");
}

} // namespace
