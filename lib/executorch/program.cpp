// Reading an ExecuTorch program (.pte): the operators each plan calls and their kernel keys.
#include "executorch/program.h"

#include "program_generated.h"
#include "support/text.h"

#include <cstring>
#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>
#include <limits>

namespace opscan::executorch {
namespace {

// The extended header ExecuTorch's serializer may put after the identifier:
// "eh00", its length (from the magic), the program's size and where the
// segments start, all little-endian.
constexpr size_t kHeaderAt = 8;
constexpr std::string_view kHeaderMagic = "eh00";
constexpr uint32_t kMinHeaderLength = 24;

uint32_t read_u32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i)
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

uint64_t read_u64(std::string_view bytes, size_t at) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

bool has_header(std::string_view bytes) {
  return bytes.size() >= kHeaderAt + kHeaderMagic.size() &&
         bytes.substr(kHeaderAt, kHeaderMagic.size()) == kHeaderMagic;
}

// Verification limits: far above any real program (a large language model
// has some hundred thousand values), low enough that a hostile file cannot
// make verification run long.
constexpr flatbuffers::uoffset_t kMaxDepth = 32;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 24;

class Reader {
public:
  Reader(const std::string& path, ReadResult& result) : path_(path), result_(result) {}

  // Every error names the file in its message: a location without a line
  // is not shown in text.
  void error(std::string code, const std::string& message) {
    result_.diagnostics.push_back(
        diag::make_error(std::move(code), {path_, 0, 0, 0}, path_ + ": " + message));
  }

  bool failed() const { return diag::has_errors(result_.diagnostics); }

  std::string where(size_t plan, const std::string& name) const {
    return fmt::format("plan {} ({})", plan, support::quoted(name));
  }

  std::optional<Plan> plan(const fb::ExecutionPlan& in, size_t index) {
    Plan out;
    if (in.name() != nullptr)
      out.name = in.name()->str();
    const std::string at = where(index, out.name);
    if (in.operators() != nullptr) {
      for (flatbuffers::uoffset_t i = 0; i < in.operators()->size(); ++i) {
        const fb::Operator* op = in.operators()->Get(i);
        const std::string name = op != nullptr && op->name() != nullptr ? op->name()->str() : "";
        const std::string overload =
            op != nullptr && op->overload() != nullptr ? op->overload()->str() : "";
        if (name.empty()) {
          error("opscan-pte-operator-name", fmt::format("{}: operator {} has no name", at, i));
          return std::nullopt;
        }
        if (!support::is_utf8(name) || !support::is_utf8(overload)) {
          error("opscan-pte-operator-name",
                fmt::format("{}: the name of operator {} is not UTF-8: {}", at, i,
                            support::quoted(overload.empty() ? name : name + "." + overload)));
          return std::nullopt;
        }
        out.operators.push_back(overload.empty() ? name : name + "." + overload);
      }
    }
    const auto* values = in.values();
    const size_t value_count = values == nullptr ? 0 : values->size();
    const size_t delegate_count = in.delegates() == nullptr ? 0 : in.delegates()->size();
    if (in.chains() == nullptr)
      return out;
    for (flatbuffers::uoffset_t c = 0; c < in.chains()->size(); ++c) {
      const fb::Chain* chain = in.chains()->Get(c);
      if (chain == nullptr || chain->instructions() == nullptr)
        continue;
      for (flatbuffers::uoffset_t n = 0; n < chain->instructions()->size(); ++n) {
        const fb::Instruction* instruction = chain->instructions()->Get(n);
        if (instruction == nullptr)
          continue;
        const std::string here = fmt::format("{}, chain {}, instruction {}", at, c, n);
        const Position position{c, n};
        if (const fb::DelegateCall* call = instruction->instr_args_as_DelegateCall()) {
          DelegateCall delegate{"", position};
          const int i = call->delegate_index();
          if (i >= 0 && static_cast<size_t>(i) < delegate_count) {
            const fb::BackendDelegate* d =
                in.delegates()->Get(static_cast<flatbuffers::uoffset_t>(i));
            if (d != nullptr && d->id() != nullptr)
              delegate.backend = d->id()->str();
          }
          out.delegate_calls.push_back(std::move(delegate));
          continue;
        }
        const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
        if (call == nullptr)
          continue;
        const int op = call->op_index();
        if (op < 0 || static_cast<size_t>(op) >= out.operators.size()) {
          error("opscan-pte-index",
                fmt::format("{}: the kernel call's operator index {} is out of range (the plan "
                            "has {} operator{})",
                            here, op, out.operators.size(), out.operators.size() == 1 ? "" : "s"));
          return std::nullopt;
        }
        Call kernel{static_cast<size_t>(op), {}, position, {}};
        if (call->args() != nullptr) {
          for (flatbuffers::uoffset_t a = 0; a < call->args()->size(); ++a) {
            const int arg = call->args()->Get(a);
            if (arg < 0 || static_cast<size_t>(arg) >= value_count) {
              error("opscan-pte-index",
                    fmt::format("{}: argument {} of the kernel call is value {}, out of range "
                                "(the plan has {} value{})",
                                here, a, arg, value_count, value_count == 1 ? "" : "s"));
              return std::nullopt;
            }
            const fb::EValue* value = values->Get(static_cast<flatbuffers::uoffset_t>(arg));
            if (value == nullptr || value->val_type() != fb::KernelTypes_Tensor)
              continue;
            const fb::Tensor* tensor = value->val_as_Tensor();
            if (tensor == nullptr) {
              error("opscan-pte-invalid",
                    fmt::format("{}: value {} is a tensor without its content", here, arg));
              return std::nullopt;
            }
            TensorMeta meta;
            meta.scalar_type = tensor->scalar_type();
            if (tensor->dim_order() != nullptr)
              meta.dim_order.assign(tensor->dim_order()->begin(), tensor->dim_order()->end());
            kernel.tensors.push_back(std::move(meta));
            kernel.tensor_args.push_back(a);
          }
        }
        out.calls.push_back(std::move(kernel));
      }
    }
    return out;
  }

private:
  const std::string& path_;
  ReadResult& result_;
};

} // namespace

