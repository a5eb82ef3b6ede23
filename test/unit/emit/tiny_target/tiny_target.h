// A test-only target, "listing": everything a runtime needs to be added is
// this folder and one TargetRegistry::add line (see registry_test.cpp). It
// registers nothing; it lists a library's kernels in "<lib>/kernels.txt" and
// declares a registration function in "<lib>/Listing.h". It takes kernels
// without a runtime context, has named registration only, reads one
// annotation field of its own (note = "fast path", shown in kernels.txt),
// and registers one kernel per operator.
#pragma once

#include "emit/target.h"

#include <memory>
#include <string>

namespace opscan::emit {

// `name` other than "listing" only to test clashes of names.
std::shared_ptr<const Target> make_listing_target(std::string name = "listing");

} // namespace opscan::emit
