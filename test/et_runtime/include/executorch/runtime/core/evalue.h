// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>
#include <optional>
#include <string_view>
#include <type_traits>

namespace executorch::runtime {

struct EValue;

namespace internal {

// EValue::to<Tensor>() returns a reference from lvalue EValues; every other T is by value.
template <typename T>
struct evalue_to_const_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_const_ref_overload_return<executorch::aten::Tensor> {
  using type = const executorch::aten::Tensor&;
};
template <typename T>
struct evalue_to_ref_overload_return {
  using type = T;
};
template <>
struct evalue_to_ref_overload_return<executorch::aten::Tensor> {
  using type = executorch::aten::Tensor&;
};

} // namespace internal

// A list whose elements live in other EValues (`wrapped_vals`); get() unboxes them into the
// caller-provided `unwrapped_vals` array (same size) and returns a view of it. Both arrays are
// owned by the caller, as in the real runtime.
template <typename T>
class BoxedEvalueList {
public:
  BoxedEvalueList() = default;
  BoxedEvalueList(EValue** wrapped_vals, T* unwrapped_vals, int size)
      : wrapped_(wrapped_vals), unwrapped_(unwrapped_vals), size_(size_t(size)) {
    ET_CHECK_MSG(wrapped_vals != nullptr && unwrapped_vals != nullptr && size >= 0,
                 "bad BoxedEvalueList");
  }

  executorch::aten::ArrayRef<T> get() const;

private:
  EValue** wrapped_ = nullptr;
  T* unwrapped_ = nullptr;
  size_t size_ = 0;
};

// A tagged value passed to and from kernels. Strings and lists point at caller-owned storage
// (ArrayRef<char>, ArrayRef<double>, ArrayRef<bool>, BoxedEvalueList<...>) which must outlive
// the EValue (the stand-in does not reject null pointers). Accessors with the wrong tag log a Fatal
// message and abort, like ET_CHECK.
struct EValue {
  Tag tag;

