// opscan test stand-in for part of ExecuTorch's runtime API (not ExecuTorch code).
// Self-test of the stand-in.
#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

namespace ea = executorch::aten;
using et_stand_in::OwnedTensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;
using executorch::runtime::TensorMeta;

// The aliases code written against the real runtime relies on.
static_assert(std::is_same_v<ea::Tensor, executorch::runtime::etensor::Tensor>);
static_assert(std::is_same_v<exec_aten::Tensor, torch::executor::Tensor>);
static_assert(std::is_same_v<ea::Scalar, torch::executor::Scalar>);
static_assert(std::is_same_v<ea::ArrayRef<int64_t>, torch::executor::ArrayRef<int64_t>>);
static_assert(std::is_same_v<ea::IntArrayRef, ArrayRef<int64_t>>);
static_assert(std::is_same_v<ea::OptionalIntArrayRef, std::optional<ArrayRef<int64_t>>>);
static_assert(std::is_same_v<ea::TensorList, ArrayRef<ea::Tensor>>);
static_assert(std::is_same_v<ea::SizesType, int32_t>);
static_assert(std::is_same_v<torch::executor::RuntimeContext, KernelRuntimeContext>);
static_assert(std::is_same_v<torch::executor::Kernel, Kernel>);
static_assert(std::is_same_v<torch::executor::Error, Error>);
static_assert(int(ea::ScalarType::Long) == 4 && int(ea::ScalarType::Float) == 6);
static_assert(int(ea::ScalarType::Bool) == 11 && int(ea::ScalarType::UInt64) == 29);
static_assert(int(Error::InvalidProgram) == 0x23 && int(Error::OperatorMissing) == 0x14);
static_assert(int(Tag::Int) == 4 && int(Tag::ListOptionalTensor) == 11);

// to<T>() return types.
template <typename T>
using ToRef = decltype(std::declval<EValue&>().to<T>());
template <typename T>
using ToConstRef = decltype(std::declval<const EValue&>().to<T>());
template <typename T>
using ToRvalue = decltype(std::declval<EValue&&>().to<T>());
static_assert(std::is_same_v<ToRef<ea::Tensor>, ea::Tensor&>);
static_assert(std::is_same_v<ToConstRef<ea::Tensor>, const ea::Tensor&>);
static_assert(std::is_same_v<ToRvalue<ea::Tensor>, ea::Tensor>);
static_assert(std::is_same_v<ToRef<ea::Scalar>, ea::Scalar>);
static_assert(std::is_same_v<ToRef<ArrayRef<int64_t>>, ArrayRef<int64_t>>);
static_assert(std::is_same_v<ToConstRef<std::optional<ea::Tensor>>, std::optional<ea::Tensor>>);

TEST(Tensor, Metadata) {
  OwnedTensor owned = et_stand_in::make_float_tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const ea::Tensor& t = owned.tensor();
  EXPECT_EQ(t.scalar_type(), ea::ScalarType::Float);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.size(1), 3);
  EXPECT_EQ(t.sizes().size(), 2u);
  EXPECT_EQ(t.sizes()[0], 2);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(t.const_data_ptr<float>()[4], 5.0f);
  t.mutable_data_ptr<float>()[4] = 50.0f;
  EXPECT_EQ(owned.values<float>()[4], 50.0f);

  OwnedTensor moved = std::move(owned);
  EXPECT_EQ(moved.tensor().const_data_ptr<float>()[4], 50.0f);
  OwnedTensor longs = et_stand_in::make_long_tensor({}, {7});
  EXPECT_EQ(longs.tensor().dim(), 0);
  EXPECT_EQ(longs.tensor().numel(), 1);
  EXPECT_EQ(longs.tensor().nbytes(), 8u);
  EXPECT_EQ(executorch::runtime::elementSize(ea::ScalarType::Double), 8u);
}

