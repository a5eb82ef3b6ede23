// Refused types and names whose repair belongs elsewhere (an alias, a
// macro) or has no one obvious form: no fix-it.
#include "../et_types.h"

#include <vector>

#define INDEX_TYPE int
#define DECLARE_SCALE(name)        \
  OPSCAN_KERNEL("t::" #name ".out") \
  Tensor& name##_out(const Tensor& self, int factor, Tensor& out);
using Index = int;
using IndexList = ArrayRef<int>;

namespace not_offered {

// Written by a macro or through an alias: the fix belongs there.
OPSCAN_KERNEL("t::a.out")
Tensor& a_out(const Tensor& self, INDEX_TYPE dim, Tensor& out);

OPSCAN_KERNEL("t::b.out")
Tensor& b_out(const Tensor& self, Index dim, Tensor& out);

OPSCAN_KERNEL("t::c.out")
Tensor& c_out(const Tensor& self, IndexList dims, Tensor& out);

DECLARE_SCALE(scale)

// The repaired type would be refused too, or the repair is not one edit.
OPSCAN_KERNEL("t::d.out")
Tensor& d_out(const Tensor& self, int& dim, Tensor& out);

OPSCAN_KERNEL("t::e.out")
Tensor& e_out(const Tensor& self, int&& dim, Tensor& out);

OPSCAN_KERNEL("t::f.out")
Tensor& f_out(const Tensor& self, const unsigned char* bytes, Tensor& out);

OPSCAN_KERNEL("t::g.out")
Tensor& g_out(const Tensor& self, const std::vector<bool>& mask, Tensor& out);

OPSCAN_KERNEL("t::h")
const int& h(const Tensor& self);

OPSCAN_KERNEL("t::i")
std::tuple<Tensor, int> i(const Tensor& self);

// Reserved names have no obvious replacement.
OPSCAN_KERNEL("t::__j_out")
Tensor& j_out(const Tensor& self, Tensor& out);

// Which parameter is the out tensor? Only the name `out` tells.
OPSCAN_KERNEL("t::k.out")
Tensor& k_out(const Tensor& self, const Tensor& result);

}  // namespace not_offered
