// A schema string default holding a line break (the C escape \n): it would
// end the comment generated code shows the schema in, and the next line
// would compile as code.
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

using executorch::runtime::KernelRuntimeContext;

OPSCAN_KERNEL("demo::tag(int x, str label=\"x\n#define INJECTED 1 //\") -> int")
int64_t tag(KernelRuntimeContext& ctx, int64_t x, std::string_view label);
