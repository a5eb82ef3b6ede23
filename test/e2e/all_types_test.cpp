// End to end for every argument and return type of the ExecuTorch target:
// the kernels of test/cli/inputs/all_types.cpp and the code opscan generated
// for them (named registration) are compiled with -Wall -Wextra -Werror
// against the stand-in runtime, registered, and called through the registry
// with real EValues. Each kernel records what it received in its out tensor,
// so every value is checked on arrival. Functions.h is called directly too.
#include "Functions.h"
#include "RegisterKernels.h"

#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/profiler.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::aten::ArrayRef;
using executorch::aten::Tensor;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

OwnedTensor doubles(std::vector<double> values) {
  return OwnedTensor::make<double>({int32_t(values.size())}, values);
}

// Registers the library once for the whole test program.
class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_types_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

// Calls operator `name` through the registry with `values` as its stack (the
// last value is the return slot); `stack` receives the pointers afterwards.
Error call(const char* name, std::vector<EValue>& values, std::vector<EValue*>* stack = nullptr) {
  auto op = executorch::runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name << " is not registered";
  if (!op.ok())
    return op.error();
  std::vector<EValue*> pointers;
  for (EValue& v : values)
    pointers.push_back(&v);
  KernelRuntimeContext context;
  (*op.get())(context, Span<EValue*>(pointers.data(), pointers.size()));
  if (stack != nullptr)
    *stack = pointers;
  return context.failure_state();
}

// An EValue list of int64_t, as the runtime builds it: the list points at
// EValues holding the elements, and unboxes them into `unboxed`.
struct IntList {
  explicit IntList(std::vector<int64_t> values) : unboxed(values) {
    for (int64_t v : values)
      boxed.emplace_back(v);
    for (EValue& e : boxed)
      wrapped.push_back(&e);
    list = BoxedEvalueList<int64_t>(wrapped.data(), unboxed.data(), int(unboxed.size()));
  }
  EValue value() { return EValue(&list); }
  std::vector<int64_t> unboxed;
  std::vector<EValue> boxed;
  std::vector<EValue*> wrapped;
  BoxedEvalueList<int64_t> list;
};

TEST(AllTypes, EveryOperatorIsRegistered) {
  for (const char* name : {"types::tensor.out",
                           "types::optional_tensor.out",
                           "types::fill_optional.out",
                           "types::tensor_list.out",
                           "types::split.out",
                           "types::optional_tensor_list.out",
                           "types::scalar.out",
                           "types::ints.out",
                           "types::int_lists.out",
                           "types::floats.out",
                           "types::bools.out",
                           "types::strings.out",
                           "types::enums.out",
                           "types::sort.values",
                           "types::pick",
                           "types::fill.out",
                           "types::scale_",
                           "types::unbind.int_out",
                           "types::count",
                           "types::mean",
                           "types::is_empty",
                           "types::item"}) {
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(name)) << name;
  }
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), 22u);
}

// ---- Arguments ---------------------------------------------------------------

