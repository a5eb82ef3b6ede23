// A model (.pte) against a build's libraries (`check --model`), and `--operators-from`.
#include "driver/model.h"

#include "executorch/kernel_key.h"
#include "executorch/runtime.h"
#include "support/files.h"
#include "support/text.h"
#include "yaml/selected_operators.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <map>
#include <set>

namespace opscan::driver {
namespace {

// The most of a selected_operators.yaml read: a file naming every ATen
// operator is well under a MiB, and the reader builds a tree.
constexpr std::uintmax_t kMaxSelectionBytes = std::uintmax_t{16} << 20;

// The bytes an extended header's fields need (lib/pte checks the rest).
constexpr std::uintmax_t kHead = 32;

diag::Diagnostic io_error(const std::string& path, std::string_view what, const std::string& why) {
  return diag::make_error("opscan-io", {path, 0, 0, 0},
                          fmt::format("cannot {} {}: {}", what, path, why));
}

// "'forward', 'decode'"
std::string plans_of(const std::set<std::string>& plans) {
  std::vector<std::string> quoted;
  for (const std::string& plan : plans)
    quoted.push_back(support::quoted(plan));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

std::string described_key(const std::string& key) {
  return key.empty() ? "calls without tensors" : "kernel key '" + key + "'";
}

// A library's name for messages: its record's, else its file's.
std::string library_name(const IrFile& file) {
  return file.module.library ? file.module.library->name : file.path;
}

} // namespace

ReadModel read_model(const std::string& path) {
  ReadModel out;
  auto fail = [&](const std::string& why) {
    out.diagnostics.push_back(io_error(path, "read the model", why));
    out.status = Status::failure;
    return out;
  };
  // Any size: only the program part is read.
  const std::string why =
      support::unreadable_reason(path, std::numeric_limits<std::uintmax_t>::max());
  if (!why.empty())
    return fail(why);
  std::error_code ec;
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec)
    return fail(ec.message());
  std::string error;
  std::optional<std::string> head = support::read_file_head(path, kHead, &error);
  if (!head)
    return fail(error);
  std::uintmax_t size = file_size;
  if (std::optional<uint64_t> program = executorch::program_size(*head); program && *program <= size)
    size = *program;
  if (size > support::kMaxInputBytes) {
    return fail(fmt::format("its program is {} bytes, more than the {} MiB opscan reads", size,
                            support::kMaxInputBytes >> 20));
  }
  std::optional<std::string> bytes = support::read_file_head(path, size, &error);
  if (!bytes)
    return fail(error);
  executorch::ReadResult read = executorch::read_program(*bytes, path);
  out.program = std::move(read.program);
  out.diagnostics = std::move(read.diagnostics);
  out.status = status_of(out.diagnostics);
  return out;
}

ReadSelection read_operator_selection(const std::string& path) {
  ReadSelection out;
  std::string error;
  std::optional<std::string> head = support::read_file_head(path, kHead, &error);
  if (!head) {
    out.diagnostics.push_back(io_error(path, "read --operators-from", error));
    out.status = Status::failure;
    return out;
  }
  ir::OperatorSelection selection;
  selection.keyed_by = executorch::kKernelKeyField;
  if (executorch::looks_like_program(*head)) {
    ReadModel model = read_model(path);
    out.diagnostics = std::move(model.diagnostics);
    out.status = model.status;
    if (!model.program)
      return out;
    for (auto& [op, need] : executorch::needed_operators(*model.program)) {
      if (executorch::is_prim_op(op)) {
        out.prim_ops.push_back(op);
        continue;
      }
      selection.operators.push_back(
          {op,
           std::move(need.keys),
           false,
           {path, 0, 0, 0},
           fmt::format("{}, plan{} {}", path, need.plans.size() == 1 ? "" : "s",
                       plans_of(need.plans))});
    }
    out.selection = std::move(selection);
    return out;
  }
  std::optional<std::string> text = support::read_file(path, &error, kMaxSelectionBytes);
  if (!text) {
    out.diagnostics.push_back(io_error(path, "read --operators-from", error));
    out.status = Status::failure;
    return out;
  }
  std::optional<yaml::SelectedOperators> read =
      yaml::parse_selected_operators(*text, path, out.diagnostics);
  if (!read) {
    out.status = Status::errors;
    return out;
  }
  selection.all_operators = read->include_all_operators;
  std::set<std::string> prim_ops;
  for (yaml::SelectedOperator& op : read->operators) {
    if (executorch::is_prim_op(op.name)) {
      prim_ops.insert(op.name);
      continue;
    }
    std::optional<std::set<std::string>> keys;
    if (op.keys) {
      keys.emplace();
      for (const yaml::SelectedKey& key : *op.keys) {
        if (!key.key.empty()) {
          auto bad =
              executorch::check_kernel_key(key.key, 0, std::numeric_limits<size_t>::max());
          if (bad) {
            diag::Location at = key.where;
            out.diagnostics.push_back(
                diag::make_error("opscan-kernel-key", at,
                                 fmt::format("kernel key {} of {}: {}", support::quoted(key.key),
                                             support::quoted(op.name), bad->message)));
            continue;
          }
        }
        keys->insert(key.key);
      }
    }
    selection.operators.push_back(
        {std::move(op.name), std::move(keys), op.include_all_overloads, op.where, path});
  }
  out.status = status_of(out.diagnostics);
  if (out.status == Status::ok) {
    out.selection = std::move(selection);
    out.prim_ops.assign(prim_ops.begin(), prim_ops.end());
  }
  return out;
}

namespace {

// A kernel of a library that counts.
struct Served {
  const IrFile* library;
  const ir::Kernel* kernel;
};
using ServedByOperator = std::map<std::string, std::vector<Served>>;

// Every kernel of the libraries that serve an ExecuTorch program, by
// operator; a library of another target is a warning, and not counted.
ServedByOperator served_by_operator(const std::vector<IrFile>& libraries,
                                    diag::Diagnostics& diags, size_t& counted) {
  ServedByOperator kernels;
  for (const IrFile& file : libraries) {
    if (file.module.library && file.module.library->target != executorch::kTargetName) {
      diags.push_back(diag::make_warning(
          "opscan-model-library-target", {file.path, 0, 0, 0},
          fmt::format("{}: library '{}' is for the {} target; its kernels do not serve an "
                      "ExecuTorch program and are not counted",
                      file.path, file.module.library->name, file.module.library->target)));
      continue;
    }
    ++counted;
    for (const ir::Kernel& k : file.module.kernels)
      kernels[k.op.str()].push_back({&file, &k});
  }
  return kernels;
}

diag::Note note_at(const Served& s, const std::string& what) {
  return diag::Note{fmt::format("library '{}' {}: {}", library_name(*s.library), what,
                                ir::describe(*s.kernel, emit::builtin_targets().fields())),
                    s.kernel->location};
}

// An operator the program calls that no library has, with a suggestion:
// another overload of the same operator ("aten::add.Scalar_out" for
// "aten::add.out") before any name a few edits away, which may be another
// operator altogether ("aten::abs.out").
diag::Diagnostic missing_operator(const std::string& path, const std::string& op,
                                  const std::set<std::string>& plans,
                                  const ServedByOperator& kernels) {
  const std::string base = op.substr(0, op.find('.'));
  std::vector<std::string_view> overloads, candidates;
  for (const auto& [name, served] : kernels) {
    candidates.push_back(name);
    if (name == base || name.starts_with(base + "."))
      overloads.push_back(name);
  }
  std::string message =
      fmt::format("{}: operator '{}' (called by plan{} {}) is in none of the libraries", path, op,
                  plans.size() == 1 ? "" : "s", plans_of(plans));
  std::optional<std::string_view> close;
  if (!overloads.empty()) {
    // The closest overload, else the first (by name): any is a better guess
    // than another operator.
    close = schema::closest_match(op, overloads);
    if (!close)
      close = overloads.front();
  } else {
    close = schema::closest_match(op, candidates);
  }
  if (close)
    message += fmt::format("; did you mean '{}'?", *close);
  return diag::make_error("opscan-model-missing-operator", {path, 0, 0, 0}, message);
}

// Two libraries registering one kernel (operator and key): the runtime
// aborts at the second registration, whatever the model calls.
void check_served_twice(const std::string& path, const std::string& op,
                        const std::vector<Served>& served, diag::Diagnostics& diags) {
  std::map<std::string, std::vector<const Served*>> by_key;
  for (const Served& s : served)
    by_key[std::string(s.kernel->field(executorch::kKernelKeyField))].push_back(&s);
  for (const auto& [key, registered] : by_key) {
    std::set<const IrFile*> libs;
    for (const Served* s : registered)
      libs.insert(s->library);
    if (libs.size() < 2)
      continue;
    diag::Diagnostic d = diag::make_error(
        "opscan-model-served-twice", {path, 0, 0, 0},
        fmt::format("{}: operator '{}' ({}) is registered by {} libraries: the runtime aborts "
                    "at the second registration; keep it in one",
                    path, op, key.empty() ? "its fallback kernel" : "kernel key '" + key + "'",
                    libs.size()));
    for (const Served* s : registered)
      d.notes.push_back(note_at(*s, "registers it"));
    diags.push_back(std::move(d));
  }
}

// A kernel key's entries ("6;0,1"), without "v1/"; none for "".
std::vector<std::string_view> key_entries(std::string_view key) {
  std::vector<std::string_view> entries;
  if (!key.starts_with("v1/"))
    return entries;
  key.remove_prefix(3);
  for (size_t at = 0;;) {
    const size_t bar = key.find('|', at);
    entries.push_back(key.substr(at, bar == std::string_view::npos ? bar : bar - at));
    if (bar == std::string_view::npos)
      return entries;
    at = bar + 1;
  }
}

std::string_view dtype_of(std::string_view entry) {
  return entry.substr(0, entry.find(';'));
}

bool is_default_dim_order(const std::vector<uint8_t>& order) {
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d)
      return false;
  }
  return true;
}

