// ExecuTorch programs written by the tests: one method, "forward", made of
// kernel calls, described in the JSON form of the checkout's
// schema/program.fbs and compiled by flatc (test/common/pte.h), so that each
// argument kind and return convention the schema has can be put in front of
// the real executor and the generated wrappers. Every tensor is memory
// planned (buffer 1), as ExecuTorch's exporter plans them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace et_real {

class ProgramJson {
public:
  // A tensor of `scalar_type` (the schema's name: "FLOAT", "LONG", ...);
  // `dim_order` empty: contiguous.
  int tensor(const std::string& scalar_type, std::vector<int32_t> sizes,
             std::vector<uint8_t> dim_order = {}) {
    size_t bytes = scalar_type == "LONG" || scalar_type == "DOUBLE" ? 8 : 4;
    if (scalar_type == "BOOL")
      bytes = 1;
    for (int32_t size : sizes)
      bytes *= static_cast<size_t>(size);
    if (dim_order.empty())
      for (size_t i = 0; i < sizes.size(); ++i)
        dim_order.push_back(static_cast<uint8_t>(i));
    nlohmann::json allocation = {{"memory_id", 1}, {"memory_offset_low", planned_}};
    planned_ += (bytes + 15) / 16 * 16;
    return add("Tensor", {{"scalar_type", scalar_type},
                          {"sizes", sizes},
                          {"dim_order", dim_order},
                          {"allocation_info", allocation}});
  }
  int none() { return add("Null", nlohmann::json::object()); }
  int integer(int64_t v) { return add("Int", {{"int_val", v}}); }
  int real(double v) { return add("Double", {{"double_val", v}}); }
  int boolean(bool v) { return add("Bool", {{"bool_val", v}}); }
  int string(const std::string& v) { return add("String", {{"string_val", v}}); }
  // An int[]: its items are values of their own, as the emitter writes them.
  int int_list(const std::vector<int64_t>& items) {
    std::vector<int> indices;
    for (int64_t item : items)
      indices.push_back(integer(item));
    return add("IntList", {{"items", indices}});
  }
  int double_list(const std::vector<double>& items) {
    return add("DoubleList", {{"items", items}});
  }
  int tensor_list(const std::vector<int>& tensors) {
    return add("TensorList", {{"items", tensors}});
  }
  // Tensor?[]: -1 is a hole (None).
  int optional_tensor_list(const std::vector<int>& tensors) {
    return add("OptionalTensorList", {{"items", tensors}});
  }

  // A call of operator `name` (`ns::op`) overload `overload`; `args` as the
  // executor passes them: the arguments, out arguments included, then one
  // value for what the call returns.
  void call(const std::string& name, const std::string& overload, std::vector<int> args) {
    int op = -1;
    for (size_t i = 0; i < operators_.size(); ++i)
      if (operators_[i]["name"] == name && operators_[i]["overload"] == overload)
        op = static_cast<int>(i);
    if (op < 0) {
      op = static_cast<int>(operators_.size());
      operators_.push_back({{"name", name}, {"overload", overload}});
    }
    instructions_.push_back({{"instr_args_type", "KernelCall"},
                             {"instr_args", {{"op_index", op}, {"args", std::move(args)}}}});
  }

  // The program, with `inputs` and `outputs` (value indices) as the method's.
  std::string json(const std::vector<int>& inputs, const std::vector<int>& outputs) const {
    nlohmann::json plan = {
        {"name", "forward"},
        {"values", values_},
        {"inputs", inputs},
        {"outputs", outputs},
        {"chains", {{{"inputs", inputs}, {"outputs", outputs}, {"instructions", instructions_}}}},
        {"operators", operators_},
        {"delegates", nlohmann::json::array()},
        {"non_const_buffer_sizes", {0, planned_}}};
    nlohmann::json program = {{"version", 0},
                              {"execution_plan", {plan}},
                              {"constant_buffer", {{{"storage", nlohmann::json::array()}}}},
                              {"backend_delegate_data", nlohmann::json::array()},
                              {"segments", nlohmann::json::array()}};
    return program.dump();
  }

private:
  int add(const char* type, nlohmann::json val) {
    values_.push_back({{"val_type", type}, {"val", std::move(val)}});
    return static_cast<int>(values_.size()) - 1;
  }
  nlohmann::json values_ = nlohmann::json::array();
  nlohmann::json operators_ = nlohmann::json::array();
  nlohmann::json instructions_ = nlohmann::json::array();
  uint64_t planned_ = 0;
};

} // namespace et_real
