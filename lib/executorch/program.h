// ExecuTorch program files (.pte): which operators a model calls, and with
// which tensor dtypes and dim orders (the kernel keys the runtime looks its
// kernels up by). A model's needs are known before it runs: `opscan check
// --model` compares them with the libraries of a build, and
// `--operators-from` builds only what a model needs. Only the program's
// FlatBuffer is read (see program.fbs): constants and segments are not.
#pragma once

#include "diag/diag.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::executorch {

// The file identifier of an ExecuTorch program, at bytes 4..8.
inline constexpr std::string_view kIdentifier = "ET12";

// Whether `bytes` (a file's first bytes, at least 8) carry that identifier.
bool looks_like_program(std::string_view bytes);

// A tensor a kernel call passes: what its kernel key is made of.
struct TensorMeta {
  int scalar_type = 0;            // ExecuTorch's ScalarType (6: Float)
  std::vector<uint8_t> dim_order; // empty for a 0-dim tensor
  friend bool operator==(const TensorMeta&, const TensorMeta&) = default;
};

// Where an instruction is: its chain and its index in the chain.
struct Position {
  size_t chain = 0;
  size_t instruction = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

// A KernelCall: the operator it calls and the tensors among its arguments,
// in argument order (tensor lists and other values do not count).
struct Call {
  size_t op_index = 0; // into Plan::operators
  std::vector<TensorMeta> tensors;
  Position position;
  std::vector<size_t> tensor_args; // each tensor's position among the call's arguments
  friend bool operator==(const Call&, const Call&) = default;
};

// A DelegateCall: a backend runs part of the plan; its kernels are the
// backend's business, not the kernel registry's.
struct DelegateCall {
  std::string backend; // the delegate's id ("XnnpackBackend"); empty if unknown
  Position position;
  friend bool operator==(const DelegateCall&, const DelegateCall&) = default;
};

// One execution plan (a method: "forward").
struct Plan {
  std::string name;
  std::vector<std::string> operators; // "aten::add.out", "aten::relu" (no overload)
  std::vector<Call> calls;
  std::vector<DelegateCall> delegate_calls;
  friend bool operator==(const Plan&, const Plan&) = default;
};

struct Program {
  uint32_t version = 0;
  std::vector<Plan> plans;
  friend bool operator==(const Program&, const Program&) = default;
};

// The kernel key the runtime builds for a call: "v1/" and, per tensor,
// "<dtype>;<dim order, comma-joined>", joined by '|'; empty when the call
// passes no tensor (the fallback kernel serves it).
std::string kernel_key(const std::vector<TensorMeta>& tensors);

struct ReadResult {
  std::optional<Program> program; // nullopt when the file is refused
  diag::Diagnostics diagnostics;
};

// Reads a program from a file's bytes (`path` is for messages). With an
// extended header ("eh00" at byte 8), only its first program_size bytes are
// the program. The FlatBuffer is verified whole before anything is read,
// then every index checked. Each refusal is one error located at `path`
// naming the byte offset or the plan, chain and instruction:
//   opscan-pte-identifier     not an ExecuTorch program (no "ET12")
//   opscan-pte-header         a malformed extended header, or one whose
//                             program_size exceeds the file
//   opscan-pte-invalid        a damaged or truncated FlatBuffer
//   opscan-pte-index          an operator or value index out of range
//   opscan-pte-operator-name  an empty or non-UTF-8 operator name
ReadResult read_program(std::string_view bytes, const std::string& path);

// The program size an extended header at the start of `bytes` records
// (bytes: at least the first 32 of the file), or nullopt without one; for
// reading only the program part of a large file. A malformed header gives
// nullopt too (read_program reports it).
std::optional<uint64_t> program_size(std::string_view bytes);

// What a program needs of the kernel registry, operator by operator: the
// kernel keys its calls build ("" for a call without tensors) and the
// plans that call it.
struct Need {
  std::set<std::string> keys;
  std::set<std::string> plans;
  // Per key, the first call that builds it: its tensors and their argument
  // positions, to name an argument whose dim order no kernel serves.
  std::map<std::string, Call> first_call;
};
std::map<std::string, Need> needed_operators(const Program& program);

// Whether a program's operator ("aten::sym_size.int") is one of the prim
// ops ExecuTorch's runtime registers itself (kernels/prim_ops): those of
// namespace executorch_prim, and aten::sym_size.int, aten::sym_numel and
// aten::_local_scalar_dense. No kernel library serves them; a selective
// build selects them apart (ExecuTorch's selected_prim_ops.h).
bool is_prim_op(std::string_view op);

} // namespace opscan::executorch
