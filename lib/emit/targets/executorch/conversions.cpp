// How ExecuTorch passes each schema type between its EValue stack and a
// kernel's C++ parameters and returns (conversions.h).
#include "emit/targets/executorch/conversions.h"

#include <cctype>
#include <fmt/format.h>
#include <map>
#include <set>

namespace opscan::emit::executorch {
namespace {

// A schema base type an EValue can carry: its C++ type in ExecuTorch, the
// canonical name libclang gives it (int64_t is long here), and the EValue
// accessor of a list of it, if EValue has lists of it.
struct Element {
  std::string cpp;
  std::string canonical;
  std::string list_accessor;
};

const Element* element_of(std::string_view base) {
  static const std::map<std::string_view, Element> kElements = {
      {"Tensor", {aten("Tensor"), "executorch::runtime::etensor::Tensor", "toTensorList"}},
      {"Scalar", {aten("Scalar"), "executorch::runtime::etensor::Scalar", ""}},
      {"ScalarType", {aten("ScalarType"), "executorch::runtime::etensor::ScalarType", ""}},
      {"MemoryFormat", {aten("MemoryFormat"), "executorch::runtime::etensor::MemoryFormat", ""}},
      {"Layout", {aten("Layout"), "executorch::runtime::etensor::Layout", ""}},
      {"Device", {aten("Device"), "executorch::runtime::etensor::Device", ""}},
      {"int", {"::std::int64_t", "long", "toIntList"}},
      // ExecuTorch has no symbolic shapes: SymInt is int, as in its own generator.
      {"SymInt", {"::std::int64_t", "long", "toIntList"}},
      {"float", {"double", "double", "toDoubleList"}},
      {"bool", {"bool", "bool", "toBoolList"}},
      {"str", {"::std::string_view", "std::basic_string_view<char>", ""}},
  };
  auto it = kElements.find(base);
  return it == kElements.end() ? nullptr : &it->second;
}

std::string optional_of(const std::string& t) {
  return "::std::optional<" + t + ">";
}
std::string list_of(const std::string& t) {
  return aten("ArrayRef<" + t + ">");
}
std::string canonical_optional_of(const std::string& t) {
  return "std::optional<" + t + ">";
}
std::string canonical_list_of(const std::string& t) {
  return "executorch::runtime::ArrayRef<" + t + ">";
}

} // namespace

// Every type generated code names is spelled from the global namespace, so
// no namespace of the user's (an operator namespace "std", say) can capture
// it.
std::string aten(std::string_view name) {
  return fmt::format("::executorch::aten::{}", name);
}

// The conversion of an argument type, or why ExecuTorch cannot pass it. Only
// what the real EValue defines is generated: to<T>() for every value type and
// their optionals, the list accessors, toOptional<ArrayRef<T>>() for optional
// lists and toListOptionalTensor() for Tensor?[].
std::variant<Conversion, std::string> conversion_of(const schema::Type& type) {
  const Element* e = element_of(type.base);
  if (e == nullptr)
    return "ExecuTorch has no " + type.base + " type";
  using Kind = schema::TypeSuffix::Kind;
  std::vector<Kind> suffixes;
  for (const auto& s : type.suffixes)
    suffixes.push_back(s.kind);

  if (suffixes.empty())
    return Conversion{e->cpp, "to<" + e->cpp + ">()", e->canonical};
  if (suffixes == std::vector{Kind::optional}) {
    return Conversion{optional_of(e->cpp), "toOptional<" + e->cpp + ">()",
                      canonical_optional_of(e->canonical)};
  }
  if (suffixes == std::vector{Kind::list} || suffixes == std::vector{Kind::list, Kind::optional}) {
    if (e->list_accessor.empty())
      return "ExecuTorch has no list of " + type.base;
    if (suffixes.size() == 1) {
      return Conversion{list_of(e->cpp), e->list_accessor + "()", canonical_list_of(e->canonical)};
    }
    return Conversion{optional_of(list_of(e->cpp)), "toOptional<" + list_of(e->cpp) + ">()",
                      canonical_optional_of(canonical_list_of(e->canonical))};
  }
  if (suffixes == std::vector{Kind::optional, Kind::list}) {
    if (type.base != "Tensor")
      return "ExecuTorch has lists of optional Tensors only, not of optional " + type.base;
    return Conversion{list_of(optional_of(e->cpp)), "toListOptionalTensor()",
                      canonical_list_of(canonical_optional_of(e->canonical))};
  }
  return "ExecuTorch has no value of this shape (nested lists or optionals)";
}

std::variant<ReturnConversion, std::string> return_conversion_of(const schema::Type& type) {
  const Element* e = element_of(type.base);
  if (e == nullptr)
    return "ExecuTorch has no " + type.base + " type";
  if (type.suffixes.empty() && type.base == "Tensor") {
    if (type.is_mutable())
      return ReturnConversion{e->cpp + "&", e->canonical + " &"};
    return ReturnConversion{e->cpp, e->canonical};
  }
  static const std::set<std::string_view> kValues = {"int", "SymInt", "float", "bool", "Scalar"};
  if (type.suffixes.empty() && kValues.contains(type.base))
    return ReturnConversion{e->cpp, e->canonical};
  return std::string("the return slot (an EValue) holds only a Tensor, int, float, bool or Scalar");
}

std::string aten_mode_canonical(std::string_view text) {
  // Plain string work rather than <regex>: GCC 12 warns falsely inside
  // std::regex at -O1 with the sanitizers, which the project's CI builds.
  constexpr std::string_view kEtensor = "executorch::runtime::etensor::";
  constexpr std::string_view kArrayRef = "executorch::runtime::ArrayRef";
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const bool starts_word = i == 0 || !is_word(text[i - 1]);
    const std::string_view rest = text.substr(i);
    if (starts_word && rest.starts_with(kEtensor)) {
      size_t end = i + kEtensor.size();
      while (end < text.size() && is_word(text[end]))
        ++end;
      const std::string_view name = text.substr(i + kEtensor.size(), end - i - kEtensor.size());
      if (!name.empty()) {
        out += name == "Tensor" ? std::string("at::Tensor") : "c10::" + std::string(name);
        i = end;
        continue;
      }
    }
    const size_t after = i + kArrayRef.size();
    if (starts_word && rest.starts_with(kArrayRef) &&
        (after == text.size() || !is_word(text[after]))) {
      out += "c10::ArrayRef";
      i = after;
      continue;
    }
    out += text[i++];
  }
  return out;
}

ir::Kernel in_aten_mode(ir::Kernel kernel) {
  for (ir::Argument& a : kernel.arguments)
    a.cpp_canonical_type = aten_mode_canonical(a.cpp_canonical_type);
  kernel.cpp_canonical_return_type = aten_mode_canonical(kernel.cpp_canonical_return_type);
  return kernel;
}

} // namespace opscan::emit::executorch
