// C++ parameter and return types to schema types, matched on canonical types.
#include "scan/types.h"

#include "scan/clang.h"

#include <array>
#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace opscan::scan {
namespace {

template <size_t N>
bool is_one_of(std::string_view name, const std::array<std::string_view, N>& names) {
  for (std::string_view n : names) {
    if (!n.empty() && n == name) // a short list ends in empty names
      return true;
  }
  return false;
}

// Canonical declarations of the kernel-facing types: ExecuTorch's, ATen's
// and those of PyTorch's stable ABI (torch/csrc/stable, torch/headeronly).
constexpr std::array<std::string_view, 3> kTensor = {"executorch::runtime::etensor::Tensor",
                                                     "at::Tensor", "torch::stable::Tensor"};
constexpr std::array<std::string_view, 2> kScalar = {"executorch::runtime::etensor::Scalar",
                                                     "c10::Scalar"};
constexpr std::array<std::string_view, 2> kOptional = {"std::optional", "c10::optional"};
// HeaderOnlyArrayRef is declared in c10 and named in torch::headeronly.
constexpr std::array<std::string_view, 4> kArrayRef = {"executorch::runtime::ArrayRef",
                                                       "c10::ArrayRef", "c10::HeaderOnlyArrayRef",
                                                       "torch::headeronly::HeaderOnlyArrayRef"};
constexpr std::array<std::string_view, 4> kString = {
    "std::basic_string_view", "c10::basic_string_view", "std::basic_string", "c10::string_view"};
constexpr std::array<std::string_view, 4> kContext = {
    "executorch::runtime::KernelRuntimeContext", "executorch::runtime::aten::KernelRuntimeContext",
    "torch::executor::KernelRuntimeContext", "torch::executor::RuntimeContext"};

// Enumerations and small structs that keep their name in the schema.
struct NamedType {
  std::string_view schema;
  std::array<std::string_view, 3> cpp;
};
constexpr std::array<NamedType, 6> kNamed = {{
    {"ScalarType", {"executorch::runtime::etensor::ScalarType", "c10::ScalarType"}},
    {"Layout", {"executorch::runtime::etensor::Layout", "c10::Layout"}},
    {"MemoryFormat", {"executorch::runtime::etensor::MemoryFormat", "c10::MemoryFormat"}},
    {"Device", {"executorch::runtime::etensor::Device", "c10::Device", "torch::stable::Device"}},
    {"SymInt", {"c10::SymInt", "c10::SymInt"}},
    // torch::stable's namespace has hidden visibility but is not inline:
    // its canonical name is torch::stable::Generator, as Tensor's is.
    {"Generator", {"at::Generator", "torch::stable::Generator"}},
}};

schema::Type base(std::string name) {
  return schema::Type{std::move(name), std::nullopt, {}};
}

kernel::MappedType mapped(schema::Type type) {
  kernel::MappedType result;
  result.type = std::move(type);
  return result;
}

schema::Type suffixed(schema::Type type, schema::TypeSuffix::Kind kind) {
  type.suffixes.push_back({kind, std::nullopt, std::nullopt});
  return type;
}

kernel::MappedType refuse(CXType type, std::string_view why,
                          kernel::MappedType::Repair repair = kernel::MappedType::Repair::none,
                          std::string replacement = {}) {
  kernel::MappedType result;
  // fmt rather than "'" + ...: GCC 12 at -O3 warns falsely (-Wrestrict) on that.
  result.error = fmt::format("'{}' {}", spelling(type), why);
  result.repair = repair;
  result.replacement = std::move(replacement);
  return result;
}

// A builtin type the schema has no width of: the type the message names.
kernel::MappedType refuse_builtin(CXType type, std::string_view why, std::string replacement) {
  return refuse(type, why, kernel::MappedType::Repair::builtin, std::move(replacement));
}

// A refusal whose repair would not be enough: the repaired type would be
// refused too (a non-const reference to an int64_t, say).
kernel::MappedType without_repair(kernel::MappedType mapped) {
  if (!mapped.type) {
    mapped.repair = kernel::MappedType::Repair::none;
    mapped.replacement.clear();
  }
  return mapped;
}

std::string declaration_name(CXType canonical) {
  return type_name(clang_getTypeDeclaration(canonical));
}

// Maps a type taken by value (or by const reference, with the reference
// already removed).
kernel::MappedType map_value(CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  switch (canonical.kind) {
  case CXType_Bool:
    return mapped(base("bool"));
  case CXType_Double:
    return mapped(base("float"));
  case CXType_Long:
  case CXType_LongLong:
    // int64_t is long on LP64 and long long elsewhere: both are 64 bits.
    if (clang_Type_getSizeOf(canonical) == 8)
      return mapped(base("int"));
    return refuse_builtin(type, "is not 64 bits wide here: use int64_t", "int64_t");
  case CXType_Int:
    return refuse_builtin(type, "is not a schema type: use int64_t (schema 'int')", "int64_t");
  case CXType_Float:
    return refuse_builtin(type, "is not a schema type: use double (schema 'float')", "double");
  case CXType_Short:
  case CXType_UShort:
  case CXType_UInt:
  case CXType_ULong:
  case CXType_ULongLong:
  case CXType_Char_S:
  case CXType_Char_U:
  case CXType_SChar:
  case CXType_UChar:
    return refuse_builtin(type, "is not a schema type: use int64_t (schema 'int')", "int64_t");
  case CXType_Pointer: {
    CXType pointee = clang_getCanonicalType(clang_getPointeeType(canonical));
    if (pointee.kind == CXType_Char_S || pointee.kind == CXType_Char_U) {
      return refuse(type, "is not a schema type: use std::string_view (schema 'str')",
                    kernel::MappedType::Repair::char_pointer, "std::string_view");
    }
    return refuse(type, "is a pointer: kernels take tensors by reference and values by value");
  }
  case CXType_Record:
  case CXType_Enum:
    break;
  default:
    return refuse(type, "is not a type opscan can pass to a kernel");
  }

  const std::string name = declaration_name(canonical);
  if (is_one_of(name, kTensor))
    return mapped(base("Tensor"));
  if (is_one_of(name, kScalar))
    return mapped(base("Scalar"));
  if (is_one_of(name, kString))
    return mapped(base("str"));
  for (const NamedType& named : kNamed) {
    if (is_one_of(name, named.cpp))
      return mapped(base(std::string(named.schema)));
  }
  if (name == "c10::complex" || name == "executorch::runtime::etensor::complex") {
    return mapped(base("complex"));
  }
  // c10::OptionalArrayRef<T> (at::OptionalIntArrayRef) is an optional list.
  const bool optional_list = name == "c10::OptionalArrayRef";
  if (is_one_of(name, kOptional) || is_one_of(name, kArrayRef) || name == "std::vector" ||
      name == "c10::List" || optional_list) {
    if (clang_Type_getNumTemplateArguments(canonical) < 1)
      return refuse(type, "has no element type");
    CXType element = clang_Type_getTemplateArgumentAsType(canonical, 0);
    if (name == "std::vector" && clang_getCanonicalType(element).kind == CXType_Bool) {
      return refuse(type, "is not a schema type: use ArrayRef<bool> (schema 'bool[]')");
    }
    kernel::MappedType inner = map_value(element);
    if (!inner.type) {
      inner.error = "element of " + inner.error;
      // Only a builtin element is repaired in place (ArrayRef<int>).
      if (inner.repair != kernel::MappedType::Repair::builtin)
        return without_repair(std::move(inner));
      return inner;
    }
    if (is_one_of(name, kOptional)) {
      if (inner.type->is_optional())
        return refuse(type, "is an optional of an optional");
      return mapped(suffixed(*inner.type, schema::TypeSuffix::Kind::optional));
    }
    if (inner.type->is_list())
      return refuse(type, "is a list of lists, which schemas cannot express");
    schema::Type list = suffixed(*inner.type, schema::TypeSuffix::Kind::list);
    return mapped(optional_list ? suffixed(list, schema::TypeSuffix::Kind::optional) : list);
  }
  return refuse(type, "is not a type opscan knows how to pass to a kernel (see the type table "
                      "in docs/annotating.md)");
}

} // namespace

