// SPDX-License-Identifier: BSL-1.0
// The chapter's simplified attention weights (softmax(x xᵀ) of "Your journey starts with one
// step"), to four decimals: fixed data for the heatmap tests, independent of softmax().
#pragma once

#include <array>
#include <static_attention/core/matrix.hpp>
#include <string_view>

namespace heatmap_test {

inline constexpr static_attention::matrix<double, 6, 6> chapter_weights{
    {0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452}, {0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581},
    {0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565}, {0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720},
    {0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295}, {0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896}};

inline constexpr std::array<std::string_view, 6> chapter_tokens{"Your", "journey", "starts", "with", "one", "step"};

}  // namespace heatmap_test