// "0,2,3,1 (channels-last)": the memory formats PyTorch names.
std::string described_dim_order(const std::vector<uint8_t>& order) {
  std::string text = fmt::format("{}", fmt::join(order, ","));
  if (is_default_dim_order(order))
    return text + " (contiguous)";
  if (order == std::vector<uint8_t>{0, 2, 3, 1})
    return text + " (channels-last)";
  if (order == std::vector<uint8_t>{0, 2, 3, 4, 1})
    return text + " (channels-last 3d)";
  return text;
}

// The argument at `position` of a call to `kernel`, by its schema's name:
// "argument 'self'". A program passes the schema's arguments, then its
// returns (an out variant's return is its out argument again); a position
// past both is named by its number.
std::string argument_name(const ir::Kernel& kernel, size_t position) {
  if (position < kernel.arguments.size())
    return fmt::format("argument '{}'", kernel.arguments[position].schema.name);
  const size_t ret = position - kernel.arguments.size();
  if (ret < kernel.returns.size()) {
    const schema::Return& r = kernel.returns[ret];
    if (!r.name.empty())
      return fmt::format("return '{}'", r.name);
    for (const ir::Argument& a : kernel.arguments) {
      if (r.type.alias && a.schema.type.alias == r.type.alias)
        return fmt::format("'{}' (returned)", a.schema.name);
    }
    return fmt::format("return {}", ret);
  }
  return fmt::format("argument {}", position);
}

