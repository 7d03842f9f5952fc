// SPDX-License-Identifier: BSL-1.0
// Run-time speed of static_attention's kernels against Eigen 3.4 fixed-size matrices and a
// naive triple loop, all in this one binary (same compiler, same flags: -O3 -march=native),
// plus the machine's FMA throughput peak. Counter FLOPS is the nominal floating-point
// operations per second (2 R K C per product; attention: its matrix products, see below).
// Summarised by bench/report.py (medians of repetitions, ratios to Eigen, % of peak).
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

#include <benchmark/benchmark.h>
#include <Eigen/Dense>

#include <static_attention/core/detail/kernel_simd.hpp>
#include <static_attention/static_attention.hpp>
#include "bandwidth.hpp"

namespace {

namespace sa = static_attention;

// ---------------------------------------------------------------------------------------
// Inputs: uniform in [-1, 1), drawn at run time. Large operands live on the heap (setup only),
// so no benchmark depends on the stack size.

template <class T>
void fill(T* p, std::size_t n, unsigned seed) {
  std::mt19937 rng{seed};
  std::uniform_real_distribution<double> dist{-1.0, 1.0};
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(rng));
}

template <class M>
std::unique_ptr<M> random_sa(unsigned seed) {
  auto m = std::make_unique<M>();
  fill(m->elems, M::size, seed);
  return m;
}

template <class M>
std::unique_ptr<M> random_eigen(unsigned seed) {
  auto m = std::make_unique<M>();
  fill(m->data(), static_cast<std::size_t>(m->size()), seed);
  return m;
}

void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOPS"] = benchmark::Counter(flops_per_iteration, benchmark::Counter::kIsIterationInvariantRate,
                                               benchmark::Counter::kIs1000);
}

// ---------------------------------------------------------------------------------------
// Matrix product (R x K) . (K x C).

template <class T, std::size_t R, std::size_t K, std::size_t C>
void matmul_sa(benchmark::State& state) {
  auto a = random_sa<sa::matrix<T, R, K>>(1);
  auto b = random_sa<sa::matrix<T, K, C>>(2);
  auto c = std::make_unique<sa::matrix<T, R, C>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a->elems);
    benchmark::DoNotOptimize(b->elems);
    *c = sa::matmul(*a, *b);
    benchmark::DoNotOptimize(c->elems);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * R * K * C);
}

template <class T, std::size_t R, std::size_t K, std::size_t C>
void matmul_eigen(benchmark::State& state) {
  auto a = random_eigen<Eigen::Matrix<T, R, K>>(1);
  auto b = random_eigen<Eigen::Matrix<T, K, C>>(2);
  auto c = random_eigen<Eigen::Matrix<T, R, C>>(3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a->data());
    benchmark::DoNotOptimize(b->data());
    c->noalias() = (*a) * (*b);
    benchmark::DoNotOptimize(c->data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * R * K * C);
}

// The textbook loop: one dot product per output element, row-major raw arrays.
template <class T, std::size_t R, std::size_t K, std::size_t C>
void naive_matmul(const T* a, const T* b, T* c) {
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      T acc{};
      for (std::size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[k * C + j];
      c[i * C + j] = acc;
    }
}

template <class T, std::size_t R, std::size_t K, std::size_t C>
void matmul_naive(benchmark::State& state) {
  auto a = random_sa<sa::matrix<T, R, K>>(1);
  auto b = random_sa<sa::matrix<T, K, C>>(2);
  auto c = std::make_unique<sa::matrix<T, R, C>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a->elems);
    benchmark::DoNotOptimize(b->elems);
    naive_matmul<T, R, K, C>(a->elems, b->elems, c->elems);
    benchmark::DoNotOptimize(c->elems);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * R * K * C);
}

#define SA_MATMUL(T, R, K, C)                   \
  BENCHMARK_TEMPLATE(matmul_sa, T, R, K, C);    \
  BENCHMARK_TEMPLATE(matmul_eigen, T, R, K, C); \
  BENCHMARK_TEMPLATE(matmul_naive, T, R, K, C)

