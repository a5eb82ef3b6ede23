// opscan's version string, from CMake.
#include "support/version.h"

namespace opscan::support {

std::string_view opscan_version() {
  return OPSCAN_VERSION;
}

} // namespace opscan::support
