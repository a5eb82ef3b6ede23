// Private to schema: the default values the runtimes can read, for the
// schema checks (schema/defaults.cpp).
#pragma once

#include "schema/schema.h"

#include <optional>
#include <string>
#include <string_view>

namespace opscan::schema {

// Why `value` (a default as the parser kept it) cannot be a default of an
// argument of type `type`, or nothing when it can.
std::optional<std::string> default_value_problem(const Type& type, std::string_view value);

// A piece of a schema in quotes for a message, clipped at 40 bytes.
std::string quoted_part(std::string_view text);
// A default value for a message: string literals already carry quotes.
std::string shown_default(std::string_view value);

} // namespace opscan::schema
