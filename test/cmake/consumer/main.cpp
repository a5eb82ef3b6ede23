// Registers both kernel libraries, then calls one operator of each through
// PyTorch's dispatcher. Exit status 0 when every result is right.
#include <audio/RegisterKernels.h>
#include <vision/RegisterKernels.h>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdio>

template <typename Signature>
c10::TypedOperatorHandle<Signature> op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Signature>();
}

int main() {
  register_vision_kernels();
  register_audio_kernels();

  at::Tensor image = at::full({2}, 0.25);
  at::Tensor bright = op<at::Tensor(const at::Tensor&, double)>("vision_ops::brighten")
                          .call(image, 0.5);
  at::Tensor inverted = op<at::Tensor(const at::Tensor&)>("vision_ops::invert").call(image);

  at::Tensor out = at::zeros({2});
  op<at::Tensor&(const at::Tensor&, double, at::Tensor&)>("audio_ops::gain", "out")
      .call(at::full({2}, 2.0), 3.0, out);
  at::Tensor mixed = op<at::Tensor(const at::Tensor&, const at::Tensor&)>("audio_ops::mix")
                         .call(at::full({2}, 1.0), at::full({2}, 3.0));

  bool ok = bright.equal(at::full({2}, 0.75)) && inverted.equal(at::full({2}, 0.75)) &&
            out.equal(at::full({2}, 6.0)) && mixed.equal(at::full({2}, 2.0));
  std::printf("vision and audio operators %s\n", ok ? "work" : "gave wrong results");
  return ok ? 0 : 1;
}
