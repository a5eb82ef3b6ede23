// Says whether extra_ops::twice is registered with the dispatcher; includes
// and calls nothing of the kernel library.
#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdio>

int main() {
  bool registered = c10::Dispatcher::singleton().findSchema({"extra_ops::twice", ""}).has_value();
  std::printf("extra_ops::twice is %s\n", registered ? "registered" : "not registered");
  return 0;
}
