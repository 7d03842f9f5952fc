// SPDX-License-Identifier: BSL-1.0
// fmt::format("{}", m) through static_attention/io/fmt.hpp: the same text as to_string.
#include <doctest/doctest.h>
#include <fmt/ranges.h>

#include <static_attention/io/fmt.hpp>
#include <vector>

namespace sa = static_attention;

TEST_CASE("fmt::format prints a matrix as to_string does") {
  const sa::matrix<float, 2, 3> m{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}};
  CHECK(fmt::format("{}", m) == sa::to_string(m));
  CHECK(fmt::format("{}", m) == "tensor([[0.4300, 0.1500, 0.8900],\n        [0.5500, 0.8700, 0.6600]])");
}

TEST_CASE("fmt::format's precision is torch's precision") {
  const sa::tensor<double, 2, 1, 2> t{{{0.5, 0.25}}, {{1.0 / 3.0, 2.0}}};
  CHECK(fmt::format("{:.2}", t) == sa::to_string(t, {.precision = 2}));
  CHECK(fmt::format("{:.2}", t) == "tensor([[[0.50, 0.25]],\n\n        [[0.33, 2.00]]], dtype=torch.float64)");
}

TEST_CASE("ranges of matrices format each matrix as a tensor") {
  // fmt/ranges.h is included: a matrix must not be taken for a flat range of numbers.
  const std::vector<sa::matrix<int, 1, 2>> v{sa::matrix<int, 1, 2>{{1, 2}}, sa::matrix<int, 1, 2>{{3, 4}}};
  CHECK(fmt::format("{}", v) == "[tensor([[1, 2]], dtype=torch.int32), tensor([[3, 4]], dtype=torch.int32)]");
}
