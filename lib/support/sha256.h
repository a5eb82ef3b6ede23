// SHA-256 of a byte string, as lowercase hex: content hashes for the IR and
// the scan cache. Not for security.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opscan::support {

std::string sha256_hex(std::string_view data);

// SHA-256 fed in parts: a copy taken after a shared prefix finishes each of
// several messages without hashing the prefix again.
class Sha256 {
public:
  Sha256& update(std::string_view data);
  // The hash of everything given so far, as lowercase hex.
  std::string hex() const;

private:
  std::array<std::uint32_t, 8> state_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block_{};
  std::uint64_t size_ = 0; // bytes given
};

} // namespace opscan::support