SA_MATMUL(float, 4, 4, 4);
SA_MATMUL(float, 8, 8, 8);
SA_MATMUL(float, 16, 16, 16);
SA_MATMUL(float, 32, 32, 32);
SA_MATMUL(float, 64, 64, 64);
SA_MATMUL(float, 128, 128, 128);
SA_MATMUL(float, 6, 3, 2);
SA_MATMUL(double, 4, 4, 4);
SA_MATMUL(double, 8, 8, 8);
SA_MATMUL(double, 16, 16, 16);
SA_MATMUL(double, 32, 32, 32);
SA_MATMUL(double, 64, 64, 64);
SA_MATMUL(double, 128, 128, 128);
SA_MATMUL(double, 6, 3, 2);

// ---------------------------------------------------------------------------------------
// Self-attention forward, N tokens x d_in -> d_out: Q, K, V projections, softmax(Q K^T /
// sqrt(d_out)) V. Nominal flops: 3 (2 N d_in d_out) + 2 (2 N N d_out).

constexpr double self_attention_flops(double n, double d_in, double d_out) {
  return 3 * 2 * n * d_in * d_out + 2 * 2 * n * n * d_out;
}

template <class T, std::size_t N, std::size_t Din, std::size_t Dout>
void self_attention_sa(benchmark::State& state) {
  using module = sa::self_attention<T, Din, Dout>;
  auto attn = std::make_unique<module>(*random_sa<sa::matrix<T, Din, Dout>>(1), *random_sa<sa::matrix<T, Din, Dout>>(2),
                                       *random_sa<sa::matrix<T, Din, Dout>>(3));
  auto x = random_sa<sa::matrix<T, N, Din>>(4);
  auto out = std::make_unique<sa::matrix<T, N, Dout>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x->elems);
    *out = (*attn)(*x);
    benchmark::DoNotOptimize(out->elems);
    benchmark::ClobberMemory();
  }
  set_flops(state, self_attention_flops(N, Din, Dout));
}

// Row-wise stable softmax of Eigen scores, in place.
template <class S>
void eigen_softmax_rows(S& s) {
  s = (s.colwise() - s.rowwise().maxCoeff()).array().exp().matrix();
  s.array().colwise() /= s.rowwise().sum().array();
}

template <class T, std::size_t N, std::size_t Din, std::size_t Dout>
struct eigen_self_attention {
  Eigen::Matrix<T, Din, Dout> wq, wk, wv;
  void operator()(const Eigen::Matrix<T, N, Din>& x, Eigen::Matrix<T, N, Dout>& out) const {
    const Eigen::Matrix<T, N, Dout> q = x * wq;
    const Eigen::Matrix<T, N, Dout> k = x * wk;
    const Eigen::Matrix<T, N, Dout> v = x * wv;
    Eigen::Matrix<T, N, N, N == 1 ? Eigen::ColMajor : Eigen::RowMajor> s;
    s.noalias() = q * k.transpose();
    s /= std::sqrt(static_cast<T>(Dout));
    eigen_softmax_rows(s);
    out.noalias() = s * v;
  }
};

template <class T, std::size_t N, std::size_t Din, std::size_t Dout>
void self_attention_eigen(benchmark::State& state) {
  using module = eigen_self_attention<T, N, Din, Dout>;
  auto attn = std::make_unique<module>();
  fill(attn->wq.data(), Din * Dout, 1);
  fill(attn->wk.data(), Din * Dout, 2);
  fill(attn->wv.data(), Din * Dout, 3);
  auto x = random_eigen<Eigen::Matrix<T, N, Din>>(4);
  auto out = std::make_unique<Eigen::Matrix<T, N, Dout>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x->data());
    (*attn)(*x, *out);
    benchmark::DoNotOptimize(out->data());
    benchmark::ClobberMemory();
  }
  set_flops(state, self_attention_flops(N, Din, Dout));
}

// ---------------------------------------------------------------------------------------
// Causal multi-head attention forward (the chapter's MultiHeadAttention, evaluation mode):
// projections, per head softmax(mask(Q_h K_h^T / sqrt(head_dim))) V_h, concatenation, output
// projection plus bias. Nominal flops: 3 (2 N d_in d_out) + 2 (2 N N d_out) + 2 N d_out d_out
// (the full N x N products, although half of each is masked).

constexpr double multi_head_flops(double n, double d_in, double d_out) {
  return self_attention_flops(n, d_in, d_out) + 2 * n * d_out * d_out;
}

