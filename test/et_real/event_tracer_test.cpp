// What the generated wrappers report to ExecuTorch's own event tracer hooks
// and profiler (the real runtime only: all_types_test.cpp checks the
// stand-in's). The types library, generated in named mode, is called through
// the registry with a context holding an EventTracer that records its calls,
// as ExecuTorch's executor calls a kernel; with ET_EVENT_TRACER_ENABLED each
// call is one profiling event named as ExecuTorch's own wrappers name it,
// around the logging of its result, and with PROFILING_ENABLED it is one
// event of ExecuTorch's profiler.
#include "RegisterKernels.h"

#include <cstring>
#include <et_stand_in/tensor_maker.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/profiler.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using et_stand_in::OwnedTensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::ChainID;
using executorch::runtime::DebugHandle;
using executorch::runtime::DelegateDebugIntId;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Result;
using executorch::runtime::Span;

// Records the calls the wrappers make; the rest of the interface is the
// executor's and delegates' and must not be called.
class RecordingTracer : public EventTracer {
public:
  EventTracerEntry start_profiling(const char* name, ChainID, DebugHandle) override {
    events.push_back(std::string("start ") + name);
    return EventTracerEntry{};
  }
  void end_profiling(EventTracerEntry) override { events.push_back("end"); }
  Result<bool> log_evalue(const EValue& value, LoggedEValueType type) override {
    events.push_back(type == LoggedEValueType::kIntermediateOutput ? "log output" : "log program");
    logged.push_back(&value);
    return true;
  }
  std::vector<std::string> events;
  std::vector<const EValue*> logged;

  void create_event_block(const char*) override { unexpected(); }
  EventTracerEntry start_profiling_delegate(const char*, DelegateDebugIntId) override {
    return unexpected(), EventTracerEntry{};
  }
  void end_profiling_delegate(EventTracerEntry, const void*, size_t) override { unexpected(); }
  void log_profiling_delegate(const char*, DelegateDebugIntId, et_timestamp_t, et_timestamp_t,
                              const void*, size_t) override {
    unexpected();
  }
  void track_allocation(executorch::runtime::AllocatorID, size_t) override { unexpected(); }
  executorch::runtime::AllocatorID track_allocator(const char*) override {
    return unexpected(), 0;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const executorch::aten::Tensor&) override {
    return unexpected(), false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const ArrayRef<executorch::aten::Tensor>) override {
    return unexpected(), false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const int&) override {
    return unexpected(), false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const bool&) override {
    return unexpected(), false;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                const double&) override {
    return unexpected(), false;
  }
  void set_delegation_intermediate_output_filter(
      executorch::runtime::EventTracerFilterBase*) override {
    unexpected();
  }

private:
  void unexpected() { events.push_back("unexpected call"); }
};

class Registered : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_EQ(torch::executor::register_types_kernels(), Error::Ok); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new Registered);

OwnedTensor doubles(std::vector<double> values) {
  return OwnedTensor::make<double>({int32_t(values.size())}, values);
}

Error call(const char* name, std::vector<EValue>& values, KernelRuntimeContext& context) {
  auto op = executorch::runtime::get_op_function_from_registry(name);
  EXPECT_TRUE(op.ok()) << name;
  if (!op.ok())
    return op.error();
  std::vector<EValue*> stack;
  for (EValue& v : values)
    stack.push_back(&v);
  (*op.get())(context, Span<EValue*>(stack.data(), stack.size()));
  return context.failure_state();
}

#if defined(ET_EVENT_TRACER_ENABLED)
constexpr bool kTracing = true;
#else
constexpr bool kTracing = false;
#endif

TEST(RealEventTracer, AnOutVariantIsProfiledAndItsOutArgumentLogged) {
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> values = {self.tensor(), out.tensor(), EValue()};
  RecordingTracer tracer;
  tracer.set_event_tracer_debug_level(
      executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
  KernelRuntimeContext context(&tracer);
  ASSERT_EQ(call("types::tensor.out", values, context), Error::Ok);
  EXPECT_EQ(out.values<double>(), std::vector<double>{7});
  if (kTracing) {
    EXPECT_EQ(tracer.events,
              (std::vector<std::string>{"start native_call_tensor.out", "log output", "end"}));
    EXPECT_EQ(tracer.logged, std::vector<const EValue*>{&values[1]});
  } else {
    EXPECT_TRUE(tracer.events.empty());
  }
}

TEST(RealEventTracer, AFunctionalResultIsLoggedFromTheReturnSlot) {
  OwnedTensor self = doubles({1, 2, 6});
  std::vector<EValue> values = {self.tensor(), EValue()};
  RecordingTracer tracer;
  tracer.set_event_tracer_debug_level(
      executorch::runtime::EventTracerDebugLogLevel::kIntermediateOutputs);
  KernelRuntimeContext context(&tracer);
  ASSERT_EQ(call("types::count", values, context), Error::Ok);
  EXPECT_EQ(values[1].toInt(), 3);
  if (kTracing) {
    EXPECT_EQ(tracer.events,
              (std::vector<std::string>{"start native_call_count", "log output", "end"}));
    EXPECT_EQ(tracer.logged, std::vector<const EValue*>{&values[1]});
  }
}

// ExecuTorch's levels decide: no output logging unless asked for, no
// operator profiling at kProfileMethodOnly.
TEST(RealEventTracer, TheTracersLevelsDecide) {
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> values = {self.tensor(), out.tensor(), EValue()};
  RecordingTracer tracer;
  KernelRuntimeContext context(&tracer);
  ASSERT_EQ(call("types::tensor.out", values, context), Error::Ok);
  if (kTracing) {
    EXPECT_EQ(tracer.events, (std::vector<std::string>{"start native_call_tensor.out", "end"}));
  }
  tracer.events.clear();
  tracer.set_event_tracer_profiling_level(
      executorch::runtime::EventTracerProfilingLevel::kProfileMethodOnly);
  ASSERT_EQ(call("types::tensor.out", values, context), Error::Ok);
  EXPECT_TRUE(tracer.events.empty());
}

TEST(RealEventTracer, NoTracerNoEvents) {
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> values = {self.tensor(), out.tensor(), EValue()};
  KernelRuntimeContext context;
  ASSERT_EQ(call("types::tensor.out", values, context), Error::Ok);
  EXPECT_EQ(out.values<double>(), std::vector<double>{7});
}

#if defined(PROFILING_ENABLED)
TEST(RealProfiler, EachCallIsOneEventOfExecuTorchsProfiler) {
  executorch::runtime::profiler_init();
  OwnedTensor self = doubles({7}), out = doubles({0});
  std::vector<EValue> values = {self.tensor(), out.tensor(), EValue()};
  KernelRuntimeContext context;
  ASSERT_EQ(call("types::tensor.out", values, context), Error::Ok);
  executorch::runtime::prof_result_t result;
  EXECUTORCH_DUMP_PROFILE_RESULTS(&result);
  ASSERT_EQ(result.num_blocks, 1u);
  const auto* header = reinterpret_cast<const executorch::runtime::prof_header_t*>(
      result.prof_data + executorch::runtime::prof_header_offset);
  ASSERT_EQ(header->prof_entries, 1u);
  const auto* event = reinterpret_cast<const executorch::runtime::prof_event_t*>(
      result.prof_data + executorch::runtime::prof_events_offset);
  EXPECT_EQ(std::string(event->name, strnlen(event->name, PROF_NAME_MAX_LEN)),
            "native_call_tensor.out");
  EXPECT_GE(event->end_time, event->start_time);
}
#endif

} // namespace