TEST(Scalar, Conversions) {
  ea::Scalar i(int32_t(3)), d(2.5), b(true);
  EXPECT_TRUE(i.isIntegral(false));
  EXPECT_FALSE(b.isIntegral(false));
  EXPECT_TRUE(b.isIntegral(true));
  EXPECT_TRUE(b.isBoolean());
  EXPECT_TRUE(d.isFloatingPoint());
  EXPECT_EQ(i.to<int64_t>(), 3);
  EXPECT_EQ(b.to<int64_t>(), 1);
  EXPECT_EQ(d.to<double>(), 2.5);
  EXPECT_TRUE(b.to<bool>());
}

TEST(EValue, ScalarsAndEnums) {
  EValue none, i(int64_t(7)), d(1.5), b(false);
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(i.toInt(), 7);
  EXPECT_EQ(i.to<int64_t>(), 7);
  EXPECT_EQ(d.toDouble(), 1.5);
  EXPECT_EQ(d.to<double>(), 1.5);
  EXPECT_FALSE(b.toBool());
  EXPECT_FALSE(b.to<bool>());
  EXPECT_EQ(i.toScalar().to<int64_t>(), 7);
  EXPECT_EQ(d.to<ea::Scalar>().to<double>(), 1.5);
  EXPECT_TRUE(b.to<ea::Scalar>().isBoolean());
  EXPECT_EQ(EValue(ea::Scalar(2.0)).tag, Tag::Double);
  EXPECT_EQ(EValue(ea::Scalar(int64_t(2))).tag, Tag::Int);

  EValue dtype(static_cast<int64_t>(ea::ScalarType::Float)), format(int64_t(1)), layout(int64_t(0));
  EXPECT_EQ(dtype.toScalarType(), ea::ScalarType::Float);
  EXPECT_EQ(dtype.to<ea::ScalarType>(), ea::ScalarType::Float);
  EXPECT_EQ(format.to<ea::MemoryFormat>(), ea::MemoryFormat::Preserve);
  EXPECT_EQ(format.toMemoryFormat(), ea::MemoryFormat::Preserve);
  EXPECT_EQ(layout.to<ea::Layout>(), ea::Layout::Strided);
  EXPECT_EQ(layout.toLayout(), ea::Layout::Strided);
  EXPECT_EQ(layout.to<ea::Device>().type(), ea::DeviceType::CPU);
  EXPECT_EQ(layout.toDevice().index(), -1);

  EXPECT_EQ(none.toOptional<int64_t>(), std::nullopt);
  EXPECT_EQ(i.toOptional<int64_t>(), 7);
  EXPECT_EQ(d.toOptional<double>(), 1.5);
  EXPECT_EQ(dtype.toOptional<ea::ScalarType>(), ea::ScalarType::Float);
  EXPECT_FALSE(none.toOptional<ea::Scalar>().has_value());
}

TEST(StandInDeathTest, ChecksAbort) {
  OwnedTensor scalar = et_stand_in::make_long_tensor({}, {7});
  EXPECT_DEATH(scalar.tensor().size(0), "out of range");
  EXPECT_DEATH(ea::Scalar(int64_t(1)).to<double>(), "not a Double");
  EValue i(int64_t(1)), none;
  EXPECT_DEATH(i.toDouble(), "EValue is not a Double");
  EXPECT_DEATH(i.toTensor(), "EValue is not a Tensor");
  EXPECT_DEATH(none.toScalar(), "not a Scalar");
  EXPECT_DEATH(i.toIntList(), "not an Int List");
  EXPECT_DEATH(EValue(1.0).toOptional<int64_t>(), "not an Int");
}

TEST(EValue, Tensor) {
  OwnedTensor owned = et_stand_in::make_float_tensor({2}, {1, 2});
  EValue v(owned.tensor());
  EXPECT_TRUE(v.isTensor());
  ea::Tensor& ref = v.to<ea::Tensor>();
  EXPECT_EQ(&ref, &v.toTensor());
  EXPECT_EQ(ref.const_data_ptr<float>(), owned.tensor().const_data_ptr<float>());
  const EValue& cv = v;
  EXPECT_EQ(&cv.to<ea::Tensor>(), &ref);
  std::optional<ea::Tensor> opt = v.toOptional<ea::Tensor>();
  ASSERT_TRUE(opt.has_value());
  EXPECT_EQ(opt->numel(), 2);
  EXPECT_TRUE(v.to<std::optional<ea::Tensor>>().has_value());
  EXPECT_FALSE(EValue().toOptional<ea::Tensor>().has_value());
  EXPECT_FALSE(EValue().to<std::optional<ea::Tensor>>().has_value());

  ea::Tensor moved = std::move(v).to<ea::Tensor>();
  EXPECT_EQ(moved.numel(), 2);
  EXPECT_TRUE(v.isNone());
}