// The keyed kernel whose key is closest to `key`: as many entries, the
// fewest dtypes that differ, then the fewest entries (the first of equally
// close ones); nullptr when none has as many entries.
const Served* closest_keyed(const std::string& key, const std::vector<Served>& served) {
  const std::vector<std::string_view> wanted = key_entries(key);
  const Served* best = nullptr;
  std::pair<size_t, size_t> best_distance;
  for (const Served& s : served) {
    const std::vector<std::string_view> have =
        key_entries(s.kernel->field(executorch::kKernelKeyField));
    if (have.empty() || have.size() != wanted.size())
      continue;
    std::pair<size_t, size_t> distance{0, 0};
    for (size_t i = 0; i < have.size(); ++i) {
      distance.first += dtype_of(have[i]) != dtype_of(wanted[i]) ? 1 : 0;
      distance.second += have[i] != wanted[i] ? 1 : 0;
    }
    if (best == nullptr || distance < best_distance) {
      best = &s;
      best_distance = distance;
    }
  }
  return best;
}

// A key that only keyed kernels of other dim orders could serve: the
// closest key has every dtype the call has, so the dim orders are what
// differ. The error names each argument whose dim order differs.
std::optional<diag::Diagnostic> dim_order_mismatch(const std::string& path, const std::string& op,
                                                   const std::string& key,
                                                   const executorch::Need& need,
                                                   const std::vector<Served>& served) {
  const Served* closest = closest_keyed(key, served);
  auto call = need.first_call.find(key);
  if (closest == nullptr || call == need.first_call.end())
    return std::nullopt;
  const std::string_view closest_key = closest->kernel->field(executorch::kKernelKeyField);
  const std::vector<std::string_view> wanted = key_entries(key);
  const std::vector<std::string_view> have = key_entries(closest_key);
  std::vector<std::string> differing;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (dtype_of(wanted[i]) != dtype_of(have[i]))
      return std::nullopt;
    if (wanted[i] != have[i] && i < call->second.tensors.size()) {
      differing.push_back(fmt::format("{} in dim order {}",
                                      argument_name(*closest->kernel, call->second.tensor_args[i]),
                                      described_dim_order(call->second.tensors[i].dim_order)));
    }
  }
  diag::Diagnostic d = diag::make_error(
      "opscan-model-dim-order", {path, 0, 0, 0},
      fmt::format("{}: operator '{}' is called with {} (kernel key '{}', by plan{} {}), and no "
                  "library has a kernel for that dim order or a fallback kernel (one without "
                  "key); the closest key is '{}'",
                  path, op, fmt::join(differing, ", "), key, need.plans.size() == 1 ? "" : "s",
                  plans_of(need.plans), closest_key));
  d.notes.push_back(note_at(*closest, "has the closest"));
  return d;
}

