// The inputs both tests of test/e2e/aot/aot_ops.cpp give its operators and
// the values they must get, through ExecuTorch's registry
// (test/e2e/aot/aot_ops_test.cpp) and through PyTorch's dispatcher
// (test/torch_current/aot_test.cpp): the same numbers both ways.
#pragma once

#include <vector>

namespace aot_ops_expected {

inline const std::vector<float> kA = {1.0f, 2.0f, 3.0f, 4.0f};
inline const std::vector<float> kB = {0.5f, -1.0f, 10.0f, 0.25f};
inline const std::vector<float> kC = {-2.0f, 4.0f, 0.0f, 8.0f};
// my_ops::add3.out(kA, kB, kC)
inline const std::vector<float> kAdd3 = {-0.5f, 5.0f, 13.0f, 12.25f};

// my_ops::scaled_sum(kA, kFactor)
inline constexpr double kFactor = 1.5;
inline constexpr double kScaledSum = 15.0;

// my_ops::square_nonneg.out(kA); kB has a negative element: the call fails.
inline const std::vector<float> kSquares = {1.0f, 4.0f, 9.0f, 16.0f};

} // namespace aot_ops_expected
