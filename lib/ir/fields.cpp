// The annotation fields an IR carries: lookup, and one definition per field.
#include "ir/fields.h"

namespace opscan::ir {

std::string Field::show(std::string_view value) const {
  std::string text = shown;
  if (size_t at = text.find("{}"); at != std::string::npos)
    text.replace(at, 2, value);
  return text;
}

Fields::Fields(std::vector<Field> fields) {
  for (Field& field : fields)
    add(std::move(field));
}

bool Fields::add(Field field) {
  const Field* same_key = by_key(field.key);
  const Field* same_name = by_annotation(field.annotation);
  if (same_key != nullptr && same_key == same_name && same_key->code == field.code)
    return true;
  if (same_key != nullptr || same_name != nullptr)
    return false;
  fields_.push_back(std::move(field));
  return true;
}

const Field* Fields::by_key(std::string_view key) const {
  for (const Field& field : fields_) {
    if (field.key == key)
      return &field;
  }
  return nullptr;
}

const Field* Fields::by_annotation(std::string_view name) const {
  for (const Field& field : fields_) {
    if (field.annotation == name)
      return &field;
  }
  return nullptr;
}

std::string Fields::annotation_names(std::string_view last) const {
  std::string names;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0)
      names += i + 1 == fields_.size() ? last : ", ";
    names += fields_[i].annotation;
  }
  return names;
}

std::vector<FieldFinding> check_fields(const Kernel& kernel, const Fields& fields) {
  std::vector<FieldFinding> found;
  for (const auto& [key, value] : kernel.fields) {
    const Field* field = fields.by_key(key);
    if (field == nullptr || !field->check)
      continue;
    if (auto problem = field->check(value, kernel))
      found.push_back({field, std::move(*problem)});
  }
  return found;
}

std::string describe(const Kernel& kernel, const Fields& fields) {
  std::string text = kernel.op.str();
  for (const Field& field : fields) {
    if (std::string_view value = kernel.field(field.key); !value.empty())
      text += " (" + field.show(value) + ")";
  }
  return text;
}

} // namespace opscan::ir