// A key a fallback kernel serves although some of its tensors are not in
// the default dim order: a fallback serves every key when the method loads,
// and only the kernel itself can tell, when it runs, whether it handles
// that dim order (ExecuTorch's portable kernels check, and fail the call).
void note_fallback_dim_order(const std::string& path, const std::string& op, const std::string& key,
                             const executorch::Need& need, const Served& fallback,
                             diag::Diagnostics& diags) {
  auto call = need.first_call.find(key);
  if (call == need.first_call.end())
    return;
  std::vector<std::string> others;
  for (size_t i = 0; i < call->second.tensors.size(); ++i) {
    if (!is_default_dim_order(call->second.tensors[i].dim_order)) {
      others.push_back(fmt::format("{} in dim order {}",
                                   argument_name(*fallback.kernel, call->second.tensor_args[i]),
                                   described_dim_order(call->second.tensors[i].dim_order)));
    }
  }
  if (others.empty())
    return;
  diag::Diagnostic d = diag::make_note(
      "opscan-model-dim-order-fallback", {path, 0, 0, 0},
      fmt::format("{}: operator '{}' is called with {} (by plan{} {}); its fallback kernel "
                  "serves every key, so the method loads, and the kernel must handle that dim "
                  "order when it runs",
                  path, op, fmt::join(others, ", "), need.plans.size() == 1 ? "" : "s",
                  plans_of(need.plans)));
  d.notes.push_back(note_at(fallback, "serves it"));
  diags.push_back(std::move(d));
}

// A kernel keyed for the call's arguments only, as ExecuTorch's YAML keys
// them: the runtime keys every tensor on the call's stack, the out tensor
// passed again in the return slot too, so the key it looks up has one more
// entry.
std::optional<diag::Note> argument_only_key(const std::string& key, const Served& s) {
  const std::string_view have = s.kernel->field(executorch::kKernelKeyField);
  const size_t last = key.rfind('|');
  if (have.empty() || s.kernel->returns.empty() || last == std::string::npos ||
      std::string_view(key).substr(0, last) != have)
    return std::nullopt;
  return diag::Note{fmt::format("its key '{}' has no entry for the returned tensor: the call "
                                "passes one in its return slot, and ExecuTorch's runtime keys "
                                "every tensor of a call, so the key it looks up is '{}'",
                                have, key),
                    s.kernel->location};
}

