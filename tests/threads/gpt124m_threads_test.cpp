// SPDX-License-Identifier: BSL-1.0
// Run-time truth at GPT-2 124M size (random weights, init_like_torch seed 123): hidden rows,
// the last step's logits through matmul_into with the head's weights, and greedy ids are the
// same bits without a pool and with 1, 2 and 3 threads. The model is in static storage.
#include <array>
#include <cstddef>
#include <cstring>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/thread_pool.hpp>

#include <doctest/doctest.h>

namespace sa = static_attention;

namespace {
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;
using workspace_t = sa::gpt_workspace<float, sa::gpt2_124m, 32>;

const gpt2& model() {
  static gpt2 m;
  static const bool ready = [] {
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return true;
  }();
  (void)ready;
  return m;
}

template <class M>
bool same_bits(const M& a, const M& b) {
  return std::memcmp(a.elems, b.elems, sizeof(a.elems)) == 0;
}
}  // namespace

TEST_CASE("GPT-2 124M: hidden rows, last logits and greedy ids are the same bits for 1, 2 and 3 threads") {
  const gpt2& m = model();
  static workspace_t ws;
  const std::array<int, 6> prompt{15496, 11, 314, 716, 257, 3303};
  ws.clear();
  const auto rows = m.hidden(prompt, ws).value();
  static sa::matrix<float, 1, 50257> logits;
  static sa::matrix<float, 1, 50257> threaded_logits;
  sa::matrix<float, 1, 768> last;
  std::memcpy(last.elems, rows.elems + 5 * 768, sizeof(last.elems));
  sa::matmul_into(logits, last, m.out_head);
  const auto ids = sa::generate<5>(m, prompt, ws).value();
  for (std::size_t threads = 1; threads <= 3; ++threads) {
    CAPTURE(threads);
    sa::thread_pool pool(threads);
    ws.clear();
    const auto threaded = m.hidden(prompt, ws, pool);
    REQUIRE(threaded);
    CHECK(same_bits(*threaded, rows));
    sa::matmul_into(threaded_logits, last, m.out_head, pool);
    CHECK(same_bits(threaded_logits, logits));
    const auto threaded_ids = sa::generate<5>(m, prompt, ws, pool);
    REQUIRE(threaded_ids);
    CHECK(*threaded_ids == ids);
  }
}
