// SPDX-License-Identifier: BSL-1.0
// Run-time truth: a small GPT gives the same bits with a thread_pool of 1, 2 and 3 threads as
// without one (the property: each output element is computed by one thread in the serial
// order): matmul_into, hidden rows over two chunks, prefill, greedy generation past the
// context (slides) and sampled generation (array and span overloads).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>
#include <static_attention/nn/thread_pool.hpp>

#include <doctest/doctest.h>

namespace sa = static_attention;

namespace {

// 4 heads, biases on the queries, keys and values; a context past one 128-token chunk.
inline constexpr sa::gpt_config small{97, 160, 64, 4, 2, true};
using model_t = sa::gpt_model<float, small>;
using workspace_t = sa::gpt_workspace<float, small, 160>;

const model_t& model() {
  static model_t m;
  static const bool ready = [] {
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return true;
  }();
  (void)ready;
  return m;
}

workspace_t& workspace() {
  static workspace_t ws;
  return ws;
}

template <class M>
bool same_bits(const M& a, const M& b) {
  return std::memcmp(a.elems, b.elems, sizeof(a.elems)) == 0;
}

template <std::size_t N>
std::array<int, N> some_ids() {
  std::array<int, N> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = static_cast<int>((i * 31 + 7) % small.vocab_size);
  return ids;
}

template <std::size_t R, std::size_t K, std::size_t C>
void check_matmul(sa::thread_pool& pool) {
  static sa::matrix<float, R, K> a;
  static sa::matrix<float, K, C> b;
  sa::torch_generator gen{7};
  for (auto& x : a.elems) x = sa::uniform(gen, -0.5f, 0.5f);
  for (auto& x : b.elems) x = sa::uniform(gen, -0.5f, 0.5f);
  static sa::matrix<float, R, C> serial;
  static sa::matrix<float, R, C> threaded;
  sa::matmul_into(serial, a, b);
  sa::matmul_into(threaded, a, b, pool);
  CHECK(same_bits(serial, threaded));
}

}  // namespace

TEST_CASE("thread_pool: matmul_into gives matmul_into's bits for 1, 2 and 3 threads") {
  for (std::size_t threads = 1; threads <= 3; ++threads) {
    sa::thread_pool pool(threads);
    check_matmul<1, 64, 97>(pool);
    check_matmul<1, 768, 3072>(pool);  // a decode step's shape: the gemv path
    check_matmul<5, 64, 256>(pool);
    check_matmul<130, 96, 200>(pool);  // packed, with a tail block
  }
}

TEST_CASE("thread_pool: hidden rows over two chunks and prefill are bit-identical to the calls without a pool") {
  const model_t& m = model();
  workspace_t& ws = workspace();
  const auto ids = some_ids<150>();
  ws.clear();
  const auto serial = m.hidden(ids, ws).value();
  ws.clear();
  const auto serial_last = m.prefill(std::span<const int>(ids.data(), 137), ws).value();
  for (std::size_t threads = 1; threads <= 3; ++threads) {
    sa::thread_pool pool(threads);
    ws.clear();
    const auto rows = m.hidden(ids, ws, pool);
    REQUIRE(rows);
    CHECK(same_bits(*rows, serial));
    ws.clear();
    const auto last = m.prefill(std::span<const int>(ids.data(), 137), ws, pool);
    REQUIRE(last);
    CHECK(same_bits(*last, serial_last));
    ws.clear();
    const auto whole = m.prefill(ids, ws, pool);
    REQUIRE(whole);
    CHECK(std::memcmp(whole->elems, serial.elems + 149 * small.emb_dim, sizeof(whole->elems)) == 0);
  }
}

TEST_CASE("thread_pool: greedy generation past the context gives the same ids for every thread count") {
  const model_t& m = model();
  workspace_t& ws = workspace();
  const auto prompt = some_ids<5>();
  const auto serial = sa::generate<170>(m, prompt, ws).value();  // 15 slides past 160 tokens
  for (std::size_t threads = 1; threads <= 3; ++threads) {
    sa::thread_pool pool(threads);
    const auto ids = sa::generate<170>(m, prompt, ws, pool);
    REQUIRE(ids);
    CHECK(*ids == serial);
  }
}

TEST_CASE("thread_pool: sampled generation draws the same ids for every thread count") {
  const model_t& m = model();
  workspace_t& ws = workspace();
  const auto prompt = some_ids<4>();
  const sa::sampling s{1.4, 25, std::nullopt};
  sa::torch_generator gen0{123};
  const auto serial = sa::generate<40>(m, prompt, ws, s, gen0);
  std::array<int, 44> serial_span{};
  sa::torch_generator gen1{123};
  const auto n = sa::generate(m, std::span<const int>(prompt), ws, 40, s, gen1, std::span<int>(serial_span));
  REQUIRE(n);
  for (std::size_t threads = 1; threads <= 3; ++threads) {
    sa::thread_pool pool(threads);
    sa::torch_generator gen{123};
    const auto ids = sa::generate<40>(m, prompt, ws, s, gen, pool);
    CHECK(ids.length == serial.length);
    CHECK(ids.ids == serial.ids);
    std::array<int, 44> out{};
    sa::torch_generator gen2{123};
    const auto count = sa::generate(m, std::span<const int>(prompt), ws, 40, s, gen2, std::span<int>(out), pool);
    REQUIRE(count);
    CHECK(*count == *n);
    CHECK(out == serial_span);
  }
}

TEST_CASE("thread_pool: the pool overloads return the same error values, the workspace untouched") {
  const model_t& m = model();
  workspace_t& ws = workspace();
  sa::thread_pool pool(2);
  ws.clear();
  const std::array<int, 3> bad{1, 200, 2};
  const auto r = m.hidden(bad, ws, pool);
  REQUIRE(!r);
  CHECK(r.error().code == sa::errc::id_out_of_range);
  CHECK(ws.length() == 0);
  const auto g = sa::generate<4>(m, bad, ws, pool);
  REQUIRE(!g);
  CHECK(g.error().code == sa::errc::id_out_of_range);
}
