// The fixture of tests whose programs they write themselves (ProgramJson):
// each compiled by flatc (test/common/pte.h) with the checkout's
// schema/program.fbs (OPSCAN_PTE_SCHEMA, including from
// OPSCAN_PTE_SCHEMA_DIR) into a temporary directory, then loaded by the real
// executor.
#pragma once

#include "pte.h"

#include <cstdint>
#include <et_real/program_json.h>
#include <et_real/program_run.h>
#include <et_stand_in/tensor_maker.h>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace et_real {

class WrittenPrograms : public ::testing::Test {
protected:
  // `program`'s method loaded (its load errors are the run's), with
  // `kernels` as its method-scoped kernel registry when not empty.
  ProgramRun& load(const ProgramJson& program, const std::vector<int>& inputs,
                   const std::vector<int>& outputs,
                   executorch::runtime::Span<const executorch::runtime::Kernel> kernels = {}) {
    const std::string binary = opscan::testing::flatc_binary(
        program.json(inputs, outputs), OPSCAN_PTE_SCHEMA, OPSCAN_PTE_SCHEMA_DIR);
    opscan::testing::write_file(dir_.path() / "program.pte", binary);
    run_ = std::make_unique<ProgramRun>((dir_.path() / "program.pte").string(), "forward", kernels);
    return *run_;
  }

  // A float tensor input of a program: its value, sizes and elements.
  struct Input {
    int value;
    std::vector<int32_t> sizes;
    std::vector<float> elements;
  };

  // `program` loaded and run on `inputs`; loading or running failing fails
  // the test (HasFailure()). The inputs' tensors live until the next run.
  ProgramRun& run_program(const ProgramJson& program, const std::vector<Input>& inputs,
                          const std::vector<int>& outputs) {
    std::vector<int> values;
    for (const Input& input : inputs)
      values.push_back(input.value);
    ProgramRun& run = load(program, values, outputs);
    EXPECT_EQ(run.load_error, executorch::runtime::Error::Ok);
    tensors_.clear();
    if (run.load_error != executorch::runtime::Error::Ok)
      return run;
    std::vector<executorch::runtime::EValue> evalues;
    for (const Input& input : inputs)
      tensors_.push_back(et_stand_in::OwnedTensor::make<float>(input.sizes, input.elements));
    for (et_stand_in::OwnedTensor& tensor : tensors_)
      evalues.emplace_back(tensor.tensor());
    EXPECT_EQ(run.run(evalues), executorch::runtime::Error::Ok);
    return run;
  }

  // `program` run on its one input, value `x`: a float tensor of `sizes`
  // holding `values`; the elements of its output `out` (type T). Loading and
  // running must succeed.
  template <typename T = float>
  std::vector<T> run_on(const ProgramJson& program, int x, const std::vector<int32_t>& sizes,
                        const std::vector<float>& values, int out) {
    ProgramRun& run = run_program(program, {{x, sizes, values}}, {out});
    if (HasFailure())
      return {};
    return values_of<T>(run.output(0));
  }

  template <typename T>
  static std::vector<T> values_of(const executorch::runtime::EValue& value) {
    const auto& tensor = value.toTensor();
    const T* data = tensor.const_data_ptr<T>();
    return std::vector<T>(data, data + tensor.numel());
  }

  opscan::testing::TempDir dir_;
  std::unique_ptr<ProgramRun> run_;
  std::vector<et_stand_in::OwnedTensor> tensors_;
};

} // namespace et_real
