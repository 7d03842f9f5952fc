// SPDX-License-Identifier: BSL-1.0
// attend_into: causal multi-head attention into caller-owned storage, bit for bit att(x), at
// both times; and the chapter's exercise 3.3 at GPT-2 size (d = 768, 12 heads, 1024 tokens),
// which att(x) cannot run on a default 8 MiB stack, with x, out and the cache on the heap.
#include <bit>
#include <cstdint>
#include <memory>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/kv_cache.hpp>
#include <static_attention/nn/torch_init.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;

namespace {

template <class M>
constexpr bool same_bits(const M& a, const M& b) {
  using U = std::conditional_t<sizeof(typename M::value_type) == 8, std::uint64_t, std::uint32_t>;
  for (std::size_t k = 0; k < M::size; ++k)
    if (std::bit_cast<U>(a.elems[k]) != std::bit_cast<U>(b.elems[k])) return false;
  return true;
}

// 37 tokens: two blocks of 16 and a tail of 5.
template <class T, bool QkvBias>
constexpr bool into_is_forward() {
  sa::torch_generator gen{5};
  sa::multi_head_attention<T, 12, 8, 2, 40, QkvBias> att{};
  sa::init_like_torch(att, gen);
  const auto x = sa::rand<T, 37, 12>(gen);
  sa::matrix<T, 37, 8> out;
  sa::kv_cache<T, 40, 8> cache;
  sa::attend_into(att, x, out, cache);
  return same_bits(out, att(x)) && cache.length == 37;
}

}  // namespace

TEST_CASE("attend_into is att(x), bit for bit") {
  SA_CHECK_BOTH(into_is_forward<float, false>());
  SA_CHECK_BOTH(into_is_forward<double, true>());
}

TEST_CASE("exercise 3.3 at GPT-2 size: 1024 tokens of 768 features, 12 heads, on the heap") {
  using mha = sa::multi_head_attention<float, 768, 768, 12, 1024>;
  auto att = std::make_unique<mha>();
  sa::torch_generator gen{123};
  sa::init_like_torch(*att, gen);
  auto x = std::make_unique<sa::matrix<float, 1024, 768>>();
  for (auto& e : x->elems) e = sa::uniform(gen, -1.0f, 1.0f);
  auto out = std::make_unique<sa::matrix<float, 1024, 768>>();
  auto cache = std::make_unique<sa::kv_cache<float, 1024, 768>>();
  sa::attend_into(*att, *x, *out, *cache);
  // The first 16 rows only see the first 16 tokens: att on those 16 gives the same rows.
  sa::matrix<float, 16, 768> first;
  for (std::size_t k = 0; k < first.size; ++k) first.elems[k] = x->elems[k];
  const auto expected = (*att)(first);
  for (std::size_t k = 0; k < expected.size; ++k)
    CHECK(std::bit_cast<std::uint32_t>(out->elems[k]) == std::bit_cast<std::uint32_t>(expected.elems[k]));
  CHECK(cache->length == 1024);
}
