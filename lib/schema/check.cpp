// Invariants of operator schemas, after torchgen's FunctionSchema and
// Arguments checks (torchgen/model.py), and the names and default values
// that libtorch's schema parser (1.13, Debian's) and torchgen can read: what
// either runtime refuses is refused here, so that no generated registration
// fails when it runs. No real schema is refused: libtorch_schemas_test runs
// every rule over the schemas the installed libtorch registers, and
// schema_parity_test checks refusals against torch::jit::parseSchema.
#include "ident/ident.h"
#include "schema/schema.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace opscan::schema {
namespace {

// Base types that may carry an alias annotation. PyTorch annotates Tensor
// almost exclusively; Storage and Generator are mutable objects too.
bool can_alias(std::string_view base) {
  return base == "Tensor" || base == "Storage" || base == "Generator";
}

// The annotation torchgen compares: the one right after the base type, or
// failing that the first one on a list suffix ("Tensor[](a!)").
const AliasInfo* annotation(const Type& type) {
  if (type.alias)
    return &*type.alias;
  for (const TypeSuffix& s : type.suffixes)
    if (s.alias)
      return &*s.alias;
  return nullptr;
}

bool same_annotation(const Type& a, const Type& b) {
  const AliasInfo* x = annotation(a);
  const AliasInfo* y = annotation(b);
  return x && y ? *x == *y : x == y;
}

std::string annotation_str(const Type& type) {
  const AliasInfo* a = annotation(type);
  if (!a)
    return "no annotation";
  Type only;
  only.alias = *a;
  return only.str(); // an empty base prints just "(a!)"
}

// "Tensor" exactly: torchgen lets only these out arguments be returned.
bool is_plain_tensor(const Type& type) {
  return type.base == "Tensor" && type.suffixes.empty();
}

std::string quote(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() > kMax)
    return "'" + std::string(text.substr(0, kMax)) + "...'";
  return "'" + std::string(text) + "'";
}

// A default value for messages: string literals already carry quotes.
std::string show(std::string_view value) {
  if (value.starts_with("'") || value.starts_with("\""))
    return value.size() > 42 ? std::string(value.substr(0, 40)) + "..." : std::string(value);
  return quote(value);
}

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

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
    return "write the exponent with a lowercase 'e': libtorch reads " + quote(value) + " as " +
           quote(value.substr(0, value.find('E')));
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
    return "escape " + quote(inner.substr(i, 2)) +
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
    return quote(text) + " is not a device: libtorch reads 'cpu', 'cuda', 'meta', 'mps' and "
                         "its other device types, optionally with ':' and an index, as in 'cuda:0'";
  if (colon == std::string_view::npos)
    return std::nullopt;
  const std::string_view index = text.substr(colon + 1);
  const bool digits = !index.empty() && index.size() <= 3 &&
                      index.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits || (index.size() > 1 && index[0] == '0') || std::stoi(std::string(index)) > 127)
    return "device index " + quote(index) +
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
    return "None needs an optional type: declare it " + quote(type.str() + "?");
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
             quote(element.str());
    if (value.starts_with("[")) {
      for (std::string_view item_value : list_items(value))
        if (auto problem = default_problem(element, item_value, false, true))
          return "item " + show(item_value) + ": " + *problem;
      return std::nullopt;
    }
    // "int[2] stride=1" repeats the value; only a fixed size says how often.
    if (!type.last().size)
      return "a list type takes a list default such as " + show("[" + std::string(value) + "]") +
             "; a single value only fits a fixed-size list such as " + quote(element.str() + "[2]");
    if (*type.last().size > kMaxRepeatedDefault)
      return "a single value repeated " + std::to_string(*type.last().size) +
             " times: libtorch builds that list when it registers the operator; at most " +
             std::to_string(kMaxRepeatedDefault) + " items";
    return default_problem(element, value, false, true);
  }

  const std::string& base = type.type->base;
  if (value.starts_with("["))
    return "a list default needs a list type such as " + quote(type.str() + "[]");
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
    return "libtorch's schema parser reads no " + quote(value) +
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
    return quote(value) + " is not a value of '" + base + "', which takes " + std::string(accepted);
  return quote(value) + " is not a value of " + quote(type.str()) +
         ": named defaults fit only int (Mean), ScalarType, Layout and MemoryFormat";
}

// ---------------------------------------------------------------------------
// The checker

class Checker {
public:
  Checker(const Schema& schema, const SchemaLayout& layout) : s_(schema), l_(layout) {}

