// SPDX-License-Identifier: BSL-1.0
// to_string and operator<< against PyTorch: run-time checks of the exact text torch prints.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <static_attention/io/print.hpp>
#include <string>

#include "print_reference.hpp"

namespace sa = static_attention;

namespace {

// The case's values as a matrix (2 dimensions) or tensor (3) of T, cast as torch casts them.
template <class Case, class T>
auto make_value() {
  constexpr auto& s = Case::shape;
  if constexpr (std::size(Case::shape) == 2) {
    sa::matrix<T, s[0], s[1]> m;
    for (std::size_t k = 0; k < m.size; ++k) m.elems[k] = static_cast<T>(Case::values[k]);
    return m;
  } else {
    sa::tensor<T, s[0], s[1], s[2]> t;
    for (std::size_t k = 0; k < t.size; ++k) t.elems[k] = static_cast<T>(Case::values[k]);
    return t;
  }
}

template <class Case>
sa::print_options options_of() {
  return {Case::precision, Case::linewidth,
          Case::sci_mode < 0 ? std::nullopt : std::optional<bool>(Case::sci_mode == 1), Case::threshold,
          Case::edgeitems};
}

template <class Case, class T>
void check_dtype(std::string_view expected) {
  CAPTURE(expected);
  CHECK(sa::to_string(make_value<Case, T>(), options_of<Case>()) == expected);
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("to_string prints what PyTorch prints", Case, torch_reference) {
  if constexpr (requires { Case::float32; }) check_dtype<Case, float>(Case::float32);
  if constexpr (requires { Case::float64; }) check_dtype<Case, double>(Case::float64);
  if constexpr (requires { Case::int64; }) check_dtype<Case, std::int64_t>(Case::int64);
  if constexpr (requires { Case::int32; }) check_dtype<Case, std::int32_t>(Case::int32);
  if constexpr (requires { Case::int16; }) check_dtype<Case, std::int16_t>(Case::int16);
  if constexpr (requires { Case::int8; }) check_dtype<Case, std::int8_t>(Case::int8);
  if constexpr (requires { Case::uint8; }) check_dtype<Case, std::uint8_t>(Case::uint8);
  if constexpr (requires { Case::boolean; }) check_dtype<Case, bool>(Case::boolean);
}
TEST_CASE_TEMPLATE_APPLY(torch_reference, reference::print::all_cases);

TEST_CASE("operator<< prints to_string's text, whatever the stream's own format flags") {
  const sa::matrix<float, 2, 2> m{{0.5f, -1.25f}, {3.0f, 0.125f}};
  std::ostringstream os;
  os.precision(12);
  os.width(40);
  os << std::scientific << m;
  CHECK(os.str() == "tensor([[ 0.5000, -1.2500],\n        [ 3.0000,  0.1250]])");
  CHECK(os.str() == sa::to_string(m));
}

TEST_CASE("with_options applies print options to one insertion only") {
  const sa::matrix<double, 1, 3> m{{0.43, 0.15, 0.89}};
  std::ostringstream os;
  os << sa::with_options(m, {.precision = 2}) << '\n'
     << m << '\n'
     << sa::with_options(m, {.linewidth = 40, .sci_mode = true});
  CHECK(os.str() ==
        "tensor([[0.43, 0.15, 0.89]], dtype=torch.float64)\n"
        "tensor([[0.4300, 0.1500, 0.8900]], dtype=torch.float64)\n"
        "tensor([[4.3000e-01, 1.5000e-01, 8.9000e-01]],\n"
        "       dtype=torch.float64)");
}

TEST_CASE("element types torch lacks are named after their C++ type") {
  // torch has no long double: its digits print at its own precision.
  CHECK(sa::to_string(sa::matrix<long double, 1, 2>{{0.5L, 1e-400L}}) ==
        "tensor([[ 5.0000e-01, 1.0000e-400]], dtype=long double)");
  CHECK(sa::to_string(sa::matrix<unsigned, 1, 2>{{7u, 4000000000u}}) ==
        "tensor([[         7, 4000000000]], dtype=torch.uint32)");
  CHECK(sa::to_string(sa::matrix<unsigned short, 1, 1>{{65535}}) == "tensor([[65535]], dtype=torch.uint16)");
  CHECK(sa::to_string(sa::matrix<unsigned long long, 1, 1>{{1}}) == "tensor([[1]], dtype=torch.uint64)");
  // char is a number here, as an int8 tensor is (char is signed on the targets CI runs).
  CHECK(sa::to_string(sa::matrix<signed char, 1, 2>{{'A', -1}}) == "tensor([[65, -1]], dtype=torch.int8)");
}

TEST_CASE("precision below zero prints as precision 0") {
  CHECK(sa::to_string(sa::matrix<float, 1, 2>{{0.25f, 1.75f}}, {.precision = -3}) == "tensor([[0, 2]])");
}
