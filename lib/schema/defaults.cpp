// Which default values libtorch's schema parser and torchgen both read, and
// why any other cannot be a default of its argument's type.
#include "schema/defaults.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace opscan::schema {

// A piece of a schema in quotes for a message, clipped at 40 bytes.
std::string quoted_part(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() > kMax)
    return "'" + std::string(text.substr(0, kMax)) + "...'";
  return "'" + std::string(text) + "'";
}

// A default value for messages: string literals already carry quotes.
std::string shown_default(std::string_view value) {
  if (value.starts_with("'") || value.starts_with("\""))
    return value.size() > 42 ? std::string(value.substr(0, 40)) + "..." : std::string(value);
  return quoted_part(value);
}

namespace {

// ---------------------------------------------------------------------------
// Default values
//
// The runtimes read a default when the operator is registered: libtorch's
// schema parser (torch::jit::parseSchema, 1.13) turns it into a value, and a
// value it cannot make is an exception thrown from a static initializer,
// which ends the program before main. torchgen (ExecuTorch's generator)
// keeps defaults as text and writes them into C++ as expressions, so the
// same values must be C++ literals there. What either refuses is refused
// here; test/torch/schema_parity_test checks this table against
// parseSchema case by case.

// Identifier defaults libtorch 1.13 reads (parseSingleConstant): "float",
// "long" and "complex" as dtypes, "strided", "Mean", "contiguous_format".
std::string_view identifier_values(std::string_view base) {
  if (base == "int" || base == "SymInt")
    return "Mean (a reduction)";
  if (base == "ScalarType")
    return "float, long or complex (libtorch reads no other dtype name; write the number of "
           "any other ScalarType, such as 3 for int)";
  if (base == "Layout")
    return "strided";
  if (base == "MemoryFormat")
    return "contiguous_format";
  return {};
}

bool accepts_identifier(std::string_view base, std::string_view v) {
  if (base == "int" || base == "SymInt")
    return v == "Mean";
  if (base == "ScalarType")
    return v == "float" || v == "long" || v == "complex";
  if (base == "Layout")
    return v == "strided";
  if (base == "MemoryFormat")
    return v == "contiguous_format";
  return false;
}

bool is_number_type(std::string_view base) {
  return base == "int" || base == "SymInt" || base == "float" || base == "Scalar";
}

bool is_float_type(std::string_view base) {
  return base == "float" || base == "Scalar";
}

// Element types libtorch builds list defaults of (convertToList).
bool is_list_element_type(std::string_view base) {
  return base == "int" || base == "SymInt" || base == "float" || base == "bool";
}

// How many items a single value repeated into a fixed-size list ("int[N]
// x=0") may make: libtorch builds the list when it registers the operator.
constexpr int64_t kMaxRepeatedDefault = 1024;

// Splits "[a, [b, c], 'd, e']" into its top-level items. The parser built
// the text, so brackets balance outside of strings.
std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> items;
  const std::string_view inner = list.substr(1, list.size() - 2);
  if (inner.empty())
    return items;
  int depth = 0;
  char quote_char = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (quote_char) {
      if (c == '\\')
        ++i;
      else if (c == quote_char)
        quote_char = 0;
    } else if (c == '\'' || c == '"') {
      quote_char = c;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      items.push_back(inner.substr(start, i - start));
      start = i + 1;
      while (start < inner.size() && inner[start] == ' ')
        ++start;
    }
  }
  items.push_back(inner.substr(start));
  return items;
}

// A type with only its first `suffixes` suffixes: the element type of a list
// or the contents of an optional, without copying (types can be long).
struct TypePrefix {
  const Type* type;
  size_t suffixes;

  bool ends_with(TypeSuffix::Kind kind) const {
    return suffixes > 0 && type->suffixes[suffixes - 1].kind == kind;
  }
  const TypeSuffix& last() const { return type->suffixes[suffixes - 1]; }
  TypePrefix drop_last() const { return {type, suffixes - 1}; }
  std::string str() const { // for messages only
    Type t = *type;
    t.suffixes.resize(suffixes);
    return t.str();
  }
};

