// Included by scale.cpp: a change here re-scans it.
#pragma once

namespace demo_scale {
constexpr float kFactor = 3.0f;
} // namespace demo_scale
