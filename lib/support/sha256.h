// SHA-256 of a byte string, as lowercase hex: content hashes for the IR and
// the scan cache. Not for security.
#pragma once

#include <string>
#include <string_view>

namespace opscan::support {

std::string sha256_hex(std::string_view data);

} // namespace opscan::support