kernel::MappedType map_parameter_type(CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  if (canonical.kind == CXType_RValueReference) {
    const bool repairable = map_value(clang_getPointeeType(canonical)).type.has_value();
    return refuse(type, "is an rvalue reference: take it by value or const reference",
                  repairable ? kernel::MappedType::Repair::rvalue_reference
                             : kernel::MappedType::Repair::none);
  }
  if (canonical.kind != CXType_LValueReference)
    return map_value(type);

  // Through a typedef of a reference ("using TensorRef = Tensor&") only the
  // canonical type has a pointee; keep the written one when there is one.
  CXType pointee = clang_getPointeeType(type.kind == CXType_LValueReference ? type : canonical);
  kernel::MappedType mapped = map_value(pointee);
  if (clang_isConstQualifiedType(clang_getCanonicalType(pointee)))
    return mapped;
  if (!mapped.type)
    return without_repair(std::move(mapped));
  // A non-const reference is how a kernel says it writes a tensor.
  const schema::Type& t = *mapped.type;
  const bool tensor =
      t.base == "Tensor" && (t.suffixes.empty() || (t.suffixes.size() == 1 && t.is_optional()));
  if (tensor) {
    mapped.is_mutable = true;
    return mapped;
  }
  return refuse(type, "is a non-const reference to a value the kernel cannot write: take it by "
                      "value or const reference");
}

kernel::MappedType map_return_type(CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  // A returned reference is an out tensor: no value type repaired in it fits.
  if (canonical.kind == CXType_RValueReference)
    return without_repair(map_parameter_type(type));
  if (canonical.kind == CXType_LValueReference) {
    kernel::MappedType mapped = without_repair(map_parameter_type(type));
    if (mapped.type && !mapped.is_mutable) {
      return refuse(type, "is a const reference: return out tensors as Tensor& or values by value");
    }
    return mapped;
  }
  return map_parameter_type(type);
}

std::optional<std::vector<CXType>> tuple_elements(CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  if (canonical.kind != CXType_Record || declaration_name(canonical) != "std::tuple") {
    return std::nullopt;
  }
  std::vector<CXType> elements;
  int count = clang_Type_getNumTemplateArguments(canonical);
  for (int i = 0; i < count; ++i)
    elements.push_back(clang_Type_getTemplateArgumentAsType(canonical, i));
  return elements;
}

ir::ContextKind context_kind(CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  if (canonical.kind == CXType_LValueReference) {
    CXType pointee = clang_getCanonicalType(clang_getPointeeType(canonical));
    if (pointee.kind == CXType_Record && !clang_isConstQualifiedType(pointee) &&
        is_one_of(declaration_name(pointee), kContext)) {
      return ir::ContextKind::runtime_context;
    }
    return ir::ContextKind::none;
  }
  if (canonical.kind == CXType_Record && declaration_name(canonical) == "c10::DispatchKeySet") {
    return ir::ContextKind::dispatch_key_set;
  }
  return ir::ContextKind::none;
}

} // namespace opscan::scan
