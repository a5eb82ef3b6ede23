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

  // `program` loaded and run on its one input, value `x`: a float tensor of
  // `sizes` holding `values`; the elements of its output `out` (type T).
  // Loading and running must succeed.
  template <typename T = float>
  std::vector<T> run_on(const ProgramJson& program, int x, const std::vector<int32_t>& sizes,
                        const std::vector<float>& values, int out) {
    ProgramRun& run = load(program, {x}, {out});
    EXPECT_EQ(run.load_error, executorch::runtime::Error::Ok);
    if (run.load_error != executorch::runtime::Error::Ok)
      return {};
    auto input = et_stand_in::OwnedTensor::make<float>(sizes, values);
    const executorch::runtime::Error error = run.run({executorch::runtime::EValue(input.tensor())});
    EXPECT_EQ(error, executorch::runtime::Error::Ok);
    if (error != executorch::runtime::Error::Ok)
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
};

} // namespace et_real
