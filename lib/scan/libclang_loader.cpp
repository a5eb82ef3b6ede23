// Loading libclang on first use, by the path found at configure time.
#include "scan/libclang_loader.h"

#include "scan/clang.h"
#include "scan/scan.h"

#include <atomic>
#include <cstddef>
#include <dlfcn.h>
#include <mutex>
#include <unistd.h>
#include <vector>

#ifdef OPSCAN_LIBCLANG_TRAMPOLINES
// Generated (cmake/OpscanLibClang.cmake): the names of libclang's functions,
// and the table each one's definition jumps through, in the same order.
extern "C" {
extern const char* const opscan_libclang_names[];
extern const std::size_t opscan_libclang_count;
__attribute__((visibility("hidden"))) extern void* opscan_libclang_table[];
__attribute__((visibility("hidden"))) void* opscan_libclang_resolve(unsigned index);
}

// Until libclang is loaded, each table entry is a stub that jumps here with
// its index in r11. The caller's arguments are in registers (and on the
// stack, which is left as it is): saved, the table filled, restored, and
// the call goes on to libclang's function as if made to it directly.
__asm__(R"(
  .text
  .globl opscan_libclang_lazy
  .hidden opscan_libclang_lazy
  .type opscan_libclang_lazy, @function
  .p2align 4
opscan_libclang_lazy:
  endbr64
  pushq %rbp
  movq %rsp, %rbp
  pushq %rdi
  pushq %rsi
  pushq %rdx
  pushq %rcx
  pushq %r8
  pushq %r9
  pushq %rax
  pushq %r10
  subq $128, %rsp
  movdqu %xmm0, 0(%rsp)
  movdqu %xmm1, 16(%rsp)
  movdqu %xmm2, 32(%rsp)
  movdqu %xmm3, 48(%rsp)
  movdqu %xmm4, 64(%rsp)
  movdqu %xmm5, 80(%rsp)
  movdqu %xmm6, 96(%rsp)
  movdqu %xmm7, 112(%rsp)
  movl %r11d, %edi
  call opscan_libclang_resolve@PLT
  movq %rax, %r11
  movdqu 0(%rsp), %xmm0
  movdqu 16(%rsp), %xmm1
  movdqu 32(%rsp), %xmm2
  movdqu 48(%rsp), %xmm3
  movdqu 64(%rsp), %xmm4
  movdqu 80(%rsp), %xmm5
  movdqu 96(%rsp), %xmm6
  movdqu 112(%rsp), %xmm7
  addq $128, %rsp
  popq %r10
  popq %rax
  popq %r9
  popq %r8
  popq %rcx
  popq %rdx
  popq %rsi
  popq %rdi
  popq %rbp
  jmp *%r11
  .size opscan_libclang_lazy, .-opscan_libclang_lazy
)");
#endif

namespace opscan::scan {
namespace {

std::mutex load_mutex;
bool load_attempted = false; // guarded by load_mutex
std::string load_error;      // guarded by load_mutex
std::atomic<bool> loaded{false};

} // namespace

const char* libclang_path() {
  return OPSCAN_LIBCLANG_PATH;
}

#ifdef OPSCAN_LIBCLANG_TRAMPOLINES
std::string load_libclang() {
  if (loaded.load(std::memory_order_acquire))
    return {};
  std::lock_guard lock(load_mutex);
  if (load_attempted)
    return load_error;
  load_attempted = true;
  // Lazy binding, as when it was linked; local, so that its symbols resolve
  // nothing else.
  void* library = ::dlopen(libclang_path(), RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    const char* why = ::dlerror();
    load_error = std::string("cannot load libclang: ") + (why ? why : libclang_path());
    return load_error;
  }
  std::vector<void*> functions(opscan_libclang_count);
  for (size_t i = 0; i < functions.size(); ++i) {
    functions[i] = ::dlsym(library, opscan_libclang_names[i]);
    if (!functions[i]) {
      load_error = std::string("cannot use libclang ") + libclang_path() + ": it has no " +
                   opscan_libclang_names[i] + " (opscan was built with another libclang)";
      return load_error;
    }
  }
  // Other threads may be jumping through the table: each entry is replaced
  // whole, stub by function.
  for (size_t i = 0; i < functions.size(); ++i)
    __atomic_store_n(&opscan_libclang_table[i], functions[i], __ATOMIC_RELEASE);
  loaded.store(true, std::memory_order_release);
  return {};
}
#else
// Linked as usual: loaded with opscan.
std::string load_libclang() {
  loaded.store(true);
  return {};
}
#endif

bool libclang_loaded() {
  return loaded.load(std::memory_order_acquire);
}

std::optional<diag::Diagnostic> libclang_unavailable() {
  std::string why = load_libclang();
  if (why.empty())
    return std::nullopt;
  return diag::make_error("opscan-io", {libclang_path(), 0, 0, 0}, why);
}

std::string libclang_version() {
  if (!load_libclang().empty())
    return {};
  return take(clang_getClangVersion());
}

} // namespace opscan::scan

#ifdef OPSCAN_LIBCLANG_TRAMPOLINES
void* opscan_libclang_resolve(unsigned index) {
  if (std::string why = opscan::scan::load_libclang(); !why.empty()) {
    // Called without load_libclang() first: the call cannot fail, and
    // cannot go on.
    const std::string message = "opscan: error: " + why + "\n";
    [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(3);
  }
  return __atomic_load_n(&opscan_libclang_table[index], __ATOMIC_ACQUIRE);
}
#endif
