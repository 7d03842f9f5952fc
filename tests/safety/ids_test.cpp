// SPDX-License-Identifier: BSL-1.0
// Token ids are checked where they enter, in every build: check_ids() and the workspace calls
// (hidden, prefill, generate) give errc::id_out_of_range naming the id, its position and the
// vocabulary, read nothing and leave the workspace as it was; the value calls (model(ids),
// generate_text_simple) read nothing out of range and give NaN logits or ids no vocabulary
// holds. In constant evaluation a bad id is a compile error (tests/compile_fail/gpt_*id*).
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

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

// Good ids pass check_ids and keep their values: the constant evaluator and the run agree.
constexpr bool good_ids_pass() {
  const auto checked = sa::check_ids<64>(std::array<int, 3>{0, 17, 63});
  if (!checked) return false;
  const std::array<std::int64_t, 2> wide{5, 63};
  return (*checked)[2] == 63 && (*checked).ids()[1] == 17 && sa::check_ids<64>(std::span<const std::int64_t>(wide));
}

// The id at the boundary and its message: "token id 64 at position 1 is outside the vocabulary [0, 64)".
bool message_names(const sa::error& e, std::string_view part) { return e.message.find(part) != sa::error_message::npos; }

}  // namespace

TEST_CASE("check_ids passes ids inside the vocabulary") { SA_CHECK_BOTH(good_ids_pass()); }

TEST_CASE("check_ids reports the first id outside the vocabulary: 64, 5000, -1") {
  const auto at_end = sa::check_ids<64>(std::array<int, 3>{5, 64, 70});
  REQUIRE_FALSE(at_end);
  CHECK(at_end.error().code == sa::errc::id_out_of_range);
  CHECK(message_names(at_end.error(), "token id 64 at position 1"));
  CHECK(message_names(at_end.error(), "[0, 64)"));
  const auto far = sa::check_ids<64>(std::array<int, 1>{5000});
  REQUIRE_FALSE(far);
  CHECK(message_names(far.error(), "token id 5000 at position 0"));
  const std::array<long, 2> negative{3, -1};
  const auto neg = sa::check_ids<64>(std::span<const long>(negative));
  REQUIRE_FALSE(neg);
  CHECK(message_names(neg.error(), "token id -1 at position 1"));
}

TEST_CASE("hidden, prefill and generate with a bad id: an error value, the workspace untouched") {
  static sa::gpt_workspace<float, tiny, 8> ws;
  REQUIRE(model.hidden(std::array<int, 2>{5, 17}, ws));  // two tokens held
  for (const int bad : {64, 5000, -1}) {
    const auto h = model.hidden(std::array<int, 3>{1, bad, 2}, ws);
    REQUIRE_FALSE(h);
    CHECK(h.error().code == sa::errc::id_out_of_range);
    CHECK(message_names(h.error(), "at position 1"));
    CHECK(ws.length() == 2);
    const auto p = model.prefill(std::array<int, 1>{bad}, ws);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == sa::errc::id_out_of_range);
    CHECK(ws.length() == 2);
    const auto g = sa::generate<3>(model, std::array<int, 2>{bad, 4}, ws);
    REQUIRE_FALSE(g);
    CHECK(g.error().code == sa::errc::id_out_of_range);
    CHECK(ws.length() == 2);
  }
  // The keys held are still the ones written: the next token gives what it gives after 5, 17.
  const auto next = model.hidden(std::array<int, 1>{42}, ws);
  REQUIRE(next);
  const auto full = model.hidden(std::array<int, 3>{5, 17, 42});
  for (std::size_t j = 0; j < 16; ++j) CHECK((*next)(0, j) == full(2, j));
}

TEST_CASE("the value calls read nothing out of range: NaN logits, ids no vocabulary holds") {
  const auto logits = model(std::array<int, 2>{5, 5000});
  CHECK(std::isnan(logits(1, 0)));
  CHECK_FALSE(std::isnan(logits(0, 0)));  // causal: the good row before it is untouched
  const auto ids = sa::generate_text_simple<2>(model, std::array<int, 2>{64, 3});
  CHECK(ids[0] == 64);
  CHECK(ids[2] == -1);
  CHECK(ids[3] == -1);
  const auto unsigned_ids = sa::generate_text_simple<1>(model, std::array<unsigned, 1>{64u});
  CHECK(unsigned_ids[1] == 0xFFFFFFFFu);
}