// Why a number (as the lexer took it: digits, an optional fraction and
// exponent, maybe a leading '-') cannot be a default, or nothing. libtorch
// reads it with std::stod when the type is float or the text has '.' or
// 'e', else with std::stoll, and fails on what does not fit.
std::optional<std::string> number_problem(std::string_view value, bool reads_as_double) {
  if (value.find('E') != std::string_view::npos)
    return "write the exponent with a lowercase 'e': libtorch reads " + quoted_part(value) +
           " as " + quoted_part(value.substr(0, value.find('E')));
  const std::string_view digits = value.starts_with("-") ? value.substr(1) : value;
  if (digits.size() > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9')
    return "a leading zero makes it an octal literal in C++, where torchgen writes defaults; "
           "write it without";
  const std::string text(value);
  if (!reads_as_double && value.find_first_of(".e") == std::string_view::npos) {
    int64_t parsed = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec == std::errc::result_out_of_range)
      return "it is outside int64 (-9223372036854775808 to 9223372036854775807), as libtorch "
             "reads integers: registering the operator would fail";
    return std::nullopt;
  }
  // std::stod, as libtorch: ERANGE on overflow and on results too small for
  // a normal double (underflow), which it refuses alike.
  errno = 0;
  const double parsed = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE) {
    const bool overflow = std::abs(parsed) > 1.0;
    return std::string(overflow ? "it overflows" : "it underflows") +
           " a double (libtorch reads it with std::stod, which refuses " +
           (overflow ? "values beyond 1.7976931348623157e308"
                     : "values below 2.2250738585072014e-308 other than 0") +
           ")";
  }
  return std::nullopt;
}

// Why the string literal `value` (quotes included) cannot be a default, or
// nothing: libtorch's parseStringLiteral knows only the escapes \\, \', \",
// \a, \b, \f, \n, \v, \t and three octal digits below \400.
std::optional<std::string> string_problem(std::string_view value) {
  const std::string_view inner = value.substr(1, value.size() - 2);
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] != '\\')
      continue;
    const char c = i + 1 < inner.size() ? inner[i + 1] : '\0';
    if (std::string_view("\\'\"abfnvt").find(c) != std::string_view::npos && c != '\0') {
      ++i;
      continue;
    }
    auto octal = [&](size_t k) { return k < inner.size() && inner[k] >= '0' && inner[k] <= '7'; };
    if (octal(i + 1) && octal(i + 2) && octal(i + 3) && inner[i + 1] <= '3') {
      i += 3;
      continue;
    }
    return "escape " + quoted_part(inner.substr(i, 2)) +
           " is one libtorch cannot read: it knows \\\\, \\', \\\", \\a, \\b, \\f, \\n, \\v, \\t "
           "and three octal digits (\\000 to \\377)";
  }
  return std::nullopt;
}

// The device types libtorch 1.13 parses (c10::Device's constructor).
constexpr std::array<std::string_view, 19> kDeviceTypes = {
    "cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",          "ve",
    "fpga", "ort",  "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "privateuseone"};

// Why a Device default (a string literal) is not a device c10::Device reads
// as written: "type" or "type:index", index 0 to 127 without leading zeros
// (c10::DeviceIndex is 8 bits; a larger index wraps).
std::optional<std::string> device_problem(std::string_view value) {
  const std::string_view text = value.substr(1, value.size() - 2);
  const size_t colon = text.find(':');
  const std::string_view type = text.substr(0, colon);
  if (std::find(kDeviceTypes.begin(), kDeviceTypes.end(), type) == kDeviceTypes.end())
    return quoted_part(text) +
           " is not a device: libtorch reads 'cpu', 'cuda', 'meta', 'mps' and "
           "its other device types, optionally with ':' and an index, as in 'cuda:0'";
  if (colon == std::string_view::npos)
    return std::nullopt;
  const std::string_view index = text.substr(colon + 1);
  const bool digits = !index.empty() && index.size() <= 3 &&
                      index.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits || (index.size() > 1 && index[0] == '0') || std::stoi(std::string(index)) > 127)
    return "device index " + quoted_part(index) +
           " is not one libtorch reads: write 0 to 127, without leading zeros";
  return std::nullopt;
}