  std::vector<Error> run() {
    for (Error e : check_operator_name(s_.name)) {
      e.offset += l_.name;
      errors_.push_back(std::move(e));
    }
    names();
    alias_types();
    defaults();
    default_order();
    out_group();
    duplicate_alias();
    returns();
    std::stable_sort(errors_.begin(), errors_.end(),
                     [](const Error& a, const Error& b) { return a.offset < b.offset; });
    return std::move(errors_);
  }

private:
  size_t arg_at(size_t i) const { return i < l_.arguments.size() ? l_.arguments[i] : l_.name; }
  size_t default_at(size_t i) const {
    return i < l_.defaults.size() && l_.defaults[i] ? *l_.defaults[i] : arg_at(i);
  }
  size_t name_at(size_t i) const {
    return i < l_.argument_names.size() ? l_.argument_names[i] : arg_at(i);
  }
  size_t ret_at(size_t i) const {
    return i < l_.returns.size() ? l_.returns[i] : std::max(l_.return_list, l_.name);
  }
  size_t return_list_at() const { return std::max(l_.return_list, l_.name); }

  void add(size_t offset, std::string_view code, std::string message) {
    errors_.push_back({offset, "opscan-schema-" + std::string(code), std::move(message)});
  }

  std::string arg_name(size_t i) const { return quote(s_.arguments[i].name); }
  std::string ret_name(size_t i) const {
    const Return& r = s_.returns[i];
    return "return " + std::to_string(i) + " " +
           quote(r.type.str() + (r.name.empty() ? "" : " " + r.name));
  }

