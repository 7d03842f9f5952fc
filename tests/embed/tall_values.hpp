// SPDX-License-Identifier: BSL-1.0
// The values of the (300000, 1) weight that make_tall_npy writes and embed.namespaces checks:
// exact in float, and different for neighbours.
#pragma once

#include <cstddef>

namespace tall_values {
inline constexpr std::size_t rows = 300000;
constexpr float at(std::size_t k) { return static_cast<float>(k % 4099) * 0.25f - 512.0f; }
}  // namespace tall_values
