// The optional fields of a kernel's annotation (key = "v1/6;0"). Each is
// defined once, by the target that reads it (emit::Target::fields()), with
// everything the other floors need: the scan reads and checks it from
// annotations, the IR carries it (Kernel::fields) and its JSON names it,
// and generation checks it again for the target chosen. Nothing else names
// a target's field.
#pragma once

#include "ir/ir.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscan::ir {

// What is wrong with a field's value, at a byte offset in the value.
struct FieldProblem {
  size_t offset = 0;
  std::string message;
};

struct Field {
  std::string annotation; // its name in OPSCAN_KERNEL(...): "key"
  std::string key;        // its member in the IR's kernel objects: "kernel_key"
  std::string code;       // of problems with its value: "opscan-kernel-key"
  std::string noun;       // what it is, in messages: "kernel key"
  // The field and its value in messages, "{}" standing for the value:
  // "kernel key '{}'", "dispatch key {}".
  std::string shown;
  // The value of a kernel that sets none, for the targets that read the
  // field; "" leaves it unset.
  std::string default_value;
  // Whether the runtime understands `value` for `kernel`; unset: any value.
  std::function<std::optional<FieldProblem>(std::string_view value, const Kernel& kernel)> check;

  // `shown` with `value` in it.
  std::string show(std::string_view value) const;
};

// The fields an IR can carry, in the order its JSON writes them.
class Fields {
public:
  Fields() = default;
  // Each of `fields` added in turn (one that add() refuses is left out).
  explicit Fields(std::vector<Field> fields);
  // Adds `field`. One that is there already (same key, annotation name and
  // code) is not added twice: two targets may read one field. False (and
  // nothing added) when its key or its name is another field's.
  bool add(Field field);
  const Field* by_key(std::string_view key) const;
  const Field* by_annotation(std::string_view name) const;
  // The annotation names, for messages: "key, dispatch", or with
  // `last` before the last one, "key or dispatch".
  std::string annotation_names(std::string_view last = ", ") const;

  auto begin() const { return fields_.begin(); }
  auto end() const { return fields_.end(); }
  bool empty() const { return fields_.empty(); }

private:
  std::vector<Field> fields_;
};

// What is wrong with each field `kernel` sets, as its definition in
// `fields` checks it (fields `fields` does not define are not checked).
struct FieldFinding {
  const Field* field;
  FieldProblem problem;
};
std::vector<FieldFinding> check_fields(const Kernel& kernel, const Fields& fields);

// The kernel's operator, then each of `fields` it sets, as shown:
// "aten::add.out (kernel key 'v1/6;0')".
std::string describe(const Kernel& kernel, const Fields& fields);

} // namespace opscan::ir