TEST(EValue, StringAndLists) {
  const char text[] = {'a', 'b', 'c'};
  ArrayRef<char> chars(text, 3);
  EValue s(&chars);
  EXPECT_EQ(s.toString(), "abc");
  EXPECT_EQ(s.to<std::string_view>(), "abc");

  EValue i0(int64_t(4)), i1(int64_t(5));
  EValue* wrapped_ints[] = {&i0, &i1};
  int64_t ints[2];
  BoxedEvalueList<int64_t> int_list(wrapped_ints, ints, 2);
  EValue il(&int_list);
  EXPECT_EQ(il.toIntList(), ArrayRef<int64_t>(std::vector<int64_t>{4, 5}.data(), 2));
  EXPECT_EQ(il.to<ArrayRef<int64_t>>()[1], 5);
  EXPECT_EQ(il.to<ea::OptionalIntArrayRef>()->size(), 2u);
  EXPECT_FALSE(EValue().to<ea::OptionalIntArrayRef>().has_value());
  EXPECT_EQ(il.toOptional<ArrayRef<int64_t>>()->size(), 2u);

  double doubles[] = {0.5, 1.5};
  ArrayRef<double> double_ref(doubles);
  EValue dl(&double_ref);
  EXPECT_EQ(dl.toDoubleList()[1], 1.5);
  EXPECT_EQ(dl.to<ArrayRef<double>>().size(), 2u);
  EXPECT_TRUE(dl.to<std::optional<ArrayRef<double>>>().has_value());

  bool bools[] = {true, false, true};
  ArrayRef<bool> bool_ref(bools);
  EValue bl(&bool_ref);
  EXPECT_FALSE(bl.toBoolList()[1]);
  EXPECT_EQ(bl.to<ArrayRef<bool>>().size(), 3u);
  EXPECT_TRUE(bl.to<std::optional<ArrayRef<bool>>>().has_value());

  OwnedTensor a = et_stand_in::make_float_tensor({1}, {1});
  OwnedTensor b = et_stand_in::make_long_tensor({2}, {2, 3});
  EValue ta(a.tensor()), tb(b.tensor()), none;
  EValue* wrapped_tensors[] = {&ta, &tb};
  ea::Tensor tensors[] = {a.tensor(), a.tensor()};
  BoxedEvalueList<ea::Tensor> tensor_list(wrapped_tensors, tensors, 2);
  EValue tl(&tensor_list);
  EXPECT_EQ(tl.toTensorList()[1].scalar_type(), ea::ScalarType::Long);
  EXPECT_EQ(tl.to<ea::TensorList>().size(), 2u);
  EXPECT_TRUE(tl.to<std::optional<ea::TensorList>>().has_value());

  EValue* wrapped_optionals[] = {&ta, &none};
  std::optional<ea::Tensor> optionals[2];
  BoxedEvalueList<std::optional<ea::Tensor>> optional_list(wrapped_optionals, optionals, 2);
  EValue ol(&optional_list);
  ArrayRef<std::optional<ea::Tensor>> got = ol.toListOptionalTensor();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].has_value());
  EXPECT_FALSE(got[1].has_value());
  EXPECT_EQ(ol.to<ArrayRef<std::optional<ea::Tensor>>>().size(), 2u);
}

TEST(KernelKey, Equality) {
  EXPECT_EQ(KernelKey(), KernelKey());
  EXPECT_TRUE(KernelKey().is_fallback());
  EXPECT_EQ(KernelKey("v1/6;0"), KernelKey("v1/6;0"));
  EXPECT_NE(KernelKey("v1/6;0"), KernelKey("v1/4;0"));
  EXPECT_NE(KernelKey(), KernelKey("v1/6;0"));
  EXPECT_NE(KernelKey("v1/6;0"), KernelKey());
  EXPECT_STREQ(KernelKey("v1/6;0").data(), "v1/6;0");
}