TEST(AllTypes, TensorAndMutableTensor) {
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> stack = {self.tensor(), out.tensor(), EValue()};
  ASSERT_EQ(call("types::tensor.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{7}));
}

TEST(AllTypes, OptionalTensor) {
  OwnedTensor self = doubles({3}), out = doubles({0, 0});
  std::vector<EValue> present = {self.tensor(), out.tensor(), EValue()};
  ASSERT_EQ(call("types::optional_tensor.out", present), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 3}));
  std::vector<EValue> absent = {EValue(), out.tensor(), EValue()};
  ASSERT_EQ(call("types::optional_tensor.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0, 0}));
}

TEST(AllTypes, MutableOptionalTensorIsWrittenThrough) {
  OwnedTensor target = doubles({0});
  std::vector<EValue> present = {EValue(2.5), target.tensor(), EValue()};
  ASSERT_EQ(call("types::fill_optional.out", present), Error::Ok);
  EXPECT_EQ(target.values<double>(), (std::vector<double>{2.5}));
  std::vector<EValue> absent = {EValue(2.5), EValue(), EValue()};
  EXPECT_EQ(call("types::fill_optional.out", absent), Error::Ok);
}

TEST(AllTypes, TensorList) {
  OwnedTensor a = doubles({1}), b = doubles({10}), out = doubles({0, 0});
  Tensor unboxed[] = {a.tensor(), b.tensor()};
  EValue boxed[] = {a.tensor(), b.tensor()};
  EValue* wrapped[] = {&boxed[0], &boxed[1]};
  BoxedEvalueList<Tensor> list(wrapped, unboxed, 2);
  std::vector<EValue> stack = {EValue(&list), out.tensor(), EValue()};
  ASSERT_EQ(call("types::tensor_list.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{2, 11}));
}

TEST(AllTypes, ListOfOutTensors) {
  OwnedTensor self = doubles({10}), first = doubles({0}), second = doubles({0});
  Tensor unboxed[] = {first.tensor(), second.tensor()};
  EValue boxed[] = {first.tensor(), second.tensor()};
  EValue* wrapped[] = {&boxed[0], &boxed[1]};
  BoxedEvalueList<Tensor> outs(wrapped, unboxed, 2);
  std::vector<EValue> values = {self.tensor(), EValue(&outs), EValue()};
  std::vector<EValue*> stack;
  ASSERT_EQ(call("types::split.out", values, &stack), Error::Ok);
  EXPECT_EQ(first.values<double>(), (std::vector<double>{10}));
  EXPECT_EQ(second.values<double>(), (std::vector<double>{11}));
  EXPECT_EQ(stack[2], &values[1]); // the return slot shows the out list
}

// Annotated with its name only: the trailing TensorList of an out variant
// returning nothing is its out list, so the return slot shows it.
TEST(AllTypes, InferredListOfOutTensors) {
  OwnedTensor self = doubles({10}), first = doubles({0}), second = doubles({0});
  Tensor unboxed[] = {first.tensor(), second.tensor()};
  EValue boxed[] = {first.tensor(), second.tensor()};
  EValue* wrapped[] = {&boxed[0], &boxed[1]};
  BoxedEvalueList<Tensor> outs(wrapped, unboxed, 2);
  std::vector<EValue> values = {self.tensor(), EValue(int64_t(5)), EValue(&outs), EValue()};
  std::vector<EValue*> stack;
  ASSERT_EQ(call("types::unbind.int_out", values, &stack), Error::Ok);
  EXPECT_EQ(first.values<double>(), (std::vector<double>{15}));
  EXPECT_EQ(second.values<double>(), (std::vector<double>{16}));
  EXPECT_EQ(stack[3], &values[2]);
}

TEST(AllTypes, ListOfOptionalTensors) {
  OwnedTensor a = doubles({4}), b = doubles({5}), out = doubles({0, 0, 0});
  std::optional<Tensor> unboxed[3];
  EValue boxed[] = {a.tensor(), EValue(), b.tensor()};
  EValue* wrapped[] = {&boxed[0], &boxed[1], &boxed[2]};
  BoxedEvalueList<std::optional<Tensor>> list(wrapped, unboxed, 3);
  std::vector<EValue> stack = {EValue(&list), out.tensor(), EValue()};
  ASSERT_EQ(call("types::optional_tensor_list.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{3, 2, 9}));
}

TEST(AllTypes, ScalarAndOptionalScalar) {
  OwnedTensor out = doubles({0, 0, 0});
  std::vector<EValue> stack = {EValue(int64_t(3)), EValue(0.5), out.tensor(), EValue()};
  ASSERT_EQ(call("types::scalar.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{3, 1, 0.5}));
  std::vector<EValue> absent = {EValue(true), EValue(), out.tensor(), EValue()};
  ASSERT_EQ(call("types::scalar.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 0, 0}));
}

TEST(AllTypes, IntSymIntAndOptionalInt) {
  OwnedTensor out = doubles({0, 0, 0});
  const int64_t big = int64_t(1) << 40; // all 64 bits arrive
  std::vector<EValue> stack = {EValue(big), EValue(int64_t(-3)), EValue(int64_t(9)), out.tensor(),
                               EValue()};
  ASSERT_EQ(call("types::ints.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{double(big), -3, 9}));
  std::vector<EValue> absent = {EValue(int64_t(1)), EValue(int64_t(2)), EValue(), out.tensor(),
                                EValue()};
  ASSERT_EQ(call("types::ints.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 2, -1}));
}

TEST(AllTypes, IntLists) {
  OwnedTensor out = doubles({0, 0, 0, 0, 0});
  IntList values({1, 2, 3}), pair({10, 20}), sizes({100}), maybe({5, 5});
  std::vector<EValue> stack = {values.value(), pair.value(), sizes.value(),
                               maybe.value(),  out.tensor(), EValue()};
  ASSERT_EQ(call("types::int_lists.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{3, 6, 30, 100, 10}));
  std::vector<EValue> absent = {values.value(), pair.value(), sizes.value(),
                                EValue(),       out.tensor(), EValue()};
  ASSERT_EQ(call("types::int_lists.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>()[4], -1);
}

TEST(AllTypes, Floats) {
  OwnedTensor out = doubles({0, 0, 0, 0});
  double values[] = {0.25, 0.5};
  ArrayRef<double> list(values, 2), maybe_list(values, 1);
  std::vector<EValue> stack = {EValue(1.5),         EValue(-2.0), EValue(&list),
                               EValue(&maybe_list), out.tensor(), EValue()};
  ASSERT_EQ(call("types::floats.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1.5, -2, 0.75, 1}));
  std::vector<EValue> absent = {EValue(1.5), EValue(),     EValue(&list),
                                EValue(),    out.tensor(), EValue()};
  ASSERT_EQ(call("types::floats.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1.5, -1, 0.75, -1}));
}

TEST(AllTypes, Bools) {
  OwnedTensor out = doubles({0, 0, 0, 0, 0});
  bool flags[] = {true, false, true};
  bool mask[] = {true, false, true}; // bits 0 and 2: 5
  ArrayRef<bool> flag_list(flags, 3), mask_list(mask, 3), maybe_flags(flags, 2);
  std::vector<EValue> stack = {
      EValue(true), EValue(false), EValue(&flag_list), EValue(&mask_list), EValue(&maybe_flags),
      out.tensor(), EValue()};
  ASSERT_EQ(call("types::bools.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{1, 0, 2, 5, 2}));
  std::vector<EValue> absent = {
      EValue(false), EValue(), EValue(&flag_list), EValue(&mask_list), EValue(),
      out.tensor(),  EValue()};
  ASSERT_EQ(call("types::bools.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0, -1, 2, 5, -1}));
}

TEST(AllTypes, Strings) {
  OwnedTensor out = doubles({0, 0, 0});
  ArrayRef<char> text("mean", 4), maybe("sum!!", 5);
  std::vector<EValue> stack = {EValue(&text), EValue(&maybe), out.tensor(), EValue()};
  ASSERT_EQ(call("types::strings.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{4, 'm', 5}));
  std::vector<EValue> absent = {EValue(&text), EValue(), out.tensor(), EValue()};
  ASSERT_EQ(call("types::strings.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>()[2], -1);
}

TEST(AllTypes, ScalarTypeMemoryFormatLayoutDeviceAndTheirOptionals) {
  // The runtime stores all four as Int.
  OwnedTensor out = doubles({0, 0, 0, 0, 0, 0, 0, 0});
  std::vector<EValue> stack = {EValue(int64_t(6)), EValue(int64_t(4)),
                               EValue(int64_t(1)), EValue(int64_t(0)),
                               EValue(int64_t(0)), EValue(int64_t(0)),
                               EValue(int64_t(1)), EValue(int64_t(0)),
                               out.tensor(),       EValue()};
  ASSERT_EQ(call("types::enums.out", stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{6, 4, 1, 0, 0, 0, 1, 0}));
  std::vector<EValue> absent = {EValue(int64_t(7)), EValue(), EValue(int64_t(0)), EValue(),
                                EValue(int64_t(0)), EValue(), EValue(int64_t(0)), EValue(),
                                out.tensor(),       EValue()};
  ASSERT_EQ(call("types::enums.out", absent), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{7, -1, 0, -1, 0, -1, 0, -1}));
}

// ---- Returns -------------------------------------------------------------------

TEST(AllTypes, SeveralOutTensors) {
  OwnedTensor self = doubles({8}), values = doubles({0}), indices = doubles({9});
  std::vector<EValue> stack = {self.tensor(), values.tensor(), indices.tensor(), EValue()};
  ASSERT_EQ(call("types::sort.values", stack), Error::Ok);
  EXPECT_EQ(values.values<double>(), (std::vector<double>{8}));
  EXPECT_EQ(indices.values<double>(), (std::vector<double>{0}));
}

TEST(AllTypes, FunctionalOpReturnsATensorInTheReturnSlot) {
  OwnedTensor a = doubles({1}), b = doubles({2});
  Tensor unboxed[] = {a.tensor(), b.tensor()};
  EValue boxed[] = {a.tensor(), b.tensor()};
  EValue* wrapped[] = {&boxed[0], &boxed[1]};
  BoxedEvalueList<Tensor> list(wrapped, unboxed, 2);
  std::vector<EValue> stack = {EValue(&list), EValue(int64_t(1)), EValue()};
  ASSERT_EQ(call("types::pick", stack), Error::Ok);
  ASSERT_TRUE(stack[2].isTensor());
  EXPECT_EQ(stack[2].toTensor().const_data_ptr<double>(), b.tensor().const_data_ptr<double>());
}

TEST(AllTypes, NoReturnWithAnOutArgument) {
  OwnedTensor out = doubles({0});
  std::vector<EValue> values = {EValue(4.5), out.tensor(), EValue()};
  std::vector<EValue*> stack;
  ASSERT_EQ(call("types::fill.out", values, &stack), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{4.5}));
  EXPECT_EQ(stack[2], &values[1]); // the return slot shows the out tensor
}

#if defined(OPSCAN_ET_STAND_IN)
// The stand-in's event tracer interface: what the wrappers report to
// ExecuTorch's event tracer (ETDump) and profiler, by default.
class RecordingTracer : public executorch::runtime::EventTracer {
public:
  executorch::runtime::EventTracerEntry start_profiling(const char* name,
                                                        executorch::runtime::ChainID,
                                                        executorch::runtime::DebugHandle) override {
    events.push_back(std::string("start ") + name);
    return {};
  }
  void end_profiling(executorch::runtime::EventTracerEntry) override { events.push_back("end"); }
  void log_evalue(const EValue& value, executorch::runtime::LoggedEValueType) override {
    events.push_back(value.isTensor() ? "log tensor" : "log other");
    logged.push_back(&value);
  }
  std::vector<std::string> events;
  std::vector<const EValue*> logged;
};

TEST(AllTypes, EachCallIsProfiledAndItsResultLogged) {
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> values = {self.tensor(), out.tensor(), EValue()};
  std::vector<EValue*> stack = {&values[0], &values[1], &values[2]};
  RecordingTracer tracer;
  KernelRuntimeContext context(&tracer);
  executorch::runtime::profiled_scopes().clear();
  auto op = executorch::runtime::get_op_function_from_registry("types::tensor.out");
  ASSERT_TRUE(op.ok());
  (*op.get())(context, Span<EValue*>(stack.data(), stack.size()));
  ASSERT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(tracer.events,
            (std::vector<std::string>{"start native_call_tensor.out", "log tensor", "end"}));
  EXPECT_EQ(tracer.logged, std::vector<const EValue*>{&values[1]}); // the out argument
  EXPECT_EQ(executorch::runtime::profiled_scopes(),
            std::vector<std::string>{"native_call_tensor.out"});
}
#endif

// A program reads an in-place operator's result from the return slot.
TEST(AllTypes, InPlaceResultIsInTheReturnSlot) {
  OwnedTensor self = doubles({3});
  std::vector<EValue> stack = {self.tensor(), EValue(2.0), EValue()};
  ASSERT_EQ(call("types::scale_", stack), Error::Ok);
  EXPECT_EQ(self.values<double>(), (std::vector<double>{6}));
  ASSERT_TRUE(stack[2].isTensor());
  EXPECT_EQ(stack[2].toTensor().const_data_ptr(), self.tensor().const_data_ptr());
}

TEST(AllTypes, IntFloatBoolAndScalarReturns) {
  OwnedTensor t = doubles({1, 2, 6});
  std::vector<EValue> count = {t.tensor(), EValue()};
  ASSERT_EQ(call("types::count", count), Error::Ok);
  EXPECT_EQ(count[1].toInt(), 3);
  std::vector<EValue> mean = {t.tensor(), EValue()};
  ASSERT_EQ(call("types::mean", mean), Error::Ok);
  EXPECT_EQ(mean[1].toDouble(), 3.0);
  std::vector<EValue> empty = {t.tensor(), EValue()};
  ASSERT_EQ(call("types::is_empty", empty), Error::Ok);
  EXPECT_EQ(empty[1].toBool(), false);
  std::vector<EValue> item = {t.tensor(), EValue()};
  ASSERT_EQ(call("types::item", item), Error::Ok);
  ASSERT_TRUE(item[1].isDouble());
  EXPECT_EQ(item[1].toScalar().to<double>(), 1.0);
}

TEST(AllTypes, WrongStackSizeFailsTheContext) {
  OwnedTensor out = doubles({0});
  std::vector<EValue> stack = {out.tensor(), EValue()}; // tensor.out needs 3 values
  EXPECT_EQ(call("types::tensor.out", stack), Error::InvalidProgram);
}

// ---- Functions.h: typed calls, no registry -----------------------------------

TEST(AllTypes, TypedCallsReachTheKernels) {
  namespace ops = torch::executor::types;
  KernelRuntimeContext context;
  OwnedTensor self = doubles({5}), out = doubles({0, 0, 0, 0, 0});
  EXPECT_EQ(&ops::tensor_outf(context, self.tensor(), out.tensor()), &out.tensor());
  EXPECT_EQ(out.values<double>()[0], 5);

  std::optional<Tensor> target = out.tensor();
  ops::fill_optional_outf(context, 1.25, target);
  EXPECT_EQ(out.values<double>()[0], 1.25);

  int64_t values[] = {1, 2};
  ops::int_lists_outf(context, ArrayRef<int64_t>(values, 2), ArrayRef<int64_t>(values, 2),
                      ArrayRef<int64_t>(values, 1), std::nullopt, out.tensor());
  EXPECT_EQ(out.values<double>(), (std::vector<double>{2, 3, 3, 1, -1}));

  ops::strings_outf(context, std::string_view("ab"), std::nullopt, out.tensor());
  EXPECT_EQ(out.values<double>(), (std::vector<double>{2, 'a', -1, 1, -1}));

  OwnedTensor sorted = doubles({0}), indices = doubles({1});
  auto [v, i] = ops::sort_outf(context, self.tensor(), sorted.tensor(), indices.tensor());
  EXPECT_EQ(&v, &sorted.tensor());
  EXPECT_EQ(&i, &indices.tensor());
  EXPECT_EQ(sorted.values<double>(), (std::vector<double>{5}));

  ops::fill_outf(context, executorch::aten::Scalar(int64_t(3)), out.tensor());
  EXPECT_EQ(out.values<double>()[0], 3);
  EXPECT_EQ(ops::count(context, self.tensor()), 1);
  EXPECT_EQ(ops::mean(context, self.tensor()), 5.0);
  EXPECT_FALSE(ops::is_empty(context, self.tensor()));
  EXPECT_EQ(ops::item(context, self.tensor()).to<double>(), 5.0);
  EXPECT_EQ(context.failure_state(), Error::Ok);
}

} // namespace
