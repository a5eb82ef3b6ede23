// Private to ident: the words C++ reserves or gives a meaning, beyond the
// public is_keyword, is_alternative_token and macro_origin (ident/words.cpp).
#pragma once

#include "ident/ident.h"

#include <optional>
#include <string>
#include <string_view>

namespace opscan::ident {

// The token an alternative token spells ("and" -> "&&"), or nothing.
std::optional<std::string_view> alternative_token_for(std::string_view name);
// C++23 [lex.name.special]: final, import, module, override.
bool is_special(std::string_view name);
// The reason `name` is reserved ([lex.name]/3), or nothing.
std::optional<std::string> reserved_reason(std::string_view name, Scope scope);

} // namespace opscan::ident
