// OPSCAN_KERNEL on declarations that are not namespace-scope functions.
#include "et_types.h"

namespace misplaced {

struct WithFriend {
  OPSCAN_KERNEL("t::friend_fn") friend void friend_fn(const Tensor& self);
};

OPSCAN_KERNEL("t::variable") extern int64_t variable;

struct WithMember {
  OPSCAN_KERNEL("t::member") int64_t member;
};

struct OPSCAN_KERNEL("t::cls") Cls {};

enum OPSCAN_KERNEL("t::enm") Enm { kA };

OPSCAN_KERNEL("t::tdef") typedef Tensor TensorTypedef;

using TensorAlias OPSCAN_KERNEL("t::alias") = Tensor;

OPSCAN_KERNEL("t::fine")
void fine(const Tensor& self);

}  // namespace misplaced