bool looks_like_program(std::string_view bytes) {
  return bytes.size() >= 8 && bytes.substr(4, 4) == kIdentifier;
}

std::optional<uint64_t> program_size(std::string_view bytes) {
  if (!has_header(bytes) || bytes.size() < kHeaderAt + kMinHeaderLength)
    return std::nullopt;
  return read_u64(bytes, kHeaderAt + 8);
}

std::string kernel_key(const std::vector<TensorMeta>& tensors) {
  if (tensors.empty())
    return "";
  std::string key = "v1/";
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (i > 0)
      key += '|';
    key += std::to_string(tensors[i].scalar_type);
    key += ';';
    for (size_t d = 0; d < tensors[i].dim_order.size(); ++d) {
      if (d > 0)
        key += ',';
      key += std::to_string(tensors[i].dim_order[d]);
    }
  }
  return key;
}

ReadResult read_program(std::string_view bytes, const std::string& path) {
  ReadResult result;
  Reader reader(path, result);
  if (bytes.size() < 8) {
    reader.error("opscan-pte-identifier",
                 fmt::format("not an ExecuTorch program: {} byte{}, too short to hold a file "
                             "identifier (bytes 4 to 8)",
                             bytes.size(), bytes.size() == 1 ? "" : "s"));
    return result;
  }
  if (!looks_like_program(bytes)) {
    reader.error("opscan-pte-identifier",
                 fmt::format("not an ExecuTorch program: identifier {} at byte 4, expected '{}'",
                             support::quoted(bytes.substr(4, 4)), kIdentifier));
    return result;
  }
  size_t size = bytes.size();
  if (has_header(bytes)) {
    if (bytes.size() < kHeaderAt + kMinHeaderLength) {
      reader.error("opscan-pte-header",
                   fmt::format("the extended header at byte {} is cut off: the file ends at byte "
                               "{}, the header needs {} bytes",
                               kHeaderAt, bytes.size(), kMinHeaderLength));
      return result;
    }
    const uint32_t length = read_u32(bytes, kHeaderAt + 4);
    const uint64_t program = read_u64(bytes, kHeaderAt + 8);
    if (length < kMinHeaderLength || length > bytes.size() - kHeaderAt) {
      reader.error("opscan-pte-header",
                   fmt::format("the extended header at byte {} gives its length as {} (at byte "
                               "{}): at least {}, and within the file ({} bytes), expected",
                               kHeaderAt, length, kHeaderAt + 4, kMinHeaderLength, bytes.size()));
      return result;
    }
    if (program > bytes.size() || program < kHeaderAt + length) {
      reader.error("opscan-pte-header",
                   fmt::format("the extended header gives the program's size as {} bytes (at "
                               "byte {}), but the file has {} bytes and the header ends at byte {}",
                               program, kHeaderAt + 8, bytes.size(), kHeaderAt + length));
      return result;
    }
    size = static_cast<size_t>(program);
  }
  // The root offset must lead into the program: checked here to name it.
  const uint32_t root = read_u32(bytes, 0);
  if (root < 8 || root >= size) {
    reader.error("opscan-pte-invalid",
                 fmt::format("the root offset at byte 0 is {}, outside the program's {} bytes: "
                             "the file is damaged or truncated",
                             root, size));
    return result;
  }
  // A FlatBuffer is read in place: copied to storage aligned for its widest
  // scalar, since the verifier checks alignment and unaligned reads are not
  // allowed.
  std::vector<uint64_t> aligned((size + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), size);
  const auto* data = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(data, size, kMaxDepth, kMaxTables);
  if (!fb::VerifyProgramBuffer(verifier)) {
    reader.error("opscan-pte-invalid",
                 fmt::format("the program ({} bytes from byte 0) is not a well-formed FlatBuffer "
                             "of the ExecuTorch format (an offset, length or union leads outside "
                             "it or nests too deep): the file is damaged or truncated",
                             size));
    return result;
  }
  const fb::Program* in = fb::GetProgram(data);
  Program program;
  program.version = in->version();
  if (in->execution_plan() != nullptr) {
    for (flatbuffers::uoffset_t p = 0; p < in->execution_plan()->size(); ++p) {
      const fb::ExecutionPlan* plan = in->execution_plan()->Get(p);
      if (plan == nullptr)
        continue;
      std::optional<Plan> read = reader.plan(*plan, p);
      if (!read)
        return result;
      program.plans.push_back(std::move(*read));
    }
  }
  result.program = std::move(program);
  return result;
}

std::map<std::string, Need> needed_operators(const Program& program) {
  std::map<std::string, Need> needs;
  for (const Plan& plan : program.plans) {
    for (const Call& call : plan.calls) {
      Need& need = needs[plan.operators[call.op_index]];
      const std::string key = kernel_key(call.tensors);
      need.first_call.emplace(key, call);
      need.keys.insert(key);
      need.plans.insert(plan.name);
    }
  }
  return needs;
}

bool is_prim_op(std::string_view op) {
  return op.starts_with("executorch_prim::") || op == "aten::sym_size.int" ||
         op == "aten::sym_numel" || op == "aten::_local_scalar_dense";
}

} // namespace opscan::executorch
