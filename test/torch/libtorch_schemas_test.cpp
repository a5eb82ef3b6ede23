// Every schema registered in the installed libtorch (dumped at test time by
// dump_schemas) parses and prints back, and every aten schema passes
// check_schema. Deliberate differences: schemas with the JIT's generic types
// (outside the operator grammar), the dunder operators opscan reserves, and
// operators libtorch registers by hand outside torchgen (quantized::,
// static_runtime::), some of which break torchgen's rules.
#include "schema/schema.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace opscan::schema;

TEST(LibtorchSchemas, ParsePrintAndCheck) {
  std::ifstream in(OPSCAN_KNOWN_SCHEMAS);
  ASSERT_TRUE(in) << OPSCAN_KNOWN_SCHEMAS;
  size_t total = 0, outside_grammar = 0, checked = 0, hand_registered_findings = 0;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    ++total;
    SCOPED_TRACE(std::to_string(number) + ": " + line);
    auto parsed = parse_schema_with_layout(line);
    if (!parsed) {
      // Generic types of the JIT (t, Any, Dict(str, t), __torch__...); one
      // hand-registered static_runtime schema even names an argument twice.
      ++outside_grammar;
      if (line.starts_with("aten::")) {
        EXPECT_TRUE(parsed.error->code == "opscan-schema-unknown-type" ||
                    parsed.error->code == "opscan-schema-syntax")
            << parsed.error->message;
      }
      continue;
    }
    const Schema& schema = parsed.value->schema;
    std::string printed = schema.str(), original = line;
    // PyTorch keeps list defaults as written ("[0,1]"); opscan prints them
    // canonically ("[0, 1]"). Nothing else may differ.
    std::erase(printed, ' ');
    std::erase(original, ' ');
    EXPECT_EQ(printed, original);
    const auto errors = check_schema(schema, parsed.value->layout);
    if (schema.name.name.starts_with("__") || schema.name.overload.starts_with("__")) {
      for (const Error& e : errors)
        EXPECT_EQ(e.code, "opscan-schema-reserved-name") << e.message;
    } else if (schema.name.ns == "aten") {
      ++checked;
      for (const Error& e : errors)
        ADD_FAILURE() << e.code << ": " << e.message;
    } else {
      hand_registered_findings += !errors.empty();
    }
  }
  // Most of libtorch is in the grammar.
  EXPECT_GT(total, 2000u);
  EXPECT_GT(checked, total * 7 / 10)
      << outside_grammar << " of " << total << " outside the grammar";
  std::cout << total << " schemas: " << checked << " aten schemas checked, " << outside_grammar
            << " outside the operator grammar, " << hand_registered_findings
            << " hand-registered ones breaking torchgen's rules\n";
}

} // namespace
