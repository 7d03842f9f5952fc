// SPDX-License-Identifier: BSL-1.0
// Compile-time benchmark baseline: the same self-attention as lib_attention.cpp, written as a
// user would by hand: raw arrays and plain loops (matmul, Q K^T, softmax, weights . V). It uses
// the library's constexpr exp and sqrt (math.hpp only), so both sides pay the same for exp.
// With -DSA_EVAL the forward pass is evaluated in a static_assert. Driven by run.py.
#include <cstddef>

#include <static_attention/core/math.hpp>

#ifndef SA_N
#define SA_N 8
#endif
#ifndef SA_D
#define SA_D SA_N
#endif

constexpr std::size_t N = SA_N;
constexpr std::size_t D = SA_D;

constexpr void gen(float* m, std::size_t size, std::size_t seed) {
  for (std::size_t i = 0; i < size; ++i)
    m[i] = static_cast<float>(static_cast<int>((i * 37 + seed * 11) % 101) - 50) / 64.0f;
}

// c (R x C) = a (R x K) . b (K x C)
template <std::size_t R, std::size_t K, std::size_t C>
constexpr void mm(const float* a, const float* b, float* c) {
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      float acc = 0;
      for (std::size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[k * C + j];
      c[i * C + j] = acc;
    }
}

// c (R x C) = a (R x K) . b^T, b being C x K
template <std::size_t R, std::size_t K, std::size_t C>
constexpr void mm_bt(const float* a, const float* b, float* c) {
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      float acc = 0;
      for (std::size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[j * K + k];
      c[i * C + j] = acc;
    }
}

constexpr void softmax_rows(float* s, std::size_t rows, std::size_t cols) {
  for (std::size_t i = 0; i < rows; ++i) {
    float* r = s + i * cols;
    float m = r[0];
    for (std::size_t j = 1; j < cols; ++j)
      if (r[j] > m) m = r[j];
    float total = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      r[j] = static_attention::exp(r[j] - m);
      total += r[j];
    }
    for (std::size_t j = 0; j < cols; ++j) r[j] /= total;
  }
}

struct context_t {
  float v[N * D];
};

constexpr context_t attention() {
  float wq[D * D]{}, wk[D * D]{}, wv[D * D]{}, x[N * D]{};
  gen(wq, D * D, 1);
  gen(wk, D * D, 2);
  gen(wv, D * D, 3);
  gen(x, N * D, 4);
  float q[N * D]{}, k[N * D]{}, v[N * D]{}, s[N * N]{};
  mm<N, D, D>(x, wq, q);
  mm<N, D, D>(x, wk, k);
  mm<N, D, D>(x, wv, v);
  mm_bt<N, D, N>(q, k, s);
  const float scale = static_attention::sqrt(static_cast<float>(D));
  for (std::size_t i = 0; i < N * N; ++i) s[i] /= scale;
  softmax_rows(s, N, N);
  context_t out{};
  mm<N, N, D>(s, v, out.v);
  return out;
}

// Instantiates everything in both variants.
context_t run() { return attention(); }

#ifdef SA_EVAL
constexpr context_t context = attention();
static_assert(context.v[0] == context.v[0] && context.v[N * D - 1] == context.v[N * D - 1]);
#endif
