// SHA-256 through OpenSSL's EVP interface. Once SHA-256 is found, its
// functions fail only when memory runs out: std::bad_alloc, as elsewhere.
#include "support/sha256.h"

#include <array>
#include <new>
#include <openssl/evp.h>
#include <stdexcept>

namespace opscan::support {
namespace {

// Fetched once: EVP_sha256() would look the algorithm up in the provider
// again at every EVP_DigestInit_ex. Never freed (it lives as long as the
// process).
const EVP_MD* sha256_md() {
  static const EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) {
      // OpenSSL's configuration (OPENSSL_CONF) can leave no provider of it.
      throw std::runtime_error("OpenSSL provides no SHA-256 (check its configuration, "
                               "OPENSSL_CONF)");
    }
    return fetched;
  }();
  return md;
}

void check(int ok) {
  if (ok != 1)
    throw std::bad_alloc();
}

std::string hex_of(const unsigned char* digest, unsigned size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * size, '0');
  for (unsigned i = 0; i < size; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return out;
}

EVP_MD_CTX* new_context() {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (context == nullptr)
    throw std::bad_alloc();
  return context;
}

} // namespace

void Sha256::Free::operator()(evp_md_ctx_st* context) const {
  EVP_MD_CTX_free(context);
}

Sha256::Sha256() : context_(new_context()) {
  check(EVP_DigestInit_ex(context_.get(), sha256_md(), nullptr));
}

Sha256::Sha256(const Sha256& other) : context_(new_context()) {
  check(EVP_MD_CTX_copy_ex(context_.get(), other.context_.get()));
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other)
    *this = Sha256(other);
  return *this;
}

Sha256& Sha256::update(std::string_view data) {
  check(EVP_DigestUpdate(context_.get(), data.data(), data.size()));
  return *this;
}

std::string Sha256::hex() const {
  // Finishing consumes a context: finish a copy, so more can be added.
  Sha256 copy(*this);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest;
  unsigned size = 0;
  check(EVP_DigestFinal_ex(copy.context_.get(), digest.data(), &size));
  return hex_of(digest.data(), size);
}

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest;
  unsigned size = 0;
  check(EVP_Digest(data.data(), data.size(), digest.data(), &size, sha256_md(), nullptr));
  return hex_of(digest.data(), size);
}

} // namespace opscan::support