  // Names libtorch's lexer reads as keywords; argument names that are
  // macros where generated code names its parameters after them.
  void names() {
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const std::string& name = s_.arguments[i].name;
      if (is_reserved_word(name))
        add(name_at(i), "reserved-word",
            "argument " + arg_name(i) +
                " is named with a keyword of libtorch's schema parser, which refuses it; "
                "choose another name");
      else if (auto from = ident::macro_origin(name))
        add(name_at(i), "macro-name",
            "argument " + arg_name(i) + " is named with a macro in generated code, from " +
                std::string(*from) +
                "; the preprocessor would replace it there: choose another name");
    }
    for (size_t i = 0; i < s_.returns.size(); ++i)
      if (is_reserved_word(s_.returns[i].name))
        add(ret_at(i), "reserved-word",
            ret_name(i) + " is named with a keyword of libtorch's schema parser, which refuses "
                          "it; choose another name");
  }

  // The first alias annotation on `type` that its base may not carry.
  static const AliasInfo* misplaced_alias(const Type& type) {
    return can_alias(type.base) ? nullptr : annotation(type);
  }

  void alias_types() {
    auto message = [](std::string what, const Type& type, const AliasInfo& alias) {
      Type only;
      only.alias = alias;
      return what + " has type " + quote(type.str()) + ", but only Tensor (and Storage, " +
             "Generator) values carry alias annotations: remove " + quote(only.str());
    };
    for (size_t i = 0; i < s_.arguments.size(); ++i)
      if (const AliasInfo* a = misplaced_alias(s_.arguments[i].type))
        add(arg_at(i), "alias-type", message("argument " + arg_name(i), s_.arguments[i].type, *a));
    for (size_t i = 0; i < s_.returns.size(); ++i)
      if (const AliasInfo* a = misplaced_alias(s_.returns[i].type))
        add(ret_at(i), "alias-type", message(ret_name(i), s_.returns[i].type, *a));
  }

  void defaults() {
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      if (!a.default_value)
        continue;
      const TypePrefix type{&a.type, a.type.suffixes.size()};
      if (auto problem = default_problem(type, *a.default_value,
                                         type.ends_with(TypeSuffix::Kind::optional), false))
        add(default_at(i), "default-type",
            "default " + show(*a.default_value) + " of argument " + arg_name(i) +
                " does not fit its type " + quote(a.type.str()) + ": " + *problem);
    }
  }

  // Keyword-only arguments are passed by name, so only positional ones need
  // their defaults at the end.
  void default_order() {
    std::optional<size_t> defaulted;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      if (a.kwarg_only)
        break;
      if (a.default_value) {
        if (!defaulted)
          defaulted = i;
      } else if (defaulted) {
        add(arg_at(i), "default-order",
            "argument " + arg_name(i) + " has no default but follows " + arg_name(*defaulted) +
                ", which has one: give " + arg_name(i) + " a default, move it before " +
                arg_name(*defaulted) + ", or make it keyword-only (after '*')");
      }
    }
  }

  // torchgen: the first keyword-only mutable argument starts the out group,
  // and everything after it must be mutable too.
  void out_group() {
    std::optional<size_t> first;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Argument& a = s_.arguments[i];
      const bool is_mutable = a.type.is_mutable();
      if (!first) {
        if (a.kwarg_only && is_mutable)
          first = i;
        continue;
      }
      if (is_mutable) {
        outs_.push_back(i);
        continue;
      }
      add(arg_at(i), "out-group",
          "argument " + arg_name(i) + " follows out argument " + arg_name(*first) +
              " but is not mutable: out arguments come last; move " + arg_name(i) + " before " +
              arg_name(*first));
    }
    if (first)
      outs_.insert(outs_.begin(), *first);
    is_out_.assign(s_.arguments.size(), false);
    for (size_t i : outs_)
      is_out_[i] = true;
  }

  void duplicate_alias() {
    // alias set name -> the mutable argument that first wrote it
    std::map<std::string, size_t, std::less<>> writers;
    for (size_t i = 0; i < s_.arguments.size(); ++i) {
      const Type& t = s_.arguments[i].type;
      std::vector<const AliasInfo*> written;
      if (t.alias && t.alias->is_write)
        written.push_back(&*t.alias);
      for (const TypeSuffix& suffix : t.suffixes)
        if (suffix.alias && suffix.alias->is_write)
          written.push_back(&*suffix.alias);
      bool reported = false;
      std::set<std::string> mine;
      for (const AliasInfo* alias : written) {
        for (const std::string& set : alias->before) {
          if (set == "*" || !mine.insert(set).second)
            continue;
          auto [it, fresh] = writers.emplace(set, i);
          if (!fresh && !reported) {
            reported = true;
            add(arg_at(i), "duplicate-alias",
                "arguments " + arg_name(it->second) + " and " + arg_name(i) +
                    " both write alias set " + quote(set) + ": give " + arg_name(i) +
                    " an alias set of its own");
          }
        }
      }
    }
  }

  // Whether argument i is one a mutable return may alias: an out argument
  // or the positional 'self' (torchgen's out_and_self).
  bool returnable(size_t i) const {
    if (is_out_[i])
      return true;
    return !s_.arguments[i].kwarg_only && s_.arguments[i].name == "self";
  }

  void returns() {
    const size_t n = s_.returns.size();
    reported_.assign(n, false);
    size_t mutable_count = 0;
    for (const Return& r : s_.returns)
      mutable_count += r.type.is_mutable();
    if (mutable_count != 0 && mutable_count != n) {
      // The returns need rewriting anyway; the finer rules would only echo.
      const bool first_mutable = s_.returns[0].type.is_mutable();
      size_t odd = 1;
      while (odd < n && s_.returns[odd].type.is_mutable() == first_mutable)
        ++odd;
      add(ret_at(odd), "mixed-returns",
          ret_name(odd) + " is " + (first_mutable ? "immutable" : "mutable") + " but " +
              ret_name(0) + " is " + (first_mutable ? "mutable" : "immutable") +
              ": return either only out arguments (annotated like them) or only new values");
      inplace(false);
      return;
    }
    inplace(true);
    out_returns();
    // Mutable arguments by annotation: whether one a return may alias has
    // it, else the first other one (for the message).
    std::map<std::string, std::pair<bool, size_t>> mutable_args;
    for (size_t a = 0; a < s_.arguments.size(); ++a) {
      if (!s_.arguments[a].type.is_mutable())
        continue;
      auto [it, fresh] =
          mutable_args.emplace(annotation_str(s_.arguments[a].type), std::pair{returnable(a), a});
      if (!fresh && !it->second.first && returnable(a))
        it->second = {true, a};
    }
    for (size_t i = 0; i < n; ++i) {
      const Type& t = s_.returns[i].type;
      if (reported_[i] || !t.is_mutable())
        continue;
      auto it = mutable_args.find(annotation_str(t));
      if (it != mutable_args.end() && it->second.first)
        continue;
      if (it != mutable_args.end()) {
        const std::string other = arg_name(it->second.second);
        add(ret_at(i), "return-alias",
            ret_name(i) + " aliases argument " + other +
                ", which is neither an out argument nor 'self': make " + other +
                " keyword-only (after '*') or do not return it");
      } else {
        add(ret_at(i), "return-alias",
            ret_name(i) + " is mutable but aliases no out argument and not 'self': annotate it " +
                "like the out argument it returns, or drop the '!'");
      }
    }
  }

  void out_returns() {
    const size_t n = s_.returns.size();
    if (outs_.empty() || n == 0)
      return;
    for (size_t i : outs_) {
      if (!is_plain_tensor(s_.arguments[i].type)) {
        add(ret_at(0), "out-returns",
            "out argument " + arg_name(i) + " is " + quote(s_.arguments[i].type.str()) +
                ", not a plain Tensor, so the operator cannot return it: return nothing (-> ())");
        reported_.assign(n, true);
        return;
      }
    }
    // Scratch tensors (memory planning) are out arguments nobody returns.
    std::vector<size_t> returned;
    for (size_t i : outs_)
      if (!s_.arguments[i].name.starts_with("_scratch_"))
        returned.push_back(i);
    if (n != returned.size()) {
      std::string names;
      for (size_t k = 0; k < returned.size() && k < 4; ++k)
        names += (k ? ", " : "") + arg_name(returned[k]);
      if (returned.size() > 4)
        names += ", ...";
      add(ret_at(n > returned.size() ? returned.size() : 0), "out-returns",
          plural(n, "return") + " but " + plural(returned.size(), "out argument") + " (" + names +
              "): return each out argument in order, or nothing (-> ())");
      reported_.assign(n, true);
      return;
    }
    for (size_t k = 0; k < n && k < outs_.size(); ++k) {
      const size_t a = outs_[k];
      if (reported_[k] || same_annotation(s_.arguments[a].type, s_.returns[k].type))
        continue;
      reported_[k] = true;
      add(ret_at(k), "out-return-alias",
          "out argument " + arg_name(a) + " is annotated " + annotation_str(s_.arguments[a].type) +
              " but " + ret_name(k) + " has " + annotation_str(s_.returns[k].type) + ": return " +
              std::to_string(k) + " must carry the annotation of out argument " +
              std::to_string(k) + ", " + annotation_str(s_.arguments[a].type));
    }
  }

  // torchgen: "name_" mutates a positional 'self' and returns it (a plain
  // Tensor) or nothing (anything else, e.g. Tensor(a!)[] self).
  void inplace(bool check_returns) {
    const std::string& name = s_.name.name;
    if (name.empty() || name.back() != '_' || name.starts_with("__"))
      return;
    const std::string op = quote(s_.name.name);
    std::optional<size_t> self;
    for (size_t i = 0; i < s_.arguments.size() && !self; ++i)
      if (!s_.arguments[i].kwarg_only && s_.arguments[i].name == "self")
        self = i;
    // Without a mutable self there is nothing the returns could alias;
    // this finding covers them.
    if (!self) {
      add(l_.name, "inplace",
          "in-place operator " + op +
              " (its name ends in '_') needs a positional argument "
              "'Tensor(a!) self' to modify; add it first, or drop the trailing '_'");
      reported_.assign(reported_.size(), true);
      return;
    }
    const Type& st = s_.arguments[*self].type;
    if (!st.is_mutable()) {
      add(arg_at(*self), "inplace",
          "in-place operator " + op + " must modify 'self', but 'self' is " + quote(st.str()) +
              ": declare it 'Tensor(a!) self'");
      reported_.assign(reported_.size(), true);
      return;
    }
    if (!check_returns)
      return;
    const size_t n = s_.returns.size();
    if (is_plain_tensor(st)) {
      if (n == 1 && same_annotation(s_.returns[0].type, st))
        return;
      std::string found = n == 0   ? "nothing"
                          : n == 1 ? quote(s_.returns[0].type.str())
                                   : plural(n, "value");
      add(n == 0 ? return_list_at() : ret_at(0), "inplace",
          "in-place operator " + op + " must return 'self' as " + quote(st.str()) +
              " (its annotation), but returns " + found + ": write '-> " + st.str() + "'");
    } else if (n != 0) {
      add(ret_at(0), "inplace",
          "in-place operator " + op + " takes 'self' as " + quote(st.str()) +
              ", which it cannot return: return nothing (-> ())");
    } else {
      return;
    }
    reported_.assign(n, true);
  }

  const Schema& s_;
  const SchemaLayout& l_;
  std::vector<bool> is_out_;   // by argument index
  std::vector<size_t> outs_;   // indices of the out group's mutable arguments
  std::vector<bool> reported_; // returns already diagnosed, to report each once
  std::vector<Error> errors_;
};

} // namespace

std::vector<Error> check_schema(const Schema& schema, const SchemaLayout& layout) {
  return Checker(schema, layout).run();
}

} // namespace opscan::schema
