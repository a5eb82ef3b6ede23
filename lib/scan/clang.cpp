// Owning handles for libclang's objects, and string helpers.
#include "scan/clang.h"

#include "scan/flags.h"
#include "scan/scan.h"
#include "support/files.h"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <memory>
#include <pthread.h>
#include <string_view>
#include <unistd.h>

namespace opscan::scan {
namespace {

// The named scopes of a declaration, outermost first, each with whether it
// is an inline namespace. libclang 14 shows a linkage specification
// (extern "C" { ... }) as an unnamed UnexposedDecl: not a scope of names.
std::vector<std::pair<std::string, bool>> scopes(CXCursor decl) {
  std::vector<std::pair<std::string, bool>> parts;
  for (CXCursor c = decl; !clang_Cursor_isNull(c); c = clang_getCursorSemanticParent(c)) {
    CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_TranslationUnit || clang_isInvalid(kind))
      break;
    if (kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl)
      continue;
    std::string name = spelling(c);
    const bool is_inline = kind == CXCursor_Namespace && clang_Cursor_isInlineNamespace(c);
    parts.emplace_back(name.empty() ? "(anonymous namespace)" : std::move(name), is_inline);
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

// Why libclang could not parse `file` with `args`: an input it could not
// read (the file; a precompiled header or a header the arguments include),
// else what its error code means. A cause shared by every file (a missing
// precompiled header) gives the same diagnostic for each, located at the
// shared file, so that sorting leaves it once.
diag::Diagnostic parse_failure(const std::string& file, const std::vector<std::string>& args,
                               CXErrorCode code) {
  if (std::string why = support::unreadable_reason(file); !why.empty()) {
    return diag::make_error("opscan-io", {file, 0, 0, 0}, "cannot read " + file + ": " + why);
  }
  if (std::optional<diag::Diagnostic> unreadable = unreadable_named_file(args, true))
    return *unreadable;
  std::string pch;
  for (size_t i = 0; i + 1 < args.size() && pch.empty(); ++i) {
    if (args[i] == "-include-pch")
      pch = args[i + 1];
  }
  if (code == CXError_ASTReadError && !pch.empty()) {
    return diag::make_error(
        "opscan-parse-failed", {pch, 0, 0, 0},
        fmt::format("libclang could not load the precompiled header {} (-include-pch): it is "
                    "damaged, or was made by another libclang or with other arguments; make it "
                    "again with opscan pch and the scan's arguments",
                    pch));
  }
  std::string meaning;
  switch (code) {
  case CXError_ASTReadError:
    // What libclang 14 returns when its driver refuses the arguments (a
    // serialized file it could not read is named above).
    meaning = "the compiler arguments are invalid: libclang's driver refused them (an option or "
              "value it does not know, such as -mcpu=?, or another input file beside the source)";
    break;
  case CXError_InvalidArguments:
    meaning = "the compiler arguments are invalid";
    break;
  case CXError_Crashed:
    meaning = "libclang crashed (on a construct nested too deeply for its stack, or a bug of "
              "libclang's)";
    break;
  default:
    meaning = "check that the compiler arguments are valid";
    break;
  }
  return diag::make_error("opscan-parse-failed", {file, 0, 0, 0},
                          fmt::format("libclang could not parse {} (error {}): {}", file,
                                      static_cast<int>(code), meaning));
}

// The environment libclang and its driver read, set before main (when no
// other thread can read the environment):
// - libclang parses on a thread of its own and recovers from a crash there,
//   but not from a stack overflow (deep nesting in a source): its signal
//   handler has no stack left to run on, and the process dies. So libclang
//   is told to parse on the calling thread (LIBCLANG_NOTHREADS), and parse()
//   gives it a thread of the same stack size with an alternate signal
//   stack, on which libclang's handlers are made to run (SA_ONSTACK): an
//   overflow then ends that parse with CXError_Crashed, and the process
//   goes on.
// - COMPILER_PATH is where the driver looks for programs it runs.
// - The user's other LIBCLANG_* and CINDEXTEST_* variables go:
//   LIBCLANG_DISABLE_CRASH_RECOVERY turns a deep source into a killed
//   process, LIBCLANG_LOGGING writes files and runs llvm-symbolizer,
//   LIBCLANG_TIMING and LIBCLANG_RESOURCE_USAGE print, and
//   CINDEXTEST_PREAMBLE_FILE names where a preamble is written. (The
//   language server's worker sets LIBCLANG_DISABLE_CRASH_RECOVERY again, on
//   purpose: see serve_worker.)
bool prepare_environment() {
  std::vector<std::string> names;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry = *e;
    if (entry.starts_with("LIBCLANG_") || entry.starts_with("CINDEXTEST_"))
      names.emplace_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string& name : names)
    ::unsetenv(name.c_str());
  ::unsetenv("COMPILER_PATH");
  return ::setenv("LIBCLANG_NOTHREADS", "1", 1) == 0;
}
[[maybe_unused]] const bool kEnvironmentPrepared = prepare_environment();

constexpr size_t kParseStackBytes = size_t{8} << 20; // libclang's own
constexpr size_t kSignalStackBytes = size_t{64} << 10;

// Makes the handlers of the signals a crash raises run on the alternate
// stack. libclang installs them when the first index is made (and LLVM
// may install its own later): set before each parse.
void handle_crashes_on_signal_stack() {
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) {
    struct sigaction action {};
    if (::sigaction(signal, nullptr, &action) != 0 || action.sa_handler == SIG_DFL ||
        action.sa_handler == SIG_IGN || (action.sa_flags & SA_ONSTACK))
      continue;
    action.sa_flags |= SA_ONSTACK;
    ::sigaction(signal, &action, nullptr);
  }
}

struct ParseCall {
  CXIndex index;
  const char* file;
  const std::vector<const char*>* argv;
  std::vector<CXUnsavedFile>* unsaved;
  unsigned options;
  CXTranslationUnit tu = nullptr; // given: re-parsed (with `unsaved` only)
  CXErrorCode code = CXError_Failure;
};

void* parse_with_signal_stack(void* data) {
  auto* call = static_cast<ParseCall*>(data);
  auto signal_stack = std::make_unique<char[]>(kSignalStackBytes);
  stack_t stack{};
  stack.ss_sp = signal_stack.get();
  stack.ss_size = kSignalStackBytes;
  ::sigaltstack(&stack, nullptr);
  const auto unsaved = static_cast<unsigned>(call->unsaved->size());
  if (call->tu)
    call->code = clang_reparseTranslationUnit(call->tu, unsaved, call->unsaved->data(),
                                              clang_defaultReparseOptions(call->tu)) == 0
                     ? CXError_Success
                     : CXError_Failure;
  else
    call->code = clang_parseTranslationUnit2(
        call->index, call->file, call->argv->data(), static_cast<int>(call->argv->size()),
        call->unsaved->data(), unsaved, call->options, &call->tu);
  stack.ss_flags = SS_DISABLE;
  ::sigaltstack(&stack, nullptr);
  return nullptr;
}

// The limit set by limit_parse_time.
struct ParseTimeLimit {
  std::chrono::milliseconds limit{0};
  std::function<void(const std::string& file)> expired;
};
ParseTimeLimit& parse_time_limit() {
  static ParseTimeLimit limit;
  return limit;
}

// Joins the parse thread; while a limit is set, tells its callback when the
// parse has taken longer, then waits on.
void join_parse(pthread_t thread, const char* file) {
  const ParseTimeLimit& limit = parse_time_limit();
  if (limit.limit.count() > 0 && limit.expired) {
    timespec deadline{};
    ::clock_gettime(CLOCK_REALTIME, &deadline);
    const auto ms = limit.limit.count();
    deadline.tv_sec += static_cast<time_t>(ms / 1000);
    deadline.tv_nsec += static_cast<long>(ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec += 1;
      deadline.tv_nsec -= 1000000000L;
    }
    int joined;
    while ((joined = ::pthread_timedjoin_np(thread, nullptr, &deadline)) == EINTR) {
    }
    if (joined == 0)
      return;
    if (joined == ETIMEDOUT)
      limit.expired(file);
  }
  ::pthread_join(thread, nullptr);
}

// Runs the parse on a thread with libclang's stack size and a signal stack;
// on the calling thread when no such thread can be made.
void run_parse(ParseCall& call) {
  handle_crashes_on_signal_stack();
  pthread_attr_t attributes;
  pthread_t thread;
  bool started = false;
  if (::pthread_attr_init(&attributes) == 0) {
    started = ::pthread_attr_setstacksize(&attributes, kParseStackBytes) == 0 &&
              ::pthread_create(&thread, &attributes, parse_with_signal_stack, &call) == 0;
    ::pthread_attr_destroy(&attributes);
  }
  if (started)
    join_parse(thread, call.file);
  else
    parse_with_signal_stack(&call);
}

} // namespace