void add_out(KernelRuntimeContext& context, Span<EValue*> stack) {
  ET_KERNEL_CHECK(context, stack.size() == 4, InvalidArgument, );
  const ea::Tensor& a = stack[0]->to<ea::Tensor>();
  const ea::Tensor& b = stack[1]->to<ea::Tensor>();
  const ea::Scalar alpha = stack[2]->to<ea::Scalar>();
  ea::Tensor& out = stack[3]->to<ea::Tensor>();
  for (ssize_t i = 0; i < out.numel(); ++i) {
    out.mutable_data_ptr<float>()[i] =
        a.const_data_ptr<float>()[i] + float(alpha.to<double>()) * b.const_data_ptr<float>()[i];
  }
}
void other(KernelRuntimeContext& context, Span<EValue*>) {
  context.fail(Error::NotImplemented);
}

const Kernel kKernels[] = {Kernel("test::add.out", add_out),
                           Kernel("test::add.out", KernelKey("v1/4;0"), other)};

TEST(Registry, RegisterLookupCall) {
  size_t before = executorch::runtime::get_registered_kernels().size();
  ASSERT_EQ(executorch::runtime::register_kernels({kKernels}), Error::Ok);
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), before + 2);
  EXPECT_TRUE(executorch::runtime::registry_has_op_function("test::add.out"));
  EXPECT_FALSE(executorch::runtime::registry_has_op_function("test::missing"));
  Result<executorch::runtime::OpFunction> missing =
      executorch::runtime::get_op_function_from_registry("test::missing");
  EXPECT_EQ(missing.error(), Error::OperatorMissing);

  Result<executorch::runtime::OpFunction> fn =
      executorch::runtime::get_op_function_from_registry("test::add.out");
  ASSERT_TRUE(fn.ok());
  OwnedTensor a = et_stand_in::make_float_tensor({2}, {1, 2});
  OwnedTensor b = et_stand_in::make_float_tensor({2}, {10, 20});
  OwnedTensor out(ea::ScalarType::Float, {2});
  EValue values[] = {a.tensor(), b.tensor(), 2.0, out.tensor()};
  EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  KernelRuntimeContext context;
  // (GCC 12 rejects passing the array itself through a function pointer, so wrap it.)
  (*fn)(context, Span<EValue*>(stack));
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{21, 42}));
  (*fn)(context, Span<EValue*>(stack, 3));
  EXPECT_EQ(context.failure_state(), Error::InvalidArgument);

  // A matching dtype key selects the specialized kernel.
  uint8_t dim_order[] = {0};
  TensorMeta meta[] = {TensorMeta(ea::ScalarType::Long, dim_order)};
  KernelRuntimeContext context2;
  executorch::runtime::get_op_function_from_registry("test::add.out", meta).get()(context2, {});
  EXPECT_EQ(context2.failure_state(), Error::NotImplemented);
}

TEST(RegistryDeathTest, DuplicateAborts) {
  static const Kernel k[] = {Kernel("test::dup", add_out)};
  ASSERT_EQ(executorch::runtime::register_kernel(k[0]), Error::Ok);
  EXPECT_DEATH((void)executorch::runtime::register_kernels({k}), "Re-registering test::dup");
  static const Kernel keyed = Kernel("test::dup", KernelKey("v1/6;0"), add_out);
  EXPECT_EQ(executorch::runtime::register_kernel(keyed), Error::Ok);
}

TEST(RegistryDeathTest, CapacityAborts) {
  static const Kernel many[2001];
  EXPECT_DEATH((void)executorch::runtime::register_kernels({many}), "Cannot register 2001");
}

TEST(Log, Formats) {
  testing::internal::CaptureStderr();
  ET_LOG(Error, "x=%d %s", 3, "y");
  ET_LOG(Debug, "hidden");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "[Error] x=3 y\n");
}

} // namespace
