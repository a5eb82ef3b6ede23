// SHA-256 of a byte string, as lowercase hex: content hashes for the IR and
// the scan cache. Not for security. OpenSSL's, which uses the CPU's SHA
// instructions where it has them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX, kept out of this header

namespace opscan::support {

std::string sha256_hex(std::string_view data);

// SHA-256 fed in parts: a copy taken after a shared prefix finishes each of
// several messages without hashing the prefix again.
class Sha256 {
public:
  Sha256();
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept = default;
  Sha256& operator=(Sha256&&) noexcept = default;
  ~Sha256() = default;

  Sha256& update(std::string_view data);
  // The hash of everything given so far, as lowercase hex.
  std::string hex() const;

private:
  struct Free {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> context_;
};

} // namespace opscan::support
