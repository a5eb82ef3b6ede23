// A program's method loaded and run by ExecuTorch's real executor, as its
// executor_runner does: the file data loader, Program::load with full
// verification, the method's planned buffers allocated as MethodMeta sizes
// them, load_method, then inputs set, execute and the outputs read. Each
// step's error is kept (the first one), so a test can expect a failure at the
// step where it belongs.
//
// With OPSCAN_ET_REAL_OUTPUTS naming a directory, each successful run also
// appends its output tensors (dtype, sizes, data bytes) to
// <directory>/<test suite>.<test name>.bin: the runs of two builds (opscan's
// registration and the peer's) are then compared byte for byte.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace et_real {

class ProgramRun {
public:
  using Error = executorch::runtime::Error;

  // `kernels`, when not empty, is the method's own kernel registry
  // (load_method's kernel_registry), searched before the global one.
  explicit ProgramRun(const std::string& path, const char* method_name = "forward",
                      executorch::runtime::Span<const executorch::runtime::Kernel> kernels = {}) {
    using namespace executorch::runtime;
    auto loader = executorch::extension::FileDataLoader::from(path.c_str());
    if (!loader.ok()) {
      load_error = loader.error();
      return;
    }
    loader_.emplace(std::move(*loader));
    auto program = Program::load(&*loader_, Program::Verification::InternalConsistency);
    if (!program.ok()) {
      load_error = program.error();
      return;
    }
    program_.emplace(std::move(*program));
    program_loaded = true;
    auto meta = program_->method_meta(method_name);
    if (!meta.ok()) {
      load_error = meta.error();
      return;
    }
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      planned_.emplace_back(static_cast<size_t>(*meta->memory_planned_buffer_size(i)));
      spans_.emplace_back(planned_.back().data(), planned_.back().size());
    }
    planned_memory_.emplace(Span<Span<uint8_t>>(spans_.data(), spans_.size()));
    memory_manager_.emplace(&method_allocator_, &*planned_memory_, &temp_allocator_);
    auto method =
        program_->load_method(method_name, &*memory_manager_, nullptr, nullptr, nullptr, kernels);
    if (!method.ok()) {
      load_error = method.error();
      return;
    }
    method_.emplace(std::move(*method));
  }

  // Sets the inputs, in order, and executes; Error::Ok when all went well.
  Error run(const std::vector<executorch::runtime::EValue>& inputs) {
    if (!method_)
      return load_error;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (Error e = method_->set_input(inputs[i], i); e != Error::Ok)
        return e;
    Error e = method_->execute();
    if (e == Error::Ok)
      record();
    return e;
  }

  executorch::runtime::Method& method() { return *method_; }
  const executorch::runtime::EValue& output(size_t i) const { return method_->get_output(i); }

  // Program::load succeeded.
  bool program_loaded = false;
  // Error::Ok once the method is loaded.
  Error load_error = Error::Ok;

private:
  void record() const {
    const char* dir = std::getenv("OPSCAN_ET_REAL_OUTPUTS");
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    if (dir == nullptr || test == nullptr)
      return;
    std::filesystem::create_directories(dir);
    std::ofstream out(std::filesystem::path(dir) /
                          (std::string(test->test_suite_name()) + "." + test->name() + ".bin"),
                      std::ios::binary | std::ios::app);
    for (size_t i = 0; i < method_->outputs_size(); ++i) {
      const auto& value = method_->get_output(i);
      if (!value.isTensor())
        continue;
      const auto& tensor = value.toTensor();
      out << static_cast<int>(tensor.scalar_type());
      for (auto size : tensor.sizes())
        out << ' ' << size;
      out << ':';
      out.write(static_cast<const char*>(tensor.const_data_ptr()),
                static_cast<std::streamsize>(tensor.nbytes()));
      out << '\n';
    }
  }

  static constexpr uint32_t kPoolSize = 1 << 20;
  std::optional<executorch::extension::FileDataLoader> loader_;
  std::optional<executorch::runtime::Program> program_;
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<executorch::runtime::Span<uint8_t>> spans_;
  std::vector<uint8_t> method_pool_ = std::vector<uint8_t>(kPoolSize);
  std::vector<uint8_t> temp_pool_ = std::vector<uint8_t>(kPoolSize);
  executorch::runtime::MemoryAllocator method_allocator_{kPoolSize, method_pool_.data()};
  executorch::runtime::MemoryAllocator temp_allocator_{kPoolSize, temp_pool_.data()};
  std::optional<executorch::runtime::HierarchicalAllocator> planned_memory_;
  std::optional<executorch::runtime::MemoryManager> memory_manager_;
  std::optional<executorch::runtime::Method> method_;
};

} // namespace et_real
