// SPDX-License-Identifier: BSL-1.0
// Shortest-round-trip and fixed-precision text of numbers through std::to_chars, for printing
// and heatmaps.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <system_error>

namespace static_attention::detail {

// std::to_chars(args...) into a string that grows until the text fits.
template <class... Args>
std::string chars_of(const Args&... args) {
  std::string s(32, '\0');
  for (;;) {
    const auto [end, ec] = std::to_chars(s.data(), s.data() + s.size(), args...);
    if (ec == std::errc{}) {
      s.resize(static_cast<std::size_t>(end - s.data()));
      return s;
    }
    s.resize(s.size() * 2);
  }
}

}  // namespace static_attention::detail
