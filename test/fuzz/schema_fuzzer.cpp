// libFuzzer target for lib/schema: whatever the bytes, parsing must not crash,
// a parsed schema must print to text that parses back to the same schema and
// prints identically, and the checks must agree between the parsed layout
// and the canonical one. Checks stay on in Release builds (no assert()).
#include "schema/schema.h"

#include "fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_TARGET "schema_fuzzer"

namespace {

using namespace opscan::schema;
using opscan::fuzz::fail;

void check_error(const Error& e, std::string_view input) {
  FUZZ_CHECK(e.offset <= input.size(), input);
  FUZZ_CHECK(e.code.starts_with("opscan-schema-"), input);
  FUZZ_CHECK(!e.message.empty(), input);
}

bool layout_within(const SchemaLayout& l, const Schema& s, size_t size) {
  if (l.arguments.size() != s.arguments.size() || l.defaults.size() != s.arguments.size() ||
      l.returns.size() != s.returns.size())
    return false;
  auto in = [&](size_t offset) { return offset <= size; };
  if (!in(l.name) || !in(l.return_list))
    return false;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    if (!in(l.arguments[i]) ||
        (l.defaults[i].has_value() != s.arguments[i].default_value.has_value()) ||
        (l.defaults[i] && !in(*l.defaults[i])))
      return false;
  }
  return std::all_of(l.returns.begin(), l.returns.end(), in);
}

std::vector<std::string> codes(std::vector<Error> errors) {
  std::vector<std::string> out;
  for (Error& e : errors)
    out.push_back(std::move(e.code));
  std::sort(out.begin(), out.end());
  return out;
}

void fuzz_schema(std::string_view input) {
  auto parsed = parse_schema_with_layout(input);
  auto plain = parse_schema(input);
  FUZZ_CHECK(parsed.value.has_value() == plain.value.has_value(), input);
  if (!parsed) {
    FUZZ_CHECK(parsed.error.has_value(), input);
    check_error(*parsed.error, input);
    FUZZ_CHECK(plain.error && plain.error->offset == parsed.error->offset, input);
    return;
  }
  FUZZ_CHECK(!parsed.error, input);
  const Schema& schema = parsed.value->schema;
  FUZZ_CHECK(*plain.value == schema, input);
  FUZZ_CHECK(layout_within(parsed.value->layout, schema, input.size()), input);

  const std::string printed = schema.str();
  auto again = parse_schema_with_layout(printed);
  if (!again)
    fail(FUZZ_TARGET, ("printed schema does not parse: " + printed + "\n" + again.error->message).c_str(),
         input);
  FUZZ_CHECK(again.value->schema == schema, input);
  FUZZ_CHECK(again.value->schema.str() == printed, input);
  // The printer's layout is the parser's layout of the printed text.
  const SchemaLayout canonical = layout_of(schema);
  FUZZ_CHECK(canonical == again.value->layout, input);

  const std::vector<Error> found = check_schema(schema, parsed.value->layout);
  for (const Error& e : found)
    check_error(e, input);
  FUZZ_CHECK(std::is_sorted(found.begin(), found.end(),
                            [](const Error& a, const Error& b) { return a.offset < b.offset; }),
             input);
  const std::vector<Error> found_canonical = check_schema(schema, canonical);
  for (const Error& e : found_canonical)
    check_error(e, printed);
  // Where a finding points may change with the spelling; what it is may not.
  FUZZ_CHECK(codes(found) == codes(found_canonical), input);
  // A layout that does not fit the schema must not crash the checker.
  (void)check_schema(schema, SchemaLayout{});
}

void fuzz_operator_name(std::string_view input) {
  auto parsed = parse_operator_name(input);
  if (!parsed) {
    check_error(*parsed.error, input);
    return;
  }
  const std::string printed = parsed.value->str();
  auto again = parse_operator_name(printed);
  FUZZ_CHECK(again && *again.value == *parsed.value, input);
  for (const Error& e : check_operator_name(*parsed.value))
    check_error(e, printed);
}

void fuzz_type(std::string_view input) {
  auto parsed = parse_type(input);
  if (!parsed) {
    check_error(*parsed.error, input);
    return;
  }
  const std::string printed = parsed.value->str();
  auto again = parse_type(printed);
  FUZZ_CHECK(again && *again.value == *parsed.value && again.value->str() == printed, input);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz_schema(input);
  fuzz_operator_name(input);
  fuzz_type(input);
  // Schemas embed names and types: also try the input's pieces on their own,
  // which reaches the name and type parsers with realistic text.
  if (const size_t paren = input.find('('); paren != std::string_view::npos) {
    fuzz_operator_name(input.substr(0, paren));
    const size_t space = input.find(' ', paren);
    if (space != std::string_view::npos)
      fuzz_type(input.substr(paren + 1, space - paren - 1));
  }
  return 0;
}