template <class T, std::size_t N, std::size_t Din, std::size_t Dout, std::size_t H>
void multi_head_sa(benchmark::State& state) {
  using module = sa::multi_head_attention<T, Din, Dout, H>;
  auto attn = std::make_unique<module>(*random_sa<sa::matrix<T, Din, Dout>>(1), *random_sa<sa::matrix<T, Din, Dout>>(2),
                                       *random_sa<sa::matrix<T, Din, Dout>>(3),
                                       *random_sa<sa::matrix<T, Dout, Dout>>(5), *random_sa<sa::matrix<T, 1, Dout>>(6));
  auto x = random_sa<sa::matrix<T, N, Din>>(4);
  auto out = std::make_unique<sa::matrix<T, N, Dout>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x->elems);
    *out = (*attn)(*x);
    benchmark::DoNotOptimize(out->elems);
    benchmark::ClobberMemory();
  }
  set_flops(state, multi_head_flops(N, Din, Dout));
}

template <class T, std::size_t N, std::size_t Din, std::size_t Dout, std::size_t H>
struct eigen_multi_head {
  static constexpr std::size_t hd = Dout / H;
  Eigen::Matrix<T, Din, Dout> wq, wk, wv;
  Eigen::Matrix<T, Dout, Dout> wo;
  Eigen::Matrix<T, 1, Dout> bo;
  void operator()(const Eigen::Matrix<T, N, Din>& x, Eigen::Matrix<T, N, Dout>& out) const {
    const Eigen::Matrix<T, N, Dout> q = x * wq;
    const Eigen::Matrix<T, N, Dout> k = x * wk;
    const Eigen::Matrix<T, N, Dout> v = x * wv;
    Eigen::Matrix<T, N, Dout> context;
    const T scale = std::sqrt(static_cast<T>(hd));
    for (std::size_t h = 0; h < H; ++h) {
      const auto col = static_cast<Eigen::Index>(h * hd);
      Eigen::Matrix<T, N, N, N == 1 ? Eigen::ColMajor : Eigen::RowMajor> s;
      s.noalias() = q.template middleCols<hd>(col) * k.template middleCols<hd>(col).transpose();
      s /= scale;
      s.template triangularView<Eigen::StrictlyUpper>().setConstant(-std::numeric_limits<T>::infinity());
      eigen_softmax_rows(s);
      context.template middleCols<hd>(col).noalias() = s * v.template middleCols<hd>(col);
    }
    out.noalias() = context * wo;
    out.rowwise() += bo;
  }
};

template <class T, std::size_t N, std::size_t Din, std::size_t Dout, std::size_t H>
void multi_head_eigen(benchmark::State& state) {
  using module = eigen_multi_head<T, N, Din, Dout, H>;
  auto attn = std::make_unique<module>();
  fill(attn->wq.data(), Din * Dout, 1);
  fill(attn->wk.data(), Din * Dout, 2);
  fill(attn->wv.data(), Din * Dout, 3);
  fill(attn->wo.data(), Dout * Dout, 5);
  fill(attn->bo.data(), Dout, 6);
  auto x = random_eigen<Eigen::Matrix<T, N, Din>>(4);
  auto out = std::make_unique<Eigen::Matrix<T, N, Dout>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x->data());
    (*attn)(*x, *out);
    benchmark::DoNotOptimize(out->data());
    benchmark::ClobberMemory();
  }
  set_flops(state, multi_head_flops(N, Din, Dout));
}

#define SA_ATTENTION(T, N, Din, Dout, H)                     \
  BENCHMARK_TEMPLATE(self_attention_sa, T, N, Din, Dout);    \
  BENCHMARK_TEMPLATE(self_attention_eigen, T, N, Din, Dout); \
  BENCHMARK_TEMPLATE(multi_head_sa, T, N, Din, Dout, H);     \
  BENCHMARK_TEMPLATE(multi_head_eigen, T, N, Din, Dout, H)

SA_ATTENTION(float, 6, 3, 2, 2);  // the chapter: 6 tokens x 3 features -> 2, two heads
SA_ATTENTION(float, 64, 64, 64, 8);
SA_ATTENTION(float, 128, 64, 64, 8);
SA_ATTENTION(double, 6, 3, 2, 2);
SA_ATTENTION(double, 64, 64, 64, 8);
SA_ATTENTION(double, 128, 64, 64, 8);

// ---------------------------------------------------------------------------------------
// Transformer-sized products (GPT-2 small): R rows of activations times 768 x 768, 768 x 3072,
// 3072 x 768 weights and the 768 x 50257 output head. Counter BYTES is the weight matrix's
// size: for a few rows the product is memory-bound, and BYTES/s against the measured read
// bandwidth says how close to the limit it runs.