  EValue() : tag(Tag::None) {}
  /* implicit */ EValue(int64_t i) : tag(Tag::Int), int_(i) {}
  /* implicit */ EValue(double d) : tag(Tag::Double), double_(d) {}
  /* implicit */ EValue(bool b) : tag(Tag::Bool), bool_(b) {}
  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isBoolean()) {
      tag = Tag::Bool;
      bool_ = s.to<bool>();
    } else if (s.isFloatingPoint()) {
      tag = Tag::Double;
      double_ = s.to<double>();
    } else {
      tag = Tag::Int;
      int_ = s.to<int64_t>();
    }
  }
  /* implicit */ EValue(executorch::aten::Tensor t) : tag(Tag::Tensor), tensor_(t) {}
  /* implicit */ EValue(executorch::aten::ArrayRef<char>* s) : tag(Tag::String), string_(s) {}
  /* implicit */ EValue(BoxedEvalueList<int64_t>* l) : tag(Tag::ListInt), int_list_(l) {}
  /* implicit */ EValue(executorch::aten::ArrayRef<double>* l)
      : tag(Tag::ListDouble), double_list_(l) {}
  /* implicit */ EValue(executorch::aten::ArrayRef<bool>* l) : tag(Tag::ListBool), bool_list_(l) {}
  /* implicit */ EValue(BoxedEvalueList<executorch::aten::Tensor>* l)
      : tag(Tag::ListTensor), tensor_list_(l) {}
  /* implicit */ EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>>* l)
      : tag(Tag::ListOptionalTensor), optional_tensor_list_(l) {}
  // Other pointers must not silently become bool.
  template <typename T>
  explicit EValue(T* value) = delete;

  bool isNone() const { return tag == Tag::None; }
  bool isInt() const { return tag == Tag::Int; }
  bool isDouble() const { return tag == Tag::Double; }
  bool isBool() const { return tag == Tag::Bool; }
  bool isScalar() const { return isInt() || isDouble() || isBool(); }
  bool isTensor() const { return tag == Tag::Tensor; }
  bool isString() const { return tag == Tag::String; }
  bool isIntList() const { return tag == Tag::ListInt; }
  bool isDoubleList() const { return tag == Tag::ListDouble; }
  bool isBoolList() const { return tag == Tag::ListBool; }
  bool isTensorList() const { return tag == Tag::ListTensor; }
  bool isListOptionalTensor() const { return tag == Tag::ListOptionalTensor; }

  int64_t toInt() const { return checked(Tag::Int, "an Int").int_; }
  double toDouble() const { return checked(Tag::Double, "a Double").double_; }
  bool toBool() const { return checked(Tag::Bool, "a Bool").bool_; }
  executorch::aten::Scalar toScalar() const {
    ET_CHECK_MSG(isScalar(), "EValue is not a Scalar (tag %u).", unsigned(tag));
    if (isDouble()) {
      return double_;
    }
    return isBool() ? executorch::aten::Scalar(bool_) : executorch::aten::Scalar(int_);
  }
  executorch::aten::Tensor& toTensor() & {
    checked(Tag::Tensor, "a Tensor");
    return *tensor_;
  }
  const executorch::aten::Tensor& toTensor() const& {
    return *checked(Tag::Tensor, "a Tensor").tensor_;
  }
  // Moves the tensor out; the EValue becomes None.
  executorch::aten::Tensor toTensor() && {
    checked(Tag::Tensor, "a Tensor");
    executorch::aten::Tensor t = *tensor_;
    tensor_.reset();
    tag = Tag::None;
    return t;
  }
  std::string_view toString() const {
    const auto* s = checked(Tag::String, "a String").string_;
    return std::string_view(s->data(), s->size());
  }
  executorch::aten::ArrayRef<int64_t> toIntList() const {
    return checked(Tag::ListInt, "an Int List").int_list_->get();
  }
  executorch::aten::ArrayRef<double> toDoubleList() const {
    return *checked(Tag::ListDouble, "a Double List").double_list_;
  }
  executorch::aten::ArrayRef<bool> toBoolList() const {
    return *checked(Tag::ListBool, "a Bool List").bool_list_;
  }
  executorch::aten::ArrayRef<executorch::aten::Tensor> toTensorList() const {
    return checked(Tag::ListTensor, "a Tensor List").tensor_list_->get();
  }
  executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>> toListOptionalTensor() const {
    return checked(Tag::ListOptionalTensor, "a List Optional Tensor").optional_tensor_list_->get();
  }
  // These four are stored as Int.
  executorch::aten::ScalarType toScalarType() const {
    return executorch::aten::ScalarType(checked(Tag::Int, "a ScalarType").int_);
  }
  executorch::aten::MemoryFormat toMemoryFormat() const {
    return executorch::aten::MemoryFormat(checked(Tag::Int, "a MemoryFormat").int_);
  }
  executorch::aten::Layout toLayout() const {
    return executorch::aten::Layout(checked(Tag::Int, "a Layout").int_);
  }
  executorch::aten::Device toDevice() const {
    const int64_t type = checked(Tag::Int, "a Device").int_;
    return executorch::aten::Device(executorch::aten::DeviceType(type), -1);
  }

  // Defined for the same T as the real runtime (see convert()); anything else fails to compile
  // here (and to link with the real runtime).
  template <typename T>
  T to() && {
    if constexpr (std::is_same_v<T, executorch::aten::Tensor>) {
      return std::move(*this).toTensor();
    } else {
      return convert<T>();
    }
  }
  template <typename T>
  typename internal::evalue_to_const_ref_overload_return<T>::type to() const& {
    if constexpr (std::is_same_v<T, executorch::aten::Tensor>) {
      return toTensor();
    } else {
      return convert<T>();
    }
  }
  template <typename T>
  typename internal::evalue_to_ref_overload_return<T>::type to() & {
    if constexpr (std::is_same_v<T, executorch::aten::Tensor>) {
      return toTensor();
    } else {
      return convert<T>();
    }
  }

  // None -> nullopt, otherwise to<T>().
  template <typename T>
  std::optional<T> toOptional() const {
    if (isNone()) {
      return std::nullopt;
    }
    return this->to<T>();
  }

