// SPDX-License-Identifier: BSL-1.0
// Run-time truth: generate(model, span prompt, workspace, max_new, sampling, gen, span out), the
// overload for prompts whose length is known only at run time. Its errors (bad parameters, an
// empty or too long prompt, too small an output, an id out of range) write nothing to out and
// leave the workspace and the generator as they were; prompts of every length 1..8 give the
// std::array overload's ids; std::array and std::vector-like containers are accepted directly.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <static_attention/core/random.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>

#include <doctest/doctest.h>

namespace sa = static_attention;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

const sa::gpt_model<float, tiny>& model() {
  static const sa::gpt_model<float, tiny> m = [] {
    sa::gpt_model<float, tiny> built;
    sa::torch_generator gen{123};
    sa::init_like_torch(built, gen);
    return built;
  }();
  return m;
}

const sa::sampling warm{.temperature = 1.0, .top_k = 25, .eos_id = std::nullopt};

// Calls generate with the given arguments and checks the error code, that out still holds its
// sentinel and that the workspace and the generator are untouched.
template <std::size_t Capacity>
void check_error(std::span<const int> prompt, std::size_t max_new, const sa::sampling& s, std::size_t out_size,
                 sa::errc expected) {
  static sa::gpt_workspace<float, tiny, Capacity> ws;
  ws.clear();
  (void)model().prefill(std::array<int, 1>{3}, ws);  // one token held before the call
  std::array<int, 32> out;
  out.fill(-7);
  sa::torch_generator gen{9}, reference_gen{9};
  const auto r = sa::generate(model(), prompt, ws, max_new, s, gen, std::span<int>(out.data(), out_size));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == expected);
  CHECK(!r.error().message.empty());
  for (int id : out) CHECK(id == -7);
  CHECK(ws.length() == 1);
  CHECK(gen.random() == reference_gen.random());
}

}  // namespace

TEST_CASE("bad sampling parameters are errc::invalid_argument") {
  const std::array<int, 2> p{1, 2};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  check_error<8>(p, 3, sa::sampling{.temperature = -0.5, .top_k = 0, .eos_id = {}}, 8, sa::errc::invalid_argument);
  check_error<8>(p, 3, sa::sampling{.temperature = nan, .top_k = 0, .eos_id = {}}, 8, sa::errc::invalid_argument);
  check_error<8>(p, 3, sa::sampling{.temperature = 1e300, .top_k = 0, .eos_id = {}}, 8, sa::errc::invalid_argument);
  check_error<8>(p, 3, sa::sampling{.temperature = 1e-300, .top_k = 0, .eos_id = {}}, 8, sa::errc::invalid_argument);
  check_error<8>(p, 3, sa::sampling{.temperature = 1, .top_k = 65, .eos_id = {}}, 8, sa::errc::invalid_argument);
  check_error<8>(std::span<const int>{}, 3, warm, 8, sa::errc::invalid_argument);  // an empty prompt
}

TEST_CASE("too long a prompt or generation for the workspace is errc::capacity_exceeded") {
  const std::array<int, 6> p{1, 2, 3, 4, 5, 6};
  check_error<4>(p, 1, warm, 16, sa::errc::capacity_exceeded);                        // the prompt alone
  check_error<6>(p, 2, warm, 16, sa::errc::capacity_exceeded);                        // 6 + 2 - 1 tokens to hold
  check_error<4>(std::span<const int>(p).first(2), 9, warm, 16, sa::errc::capacity_exceeded);  // min(10, 8) > 4
}

TEST_CASE("too small an output is errc::output_too_small") {
  const std::array<int, 3> p{1, 2, 3};
  check_error<8>(p, 4, warm, 6, sa::errc::output_too_small);
  check_error<8>(p, 0, warm, 2, sa::errc::output_too_small);
  check_error<8>(p, std::numeric_limits<std::size_t>::max(), warm, 32, sa::errc::output_too_small);
}

TEST_CASE("an id outside [0, vocab_size) is errc::id_out_of_range") {
  check_error<8>(std::array<int, 3>{1, 64, 3}, 2, warm, 8, sa::errc::id_out_of_range);
  check_error<8>(std::array<int, 2>{-1, 3}, 2, warm, 8, sa::errc::id_out_of_range);
}

TEST_CASE("every prompt length gives the std::array overload's ids, past the context too") {
  static sa::gpt_workspace<float, tiny, 8> ws;
  const std::array<int, 8> ids{5, 17, 42, 63, 0, 9, 33, 1};
  const auto check = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
    std::array<int, N> p{};
    for (std::size_t i = 0; i < N; ++i) p[i] = ids[i];
    sa::torch_generator g1{42}, g2{42};
    const auto expected = sa::generate<12>(model(), p, ws, warm, g1);
    std::array<int, N + 12> out{};
    const auto n = sa::generate(model(), p, ws, 12, warm, g2, out);  // std::array in and out
    REQUIRE(n);
    CHECK(*n == expected.length);
    for (std::size_t i = 0; i < *n; ++i) CHECK(out[i] == expected.ids[i]);
  };
  [&]<std::size_t... N>(std::index_sequence<N...>) {
    (check(std::integral_constant<std::size_t, N + 1>{}), ...);
  }(std::make_index_sequence<8>{});
}

TEST_CASE("max_new 0 writes the prompt; eos_id stops before appending it") {
  static sa::gpt_workspace<float, tiny, 8> ws;
  const std::array<int, 3> p{5, 17, 42};
  std::array<int, 8> out{};
  sa::torch_generator gen{123};
  const auto zero = sa::generate(model(), std::span<const int>(p), ws, 0, warm, gen, std::span<int>(out));
  REQUIRE(zero);
  CHECK(*zero == 3);
  CHECK(out[2] == 42);
  sa::torch_generator g1{123};
  const auto free_run = sa::generate<5>(model(), p, ws, warm, g1);
  const auto stop = sa::sampling{.temperature = warm.temperature, .top_k = warm.top_k, .eos_id = free_run.ids[4]};
  sa::torch_generator g2{123};
  const auto n = sa::generate(model(), std::span<const int>(p), ws, 5, stop, g2, std::span<int>(out));
  REQUIRE(n);
  CHECK(*n <= 4);  // the second new id (or an earlier equal one) is not appended
  for (std::size_t i = 3; i < *n; ++i) CHECK(out[i] != free_run.ids[4]);
}

TEST_CASE("the std::array overload generates nothing for bad parameters at run time") {
  static sa::gpt_workspace<float, tiny, 8> ws;
  const std::array<int, 3> p{5, 17, 42};
  sa::torch_generator gen{1};
  const auto g = sa::generate<4>(model(), p, ws, sa::sampling{.temperature = -1, .top_k = 0, .eos_id = {}}, gen);
  CHECK(g.length == 3);
  CHECK(g.ids[2] == 42);
  CHECK(g.ids[3] == 0);
}
