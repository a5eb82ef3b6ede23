// What a translation unit's result depends on: the files it read and the
// places where its includes found nothing. Private to lib/scan (the
// fragment cache, the automatic precompiled header, the editor's units).
#pragma once

#include "scan/cache.h"

#include <string>
#include <vector>

// libclang's handle, as clang-c/Index.h declares it (libclang's headers are
// lib/scan's private dependency).
typedef struct CXTranslationUnitImpl* CXTranslationUnit;
typedef void* CXFile;

namespace opscan::scan {

// A file a translation unit read, as libclang lists it (clang_getInclusions).
struct Inclusion {
  CXFile file;
  std::string path;
  unsigned depth = 0;
  CXFile includer = nullptr; // null for the main file, and for forced includes
  unsigned offset = 0;       // of the header name in the includer
};

// The files `tu` read, the main file first. With `preamble` (a unit parsed
// with a preamble), the headers its main file includes after the preamble
// are added: libclang 14 leaves them out of such a unit's list, taking
// them for the preamble's own entry.
std::vector<Inclusion> inclusions_of(CXTranslationUnit tu, bool preamble = false);

// The dependencies of `tu`, parsed with `args`, whose files are
// `inclusions`; hashes and lookups are shared through `cache` by the
// files of a run.
Dependencies dependencies_of(CXTranslationUnit tu, const std::vector<Inclusion>& inclusions,
                             const std::vector<std::string>& args, FragmentCache& cache);

// Adds `inputs` to `dependencies`' inputs, which stay sorted by path, each
// once.
void add_inputs(Dependencies& dependencies, const std::vector<CachedInput>& inputs);

} // namespace opscan::scan