private:
  template <typename T>
  static constexpr bool kUnsupported = false;

  const EValue& checked(Tag expected, const char* what) const {
    ET_CHECK_MSG(tag == expected, "EValue is not %s (tag %u, expected %u).", what, unsigned(tag),
                 unsigned(expected));
    return *this;
  }

  template <typename T>
  T convert() const {
    namespace ea = ::executorch::aten;
    if constexpr (std::is_same_v<T, ea::Scalar>) {
      return toScalar();
    } else if constexpr (std::is_same_v<T, int64_t>) {
      return toInt();
    } else if constexpr (std::is_same_v<T, bool>) {
      return toBool();
    } else if constexpr (std::is_same_v<T, double>) {
      return toDouble();
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return toString();
    } else if constexpr (std::is_same_v<T, ea::ScalarType>) {
      return toScalarType();
    } else if constexpr (std::is_same_v<T, ea::MemoryFormat>) {
      return toMemoryFormat();
    } else if constexpr (std::is_same_v<T, ea::Layout>) {
      return toLayout();
    } else if constexpr (std::is_same_v<T, ea::Device>) {
      return toDevice();
    } else if constexpr (std::is_same_v<T, ea::ArrayRef<int64_t>>) {
      return toIntList();
    } else if constexpr (std::is_same_v<T, ea::ArrayRef<double>>) {
      return toDoubleList();
    } else if constexpr (std::is_same_v<T, ea::ArrayRef<bool>>) {
      return toBoolList();
    } else if constexpr (std::is_same_v<T, ea::ArrayRef<ea::Tensor>>) {
      return toTensorList();
    } else if constexpr (std::is_same_v<T, ea::ArrayRef<std::optional<ea::Tensor>>>) {
      return toListOptionalTensor();
    } else if constexpr (std::is_same_v<T, std::optional<ea::Tensor>> ||
                         std::is_same_v<T, std::optional<ea::ArrayRef<int64_t>>> ||
                         std::is_same_v<T, std::optional<ea::ArrayRef<double>>> ||
                         std::is_same_v<T, std::optional<ea::ArrayRef<bool>>> ||
                         std::is_same_v<T, std::optional<ea::ArrayRef<ea::Tensor>>>) {
      return toOptional<typename T::value_type>();
    } else {
      static_assert(kUnsupported<T>, "ExecuTorch defines no EValue::to<T>() for this T");
    }
  }

  union {
    int64_t int_ = 0; // Also ScalarType, MemoryFormat, Layout and Device.
    double double_;
    bool bool_;
    executorch::aten::ArrayRef<char>* string_;
    executorch::aten::ArrayRef<double>* double_list_;
    executorch::aten::ArrayRef<bool>* bool_list_;
    BoxedEvalueList<int64_t>* int_list_;
    BoxedEvalueList<executorch::aten::Tensor>* tensor_list_;
    BoxedEvalueList<std::optional<executorch::aten::Tensor>>* optional_tensor_list_;
  };
  std::optional<executorch::aten::Tensor> tensor_;
};

template <typename T>
executorch::aten::ArrayRef<T> BoxedEvalueList<T>::get() const {
  for (size_t i = 0; i < size_; ++i) {
    ET_CHECK(wrapped_[i] != nullptr);
    unwrapped_[i] = wrapped_[i]->template to<T>();
  }
  return executorch::aten::ArrayRef<T>(unwrapped_, size_);
}

} // namespace executorch::runtime

namespace torch::executor {
using ::executorch::runtime::BoxedEvalueList;
using ::executorch::runtime::EValue;
} // namespace torch::executor
