// SPDX-License-Identifier: BSL-1.0
// STATIC_ATTENTION_USE_FMT: print.hpp alone brings in the {fmt} formatter when asked to.
#define STATIC_ATTENTION_USE_FMT
#include <doctest/doctest.h>

#include <static_attention/io/print.hpp>

namespace sa = static_attention;

TEST_CASE("with STATIC_ATTENTION_USE_FMT, print.hpp makes fmt::format work") {
  const sa::matrix<int, 2, 2> m{{1, -20}, {300, 4}};
  CHECK(fmt::format("{}", m) == "tensor([[  1, -20],\n        [300,   4]], dtype=torch.int32)");
}