using bench::set_bytes;

template <class T, std::size_t R, std::size_t K, std::size_t C>
void transformer_sa(benchmark::State& state) {
  auto a = random_sa<sa::matrix<T, R, K>>(1);
  auto b = random_sa<sa::matrix<T, K, C>>(2);
  auto c = std::make_unique<sa::matrix<T, R, C>>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a->elems);
    benchmark::DoNotOptimize(b->elems);
    sa::matmul_into(*c, *a, *b);
    benchmark::DoNotOptimize(c->elems);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * R * K * C);
  set_bytes(state, static_cast<double>(K * C * sizeof(T)));
}
template <class T, std::size_t R, std::size_t K, std::size_t C>
void transformer_eigen(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M a(R, K), b(K, C), c(R, C);
  fill(a.data(), R * K, 1);
  fill(b.data(), K * C, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(b.data());
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * R * K * C);
  set_bytes(state, static_cast<double>(K * C * sizeof(T)));
}
template <class T, std::size_t R, std::size_t K, std::size_t C>
void transformer_naive(benchmark::State& state) {
  matmul_naive<T, R, K, C>(state);
  set_bytes(state, static_cast<double>(K * C * sizeof(T)));
}

#define SA_TRANSFORMER(R, K, C)                       \
  BENCHMARK_TEMPLATE(transformer_sa, float, R, K, C); \
  BENCHMARK_TEMPLATE(transformer_eigen, float, R, K, C)
#define SA_TRANSFORMER_WITH_NAIVE(R, K, C) \
  SA_TRANSFORMER(R, K, C);                 \
  BENCHMARK_TEMPLATE(transformer_naive, float, R, K, C)

SA_TRANSFORMER_WITH_NAIVE(1, 768, 768);
SA_TRANSFORMER_WITH_NAIVE(1, 768, 3072);
SA_TRANSFORMER_WITH_NAIVE(1, 3072, 768);
SA_TRANSFORMER_WITH_NAIVE(4, 768, 768);
SA_TRANSFORMER_WITH_NAIVE(4, 768, 3072);
SA_TRANSFORMER_WITH_NAIVE(4, 3072, 768);
SA_TRANSFORMER_WITH_NAIVE(64, 768, 768);
SA_TRANSFORMER_WITH_NAIVE(64, 768, 3072);
SA_TRANSFORMER_WITH_NAIVE(64, 3072, 768);
SA_TRANSFORMER(1024, 768, 768);
SA_TRANSFORMER(1024, 768, 3072);
SA_TRANSFORMER(1024, 3072, 768);
SA_TRANSFORMER_WITH_NAIVE(1, 768, 50257);
SA_TRANSFORMER_WITH_NAIVE(4, 768, 50257);

// Memory bandwidth, the limit of one-row products (bandwidth.hpp).
BENCHMARK(bench::read_bandwidth);
BENCHMARK(bench::copy_bandwidth);

// ---------------------------------------------------------------------------------------
// Peak: independent FMA chains on native vector registers (the widest the compiler targets),
// enough chains to cover the FMA latency on every FMA pipe.

template <class T>
void fma_peak(benchmark::State& state) {
  constexpr std::size_t lanes = sa::detail::simd::native_lanes<T>;
  // Enough chains to cover the FMA latency on every pipe, within the register file (16 or 32).
  constexpr std::size_t chains = sa::detail::simd::vector_registers >= 32 ? 16 : 12;
  using V = sa::detail::simd::vec<T, lanes>;
  constexpr std::size_t steps = 1024;
  V acc[chains];
  for (std::size_t c = 0; c < chains; ++c) acc[c] = V{} + static_cast<T>(c);
  V mul = V{} + static_cast<T>(0.999999);
  V add = V{} + static_cast<T>(1e-6);
  for (auto _ : state) {
    benchmark::DoNotOptimize(mul);
    benchmark::DoNotOptimize(add);
    for (std::size_t s = 0; s < steps; ++s)
      for (std::size_t c = 0; c < chains; ++c) acc[c] = acc[c] * mul + add;
    for (std::size_t c = 0; c < chains; ++c) benchmark::DoNotOptimize(acc[c]);
  }
  set_flops(state, 2.0 * lanes * chains * steps);
}
BENCHMARK_TEMPLATE(fma_peak, float);
BENCHMARK_TEMPLATE(fma_peak, double);

}  // namespace

BENCHMARK_MAIN();