// Why `value` (as the parser kept it) cannot be a default of `type`, or
// nothing when it can. `optional` is whether the argument's type is
// optional (libtorch then reads numbers without the type's help); `item`
// whether the value is an item of a list default. Recursion follows the list
// nesting of the value, which the parser bounds; the work is linear in the
// value's length.
std::optional<std::string> default_problem(TypePrefix type, std::string_view value, bool optional,
                                           bool item) {
  if (value == "None") {
    if (type.ends_with(TypeSuffix::Kind::optional) && !item)
      return std::nullopt;
    if (type.ends_with(TypeSuffix::Kind::optional))
      return "libtorch builds no list of optional values";
    return "None needs an optional type: declare it " + quoted_part(type.str() + "?");
  }
  // Past None, an optional behaves like its contents.
  while (type.ends_with(TypeSuffix::Kind::optional)) {
    if (item)
      return "libtorch builds no list of optional values";
    type = type.drop_last();
  }

  if (type.ends_with(TypeSuffix::Kind::list)) {
    if (item)
      return "libtorch builds no list of lists";
    const TypePrefix element = type.drop_last();
    if (optional)
      return "an optional list takes None only: libtorch cannot read another default for it";
    if (element.suffixes != 0 || !is_list_element_type(element.type->base))
      return "libtorch builds list defaults of int, SymInt, float and bool only, not of " +
             quoted_part(element.str());
    if (value.starts_with("[")) {
      for (std::string_view item_value : list_items(value))
        if (auto problem = default_problem(element, item_value, false, true))
          return "item " + shown_default(item_value) + ": " + *problem;
      return std::nullopt;
    }
    // "int[2] stride=1" repeats the value; only a fixed size says how often.
    if (!type.last().size)
      return "a list type takes a list default such as " +
             shown_default("[" + std::string(value) + "]") +
             "; a single value only fits a fixed-size list such as " +
             quoted_part(element.str() + "[2]");
    if (*type.last().size > kMaxRepeatedDefault)
      return "a single value repeated " + std::to_string(*type.last().size) +
             " times: libtorch builds that list when it registers the operator; at most " +
             std::to_string(kMaxRepeatedDefault) + " items";
    return default_problem(element, value, false, true);
  }

  const std::string& base = type.type->base;
  if (value.starts_with("["))
    return "a list default needs a list type such as " + quoted_part(type.str() + "[]");
  if (value == "True" || value == "False") {
    // Scalar holds booleans too, and the JIT parser takes them for it.
    if (base == "bool" || base == "SymBool" || base == "Scalar")
      return std::nullopt;
    return "True and False fit only bool (and Scalar)";
  }
  if (value.starts_with("'") || value.starts_with("\"")) {
    // The JIT parser reads a Device default as a string: Device device="cpu".
    if (base != "str" && base != "Device")
      return "string literals fit only str (and Device)";
    if (auto problem = string_problem(value))
      return problem;
    if (base == "Device")
      return device_problem(value);
    return std::nullopt;
  }
  if (value == "inf" || value == "-inf" || value == "nan")
    return "libtorch's schema parser reads no " + quoted_part(value) +
           " (nor any inf or nan), so registering the operator would fail";
  const char first = value.empty() ? '\0' : value[0];
  if ((first >= '0' && first <= '9') || first == '-') {
    if (base == "complex")
      return "libtorch 1.13 cannot read a complex default (it refuses '1' and reads '2.5' as 2j); "
             "leave the default out";
    // PyTorch's dispatcher prints enum defaults as their numbers
    // (ScalarType? dtype=4, MemoryFormat memory_format=0).
    const bool is_enum = base == "ScalarType" || base == "Layout" || base == "MemoryFormat";
    if (is_enum && first != '-' && value.find_first_not_of("0123456789") == std::string_view::npos)
      return number_problem(value, false);
    if (!is_number_type(base))
      return "numbers fit only int, SymInt, float, Scalar and (as enum values) ScalarType, "
             "Layout and MemoryFormat";
    if (!is_float_type(base) && value.find_first_of(".eE") != std::string_view::npos)
      return "'" + base + "' takes an integer";
    // libtorch reads by the argument's type only when it is a plain float
    // (or a list of floats); a float? holds what the text looks like.
    return number_problem(value, base == "float" && !optional);
  }
  // An identifier such as Mean, contiguous_format or long.
  if (accepts_identifier(base, value))
    return std::nullopt;
  const std::string_view accepted = identifier_values(base);
  if (!accepted.empty())
    return quoted_part(value) + " is not a value of '" + base + "', which takes " +
           std::string(accepted);
  return quoted_part(value) + " is not a value of " + quoted_part(type.str()) +
         ": named defaults fit only int (Mean), ScalarType, Layout and MemoryFormat";
}

} // namespace

std::optional<std::string> default_value_problem(const Type& type, std::string_view value) {
  const TypePrefix whole{&type, type.suffixes.size()};
  return default_problem(whole, value, whole.ends_with(TypeSuffix::Kind::optional), false);
}

} // namespace opscan::schema