void limit_parse_time(std::chrono::milliseconds limit,
                      std::function<void(const std::string& file)> expired) {
  parse_time_limit() = {limit, std::move(expired)};
}

TranslationUnit parse(CXIndex index, const std::string& file, const std::vector<std::string>& args,
                      unsigned options, diag::Diagnostics& diags,
                      std::vector<CXUnsavedFile> unsaved) {
  // A file the arguments name that is not a regular file: refused before
  // libclang opens it (a FIFO would block it, a device feed it for ever).
  if (std::optional<diag::Diagnostic> unreadable = unreadable_named_file(args)) {
    diags.push_back(std::move(*unreadable));
    return {};
  }
  std::vector<const char*> argv = {"-Xclang", "-disable-pragma-debug-crash"};
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  ParseCall call{index, file.c_str(), &argv, &unsaved, options};
  run_parse(call);
  if (call.code != CXError_Success || !call.tu) {
    diags.push_back(parse_failure(file, args, call.code));
    return {};
  }
  return TranslationUnit(call.tu);
}

bool reparse(CXTranslationUnit tu, const std::string& file, std::vector<CXUnsavedFile> unsaved) {
  std::vector<const char*> argv;
  ParseCall call{nullptr, file.c_str(), &argv, &unsaved, 0, tu};
  run_parse(call);
  return call.code == CXError_Success;
}

QualifiedName qualified_name(CXCursor decl) {
  QualifiedName out;
  for (const auto& [part, is_inline] : scopes(decl)) {
    out.name += (out.name.empty() ? "" : "::") + part;
    if (is_inline)
      out.inline_namespaces.push_back(out.name);
  }
  return out;
}

std::string type_name(CXCursor decl) {
  std::string name;
  for (const auto& [part, is_inline] : scopes(decl)) {
    if (!is_inline)
      name += (name.empty() ? "" : "::") + part;
  }
  return name;
}

} // namespace opscan::scan
