// SPDX-License-Identifier: BSL-1.0
// Named dimensions change no value: every operation equals the unnamed one.
#include <static_attention/core/named.hpp>
#include <static_attention/core/random.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;
using namespace sa::dims;

namespace {

constexpr bool names_change_no_value() {
  sa::torch_generator gen{42};
  const auto x = sa::rand<double, 5, 3>(gen);
  const auto w = sa::rand<double, 3, 4>(gen);
  const auto nx = sa::name<tokens, d_in>(x);
  const auto nw = sa::name<d_in, d_out>(w);
  const auto queries = sa::matmul(nx, nw);
  const auto scores = sa::matmul(queries, sa::transpose(queries)) / 2.0;
  const auto weights = sa::softmax(scores);
  const auto plain_q = sa::matmul(x, w);
  return queries.value == plain_q && weights.value == sa::softmax(sa::matmul(plain_q, sa::transpose(plain_q)) / 2.0) &&
         (queries + queries).value == plain_q + plain_q && (queries * 3.0).value == plain_q * 3.0 &&
         (queries - queries).value == sa::zeros<double, 5, 4>() && (queries / queries).value == plain_q / plain_q;
}

}  // namespace

TEST_CASE("named operations compute what the unnamed ones compute") { SA_CHECK_BOTH(names_change_no_value()); }
