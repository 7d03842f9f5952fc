// SPDX-License-Identifier: BSL-1.0
// A workspace past its capacity: hidden(ids, ws) and prefill(ids, ws) give
// errc::capacity_exceeded, in every build and in constant evaluation alike, and leave the
// workspace as it was (never rows of zeros).
#include <array>

#include <static_attention/static_attention.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

constexpr sa::gpt_model<float, tiny> make_model() {
  sa::gpt_model<float, tiny> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}
inline constexpr auto model = make_model();

// 3 tokens in a workspace of 4, then 2 more: refused, the 3 kept; then 1 more fits.
constexpr bool overflow_is_an_error() {
  sa::gpt_workspace<float, tiny, 4> ws;
  if (!model.hidden(std::array<int, 3>{5, 17, 42}, ws)) return false;
  const auto over = model.hidden(std::array<int, 2>{1, 2}, ws);
  if (over || over.error().code != sa::errc::capacity_exceeded || ws.length() != 3) return false;
  const auto over_prefill = model.prefill(std::array<int, 2>{1, 2}, ws);
  if (over_prefill || ws.length() != 3) return false;
  const auto fits = model.hidden(std::array<int, 1>{1}, ws);
  return fits && ws.length() == 4;
}

}  // namespace

TEST_CASE("hidden past the workspace's capacity: an error value, the workspace unchanged") {
  SA_CHECK_BOTH(overflow_is_an_error());
}

TEST_CASE("the capacity error says how many tokens, how many held and the capacity") {
  static sa::gpt_workspace<float, tiny, 4> ws;
  REQUIRE(model.hidden(std::array<int, 3>{5, 17, 42}, ws));
  const auto over = model.hidden(std::array<int, 2>{1, 2}, ws);
  REQUIRE_FALSE(over);
  CHECK(over.error().message.view() ==
        "hidden(ids, workspace): 2 tokens after the 3 held exceed the workspace's capacity of 4; clear() it or use a "
        "larger one");
}