// What serves each kernel key the program calls `op` with: the kernels of
// that key, else the fallback kernels; a key neither serves is an error.
void serve_keys(const std::string& path, const std::string& op,
                const executorch::Need& need, const std::vector<Served>& served,
                ModelCheck& out) {
  for (const std::string& key : need.keys) {
    std::vector<const Served*> exact, fallback;
    for (const Served& s : served) {
      const std::string_view served_key = s.kernel->field(executorch::kKernelKeyField);
      if (!key.empty() && served_key == key)
        exact.push_back(&s);
      if (served_key.empty())
        fallback.push_back(&s);
    }
    const std::vector<const Served*>& servers = exact.empty() ? fallback : exact;
    if (servers.empty()) {
      if (std::optional<diag::Diagnostic> d = dim_order_mismatch(path, op, key, need, served)) {
        out.diagnostics.push_back(std::move(*d));
        out.rows.push_back({op, key, "", nullptr, false, true});
        continue;
      }
      diag::Diagnostic d = diag::make_error(
          "opscan-model-missing-kernel-key", {path, 0, 0, 0},
          fmt::format("{}: operator '{}' is called with {} (by plan{} {}), and no library has "
                      "a kernel with that key or a fallback kernel (one without key)",
                      path, op, described_key(key), need.plans.size() == 1 ? "" : "s",
                      plans_of(need.plans)));
      for (const Served& s : served) {
        d.notes.push_back(note_at(s, "has"));
        if (std::optional<diag::Note> n = argument_only_key(key, s))
          d.notes.push_back(std::move(*n));
      }
      out.diagnostics.push_back(std::move(d));
      out.rows.push_back({op, key, "", nullptr, false});
      continue;
    }
    if (exact.empty())
      note_fallback_dim_order(path, op, key, need, *fallback.front(), out.diagnostics);
    for (const Served* s : servers)
      out.rows.push_back({op, key, library_name(*s->library), s->kernel, exact.empty()});
  }
}

// Delegate calls: their backends' kernels are not opscan's to check.
void note_delegates(const executorch::Program& program, const std::string& path,
                    diag::Diagnostics& diags) {
  for (const executorch::Plan& plan : program.plans) {
    if (plan.delegate_calls.empty())
      continue;
    std::set<std::string> backends;
    for (const executorch::DelegateCall& call : plan.delegate_calls)
      backends.insert(call.backend.empty() ? "(unnamed)" : call.backend);
    diags.push_back(diag::make_note(
        "opscan-model-delegate", {path, 0, 0, 0},
        fmt::format("{}: plan {} makes {} delegate call{} (backend{} {}): the program needs "
                    "{} linked in; their kernels are not checked here",
                    path, support::quoted(plan.name), plan.delegate_calls.size(),
                    plan.delegate_calls.size() == 1 ? "" : "s", backends.size() == 1 ? "" : "s",
                    plans_of(backends), backends.size() == 1 ? "that backend" : "those backends")));
  }
}

} // namespace

ModelCheck check_model(const executorch::Program& program, const std::string& path,
                       const std::vector<IrFile>& libraries) {
  ModelCheck out;
  const ServedByOperator kernels = served_by_operator(libraries, out.diagnostics, out.libraries);
  for (const auto& [op, need] : executorch::needed_operators(program)) {
    if (executorch::is_prim_op(op)) {
      for (const std::string& key : need.keys)
        out.rows.push_back({op, key, kPrimOps, nullptr, false});
      continue;
    }
    auto found = kernels.find(op);
    if (found == kernels.end()) {
      out.diagnostics.push_back(missing_operator(path, op, need.plans, kernels));
      out.missing_operators.insert(op);
      for (const std::string& key : need.keys)
        out.rows.push_back({op, key, "", nullptr, false});
      continue;
    }
    check_served_twice(path, op, found->second, out.diagnostics);
    serve_keys(path, op, need, found->second, out);
  }
  note_delegates(program, path, out.diagnostics);
  return out;
}

} // namespace opscan::driver
