// The loader of libclang (lib/scan/libclang_loader.cpp) built, with the same
// generated definitions of libclang's functions, to load a library file this
// test controls (OPSCAN_LIBCLANG_PATH): missing, not a library, or a library
// without libclang's functions. Each is the documented error (opscan-io,
// exit status 3), said once and kept.
#include "scan/libclang_loader.h"
#include "scan/scan.h"

#include <clang-c/Index.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

const fs::path kLibrary = OPSCAN_LIBCLANG_PATH;

void place(const std::string& what) {
  fs::create_directories(kLibrary.parent_path());
  fs::remove(kLibrary);
  if (what == "junk")
    std::ofstream(kLibrary) << "not a shared library\n";
  else if (!what.empty())
    fs::create_symlink(what, kLibrary);
}

// Each case in a process of its own: a process tries to load libclang once.
void expect_unavailable(const std::string& placed, const std::string& reason) {
  EXPECT_EXIT(
      {
        place(placed);
        const std::string why = opscan::scan::load_libclang();
        auto error = opscan::scan::libclang_unavailable();
        const bool ok =
            why.find(reason) != std::string::npos && error && error->code == "opscan-io" &&
            error->message == why && error->location.file == kLibrary.string() &&
            !opscan::scan::libclang_loaded() && opscan::scan::libclang_version().empty();
        if (!ok) {
          fprintf(stderr, "unexpected: %s\n", why.c_str());
          exit(1);
        }
        // A libclang function called regardless: the process ends, saying why.
        clang_createIndex(0, 0);
        exit(0);
      },
      ::testing::ExitedWithCode(3), "opscan: error: .*" + reason);
}

TEST(LibclangLoader, AMissingLibraryIsAnIoError) {
  expect_unavailable("", "No such file");
}

TEST(LibclangLoader, AFileThatIsNoLibraryIsAnIoError) {
  expect_unavailable("junk", "cannot load libclang: ");
}

TEST(LibclangLoader, ALibraryWithoutLibclangsFunctionsIsAnIoError) {
  // The C library is a library, but not libclang.
  expect_unavailable(OPSCAN_C_LIBRARY, "it has no clang_");
}

} // namespace
