// SPDX-License-Identifier: BSL-1.0
// Run-time kernels for fixed shapes: a register-blocked matrix product on GCC/Clang vector
// extensions. Never used in constant evaluation (see matmul_kernel.hpp); no heap.
//
// Every output element is the sum of its K products taken in order k = 0, 1, ..., K-1, each
// step acc = fma(a_k, b_k, acc) rounded once where kernels_fuse<T>, else the product rounded on
// its own and then added (kernel_multiply_add, fp_contract.hpp): in both, the constant
// evaluator's bits in that build (matmul_kernel.hpp). Blocking is over
// rows and columns; where it is over k (gemm_packed, matmul_abt's panels), a block starts from
// the partial sums already in out, which keeps the order.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/detail/mve_kernels.hpp>

// Loops over registers are unrolled whole: an array of vector accumulators left as a loop
// lives in memory, not in registers.
#define STATIC_ATTENTION_DETAIL_UNROLL _Pragma("GCC unroll 32")
#if defined(__GNUC__)
#define SA_DETAIL_UNROLL_SCALAR _Pragma("GCC unroll 32")
#else
#define SA_DETAIL_UNROLL_SCALAR
#endif
// GCC on x86 with AVX: where x86's builtins replace what GCC 12 builds through the stack or on
// the shuffle port from the generic vector code.
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && defined(__AVX__)
#define SA_DETAIL_GCC_X86_AVX 1
#else
#define SA_DETAIL_GCC_X86_AVX 0
#endif

namespace static_attention::detail::simd {

// Bytes in the widest vector register the target was compiled for; 0 for plain loops. The
// width follows the compiler's target macros, so a vector never crosses a function boundary
// wider than the ABI allows (no -Wpsabi), and a build without -march gets SSE2 / NEON.
#if defined(__GNUC__) && defined(__AVX512F__)
inline constexpr std::size_t native_bytes = 64;
inline constexpr std::size_t vector_registers = 32;
#elif defined(__GNUC__) && defined(__AVX__)
inline constexpr std::size_t native_bytes = 32;
inline constexpr std::size_t vector_registers = 16;
#elif defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__))
inline constexpr std::size_t native_bytes = 16;
inline constexpr std::size_t vector_registers = 16;
#else
inline constexpr std::size_t native_bytes = 0;
inline constexpr std::size_t vector_registers = 0;
#endif

/// Lanes of T in the native vector (0: no vectors).
template <class T>
inline constexpr std::size_t native_lanes = native_bytes / sizeof(T);

/// Lanes of T in the narrowest vector worth using (16 bytes).
template <class T>
inline constexpr std::size_t min_lanes = 16 / sizeof(T);

// Bytes of b that a packed product copies at a time (gemm_packed), and matmul_abt's panels:
// their whole stack use, whatever the shape.
inline constexpr std::size_t pack_bytes = 32 * 1024;

// Vectors of accumulators per row of a register block (a panel of columns), and the rows of a
// block for NV of them: MR x NV accumulators, NV values of b and one of a within the registers.
inline constexpr std::size_t max_panel_vectors = vector_registers >= 32 ? 4 : 2;
template <std::size_t NV>
inline constexpr std::size_t block_rows = [] {
  const std::size_t fit = vector_registers > NV + 2 ? (vector_registers - NV - 2) / NV : 1;
  return fit < 1 ? 1 : (fit > 8 ? 8 : fit);
}();

// Columns per register panel: max_panel_vectors vectors of W lanes.
template <class T, std::size_t W>
inline constexpr std::size_t panel_columns = max_panel_vectors* W;

// Products whose b panels do not fit in L1: b is packed, a panel of KC rows at a time, into a
// contiguous buffer on the stack (pack_bytes) that every block of rows then reads from L1,
// instead of each block streaming the strided panel from L2 (GEBP's packing of B). The k
// blocks run in order, each after the first adding to the partial sums already in out, so
// every element still sums its products in order k = 0, ..., K-1.
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline constexpr bool use_packed =
    R >= 8 && C >= panel_columns<T, native_lanes<T>>&& K* panel_columns<T, native_lanes<T>> * sizeof(T) > pack_bytes;

#if defined(__GNUC__)
template <class T, std::size_t W>
struct vec_of {
  typedef T type __attribute__((vector_size(W * sizeof(T))));
};
/// W lanes of T in one register.
template <class T, std::size_t W>
using vec = typename vec_of<T, W>::type;

// vec<T, W> to read elements of T in place (as x86's intrinsics read through __m128 pointers).
template <class T, std::size_t W>
struct unaligned_vec_of {
  typedef T type __attribute__((vector_size(W * sizeof(T)), __may_alias__, __aligned__(alignof(T))));
};
template <class T, std::size_t W>
using unaligned_vec = typename unaligned_vec_of<T, W>::type;

// out[MR x NV*W] (+)= a[MR x K] . b[K x NV*W], with row strides LDA, LDB, LDC. The MR x NV
// accumulators stay in registers; per k, NV loads of b and MR broadcasts of a feed MR*NV
// independent multiplies and adds. Acc: start from out's values instead of zeros.
template <class T, std::size_t W, std::size_t MR, std::size_t NV, std::size_t K, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc>
[[gnu::always_inline]] inline void block(const T* a, const T* b, T* out) noexcept {
  using V = vec<T, W>;
  V acc[MR][NV] = {};
  if constexpr (Acc)
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t r = 0; r < MR; ++r)
        STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t v = 0; v < NV; ++v)
            __builtin_memcpy(&acc[r][v], out + r * LDC + v * W, sizeof(V));
  for (std::size_t k = 0; k < K; ++k) {
    V bv[NV];
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t v = 0; v < NV; ++v)
        __builtin_memcpy(&bv[v], b + k * LDB + v * W, sizeof(V));
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t r = 0; r < MR; ++r) {
      const V av = a[r * LDA + k] - V{};  // a broadcast: x - (+0) is x, even for -0
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t v = 0; v < NV; ++v) kernel_multiply_add<T>(acc[r][v], av, bv[v]);
    }
  }
  STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t r = 0; r < MR; ++r)
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t v = 0; v < NV; ++v)
          __builtin_memcpy(out + r * LDC + v * W, &acc[r][v], sizeof(V));
}

// Rows [0, R) of a column panel of NV vectors: blocks of MR rows, then the remaining rows.
template <class T, std::size_t W, std::size_t NV, std::size_t R, std::size_t K, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc>
[[gnu::always_inline]] inline void panel(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t MR = R < block_rows<NV> ? R : block_rows<NV>;
  constexpr std::size_t full = R / MR * MR;
  for (std::size_t i = 0; i < full; i += MR) block<T, W, MR, NV, K, LDA, LDB, LDC, Acc>(a + i * LDA, b, out + i * LDC);
  if constexpr (full < R) block<T, W, R - full, NV, K, LDA, LDB, LDC, Acc>(a + full * LDA, b, out + full * LDC);
}

// Rows of out narrower than a vector: G rows of N < NW columns per vector of NW lanes when they
// are contiguous (LDC == N), else one row per vector; lane L is row L / N, column L % N, and
// lanes past G N compute values that are never stored. NG such vectors (NG G rows) advance
// together: independent sums, one vector of b for all, k = 0, 1, ... in every lane.
//
// Small blocks (a's G rows contiguous, one to two vectors long, K <= 16) load a's rows as two
// vectors, the first and the last W elements (overlapping, never past the block), and take each
// k's column with one constant two-vector shuffle; b's row k is one broadcast from memory when N
// is a power of two: per k one shuffle, one load and one FMA a vector. Otherwise the vectors are
// gathered lane by lane (the compiler's broadcasts, inserts and shuffles).
// Blocks of two vectors only with AVX-512, whose two-source permutes (vpermt2ps/pd) take one
// instruction per k where AVX2 needs three.
template <class T, std::size_t G, std::size_t K, std::size_t LDA, std::size_t W>
inline constexpr bool narrow_by_shuffles =
    (G == 1 || LDA == K) && K <= 16 && W <= G* K&& G* K <= (vector_registers >= 32 ? 2 * W : W);

// Else, with AVX (G rows of a to a vector, up to 4): each k's vector of a is G broadcasts from
// memory (loads) merged by G - 1 blends, which any of three ports executes, where the gathered
// form's inserts and shuffles all wait for the one shuffle port.
template <class T, std::size_t G, std::size_t K, std::size_t LDA, std::size_t W>
inline constexpr bool narrow_by_blends = !narrow_by_shuffles<T, G, K, LDA, W> && native_bytes >= 32 && G > 1 && G <= 4;

// Lanes of rows [0, r] from acc, the others from next (a blend with a constant mask).
// (GCC 12 turns some of these blends into vperm2f128 or vshufps, on the shuffle port: it gets
// x86's blend instructions by name.)
template <std::size_t N, std::size_t r, class V, std::size_t... L>
[[gnu::always_inline]] inline V blend_row(V acc, V next, std::index_sequence<L...>) noexcept {
#if SA_DETAIL_GCC_X86_AVX
  constexpr int mask = ((L / N < r ? 0 : 1 << L) | ...);
  if constexpr (sizeof(V) == 32 && sizeof(acc[0]) == 4)
    return __builtin_ia32_blendps256(acc, next, mask);
  else if constexpr (sizeof(V) == 32 && sizeof(acc[0]) == 8)
    return __builtin_ia32_blendpd256(acc, next, mask);
  else if constexpr (sizeof(V) == 16 && sizeof(acc[0]) == 4)
    return __builtin_ia32_blendps(acc, next, mask);
  else if constexpr (sizeof(V) == 16 && sizeof(acc[0]) == 8)
    return __builtin_ia32_blendpd(acc, next, mask);
  else
#endif
    return __builtin_shufflevector(acc, next, (L / N < r ? L : sizeof...(L) + L)...);
}

// A broadcast of x that stays one (the optimiser would merge the broadcasts of rows_across back
// into the permutes of the gathered form).
template <class V, class T>
[[gnu::always_inline]] inline V broadcast(T x) noexcept {
  V v = x - V{};  // x - (+0) is x, even for -0
  round_here(v);
  return v;
}

// Lane L: a[(L / N) LDA + k], the rows' broadcasts blended (the rows past G hold row G - 1).
template <class T, std::size_t N, std::size_t LDA, class V, std::size_t... L, std::size_t... Rs>
[[gnu::always_inline]] inline V rows_across(const T* a, std::size_t k, std::index_sequence<L...> lanes,
                                            std::index_sequence<0, Rs...>) noexcept {
  V av = broadcast<V>(a[k]);
  ((av = blend_row<N, Rs>(av, broadcast<V>(a[Rs * LDA + k]), lanes)), ...);
  return av;
}

// The lane of (lo, hi) that holds element e of a block of n elements: lo holds [0, W), hi
// holds [n - W, n).
template <std::size_t W, std::size_t n>
constexpr std::size_t block_lane(std::size_t e) noexcept {
  return e < W ? e : W + (e - (n - W));
}

template <std::size_t N>
inline constexpr bool power_of_two = N != 0 && (N & (N - 1)) == 0;

template <std::size_t... I>
[[gnu::always_inline]] inline vec<double, sizeof...(I)> splat(double d, std::index_sequence<I...>) noexcept {
  return vec<double, sizeof...(I)>{(static_cast<void>(I), d)...};
}

// Lane L of b's row k: b[k LDB + L % N], a broadcast of the row from memory when N is a power of
// two. Clang finds the broadcast in the shuffle; GCC 12 builds the 16- and 32-byte ones through
// the stack, so it gets x86's broadcast instructions by name (8 bytes: a broadcast of one double).
template <class T, std::size_t N, std::size_t used, class V, std::size_t... L>
[[gnu::always_inline]] inline V row_across(const T* row, std::index_sequence<L...>) noexcept {
  constexpr std::size_t W = sizeof...(L);
  if constexpr (power_of_two<N> && N < W) {
    vec<T, N> r;
    __builtin_memcpy(&r, row, sizeof(r));
#if SA_DETAIL_GCC_X86_AVX
    constexpr std::size_t row_bytes = N * sizeof(T);
    constexpr std::size_t bytes = W * sizeof(T);
    if constexpr (row_bytes == 8 && bytes == 32) {
      // From memory (a load-port operation): the 16-byte broadcast of the same row, which a
      // narrower tail block takes, then folds its own load (vmovddup) instead of both
      // broadcasting one loaded register on the shuffle port (port 5 on Intel).
      const auto both = __builtin_ia32_vbroadcastsd256(reinterpret_cast<const double*>(row));
      V out;
      __builtin_memcpy(&out, &both, bytes);
      return out;
    } else if constexpr (row_bytes == 8) {
      double d;
      __builtin_memcpy(&d, row, 8);
      const vec<double, bytes / 8> x = splat(d, std::make_index_sequence<bytes / 8>{});  // no arithmetic: any bits
      V out;
      __builtin_memcpy(&out, &x, bytes);
      return out;
    }
#if defined(__AVX512F__)
    else if constexpr (bytes == 64 && row_bytes == 16 && std::is_same_v<T, float>)
      return __builtin_ia32_broadcastf32x4_512(r, V{}, static_cast<unsigned short>(0xFFFF));
    else if constexpr (bytes == 64 && row_bytes == 32 && std::is_same_v<T, double>)
      return __builtin_ia32_broadcastf64x4_512(r, V{}, static_cast<unsigned char>(0xFF));
#if defined(__AVX512DQ__)
    else if constexpr (bytes == 64 && row_bytes == 16 && std::is_same_v<T, double>)
      return __builtin_ia32_broadcastf64x2_512_mask(r, V{}, static_cast<unsigned char>(0xFF));
    else if constexpr (bytes == 64 && row_bytes == 32 && std::is_same_v<T, float>)
      return __builtin_ia32_broadcastf32x8_512_mask(r, V{}, static_cast<unsigned short>(0xFFFF));
#endif
#endif
    else if constexpr (bytes == 32 && row_bytes == 16 && std::is_same_v<T, float>)
      return __builtin_ia32_vbroadcastf128_ps256(reinterpret_cast<const unaligned_vec<T, N>*>(row));
    else if constexpr (bytes == 32 && row_bytes == 16 && std::is_same_v<T, double>)
      return __builtin_ia32_vbroadcastf128_pd256(reinterpret_cast<const unaligned_vec<T, N>*>(row));
    else
#endif
      return __builtin_shufflevector(r, r, (L % N)...);
  } else {
    return V{(L < used ? row[L % N] : T{})...};
  }
}

// Else, with AVX, two or more rows to a chunk of four lanes (N <= 2), when each chunk's elements
// of a column of a lie within four consecutive elements (the chapter's 6x3.3x2: rows i and
// i + 1 need a[3i + k] and a[3i + 3 + k]): each chunk is one load of four elements of a and each
// k's column one permute, where the blends take a load a row. Floats: 16-byte chunks, the
// permute within 128-bit lanes (vpermilps); doubles: one 32-byte chunk, a vpermpd.
template <class T, std::size_t G, std::size_t N, std::size_t K, std::size_t LDA, std::size_t W>
inline constexpr bool narrow_by_chunks = [] {
  if constexpr (!std::is_floating_point_v<T> || native_bytes < 32 || narrow_by_shuffles<T, G, K, LDA, W>) {
    return false;
  } else {
    if (LDA != K || N > 2 || G < 2 || K > 16 || G * K < 4 || G * N > W) return false;
    if (std::is_same_v<T, float> ? W != 4 && W != 8 : !std::is_same_v<T, double> || W != 4) return false;
    constexpr std::size_t rows_per_chunk = 4 / N;
    for (std::size_t top = 0; top < G; top += rows_per_chunk) {
      const std::size_t bottom = (top + rows_per_chunk < G ? top + rows_per_chunk : G) - 1;
      if ((bottom - top) * K + 1 > 4) return false;
    }
    return true;
  }
}();

// Where chunk c of narrow_by_chunks loads its four elements of a for column k: at its first row's
// element, or earlier where that would read past the block's G K elements.
template <std::size_t G, std::size_t N, std::size_t K, std::size_t k>
constexpr std::size_t chunk_offset(std::size_t c) noexcept {
  const std::size_t first = c * (4 / N) * K + k;
  return first < G * K - 4 ? first : G * K - 4;
}

// Lane L: a[(L / N) K + k] (rows past G repeat a loaded element), from one load of four elements
// a chunk.
template <class T, std::size_t G, std::size_t N, std::size_t K, std::size_t k, class V, std::size_t... L>
[[gnu::always_inline]] inline V column_by_chunks(const T* a, std::index_sequence<L...>) noexcept {
  constexpr std::size_t W = sizeof...(L);
  using Q = vec<T, 4>;
  Q q0;
  __builtin_memcpy(&q0, a + chunk_offset<G, N, K, k>(0), sizeof(Q));
  V s;
  if constexpr (W == 4) {
    s = q0;
  } else {
    static_assert(W == 8, "narrow_by_chunks: one or two chunks of four lanes");
    const T* p1 = a + chunk_offset<G, N, K, k>(G * N > 4 ? 1 : 0);
#if SA_DETAIL_GCC_X86_AVX
    // vinsertf128 from memory (any ALU port) rather than a load and the register form (the
    // shuffle port, with the permutes of every k).
    static_assert(std::is_same_v<T, float>, "narrow_by_chunks: two chunks only of floats");
    const V lo = __builtin_ia32_ps256_ps(q0);  // upper half undefined, then replaced
    s = __builtin_ia32_vinsertf128_ps256(lo, *reinterpret_cast<const unaligned_vec<T, 4>*>(p1), 1);
#else
    Q q1;
    __builtin_memcpy(&q1, p1, sizeof(Q));
    s = __builtin_shufflevector(q0, q1, 0, 1, 2, 3, 4, 5, 6, 7);
#endif
  }
  constexpr auto lane = [](std::size_t l) {
    const std::size_t c = l / 4;
    const std::size_t row = l / N;
    return row >= G ? c * 4 : c * 4 + (row * K + k - chunk_offset<G, N, K, k>(c));
  };
  return __builtin_shufflevector(s, s, lane(L)...);
}

template <class T, std::size_t G, std::size_t K, std::size_t N, std::size_t LDB, std::size_t used, class V,
          std::size_t... L, std::size_t... Ks>
[[gnu::always_inline]] inline void chunk_steps(V& acc, const T* a, const T* b, std::index_sequence<L...> lanes,
                                               std::index_sequence<Ks...>) noexcept {
  // k = 0, 1, ... in order
  ((kernel_multiply_add<T>(acc, column_by_chunks<T, G, N, K, Ks, V>(a, lanes),
                           row_across<T, N, used, V>(b + Ks * LDB, lanes))),
   ...);
}

// One k of the small-block form: acc[g] += column k of a's block g (lane L: row L / N) times b's
// row k across the lanes.
template <class T, std::size_t G, std::size_t NG, std::size_t K, std::size_t N, std::size_t LDB, std::size_t k, class V,
          std::size_t... L>
[[gnu::always_inline]] inline void narrow_step(V (&acc)[NG], const V (&lo)[NG], const V (&hi)[NG], const T* b,
                                               std::index_sequence<L...> lanes) noexcept {
  constexpr std::size_t used = G * N;
  constexpr std::size_t W = sizeof...(L);
  const V bv = row_across<T, N, used, V>(b + k * LDB, lanes);
  STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
    const V av = __builtin_shufflevector(lo[g], hi[g], block_lane<W, G * K>(L < used ? (L / N) * K + k : 0)...);
    kernel_multiply_add<T>(acc[g], av, bv);
  }
}

template <class T, std::size_t G, std::size_t NG, std::size_t K, std::size_t N, std::size_t LDB, class V,
          std::size_t... L, std::size_t... Ks>
[[gnu::always_inline]] inline void narrow_steps(V (&acc)[NG], const V (&lo)[NG], const V (&hi)[NG], const T* b,
                                                std::index_sequence<L...> lanes, std::index_sequence<Ks...>) noexcept {
  (narrow_step<T, G, NG, K, N, LDB, Ks>(acc, lo, hi, b, lanes), ...);  // k = 0, 1, ... in order
}

template <class T, std::size_t G, std::size_t NG, std::size_t K, std::size_t N, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc, std::size_t... L>
[[gnu::always_inline]] inline void narrow(const T* a, const T* b, T* out, std::index_sequence<L...> lanes) noexcept {
  static_assert(G == 1 || LDC == N, "several rows to a vector only when they are contiguous");
  constexpr std::size_t W = sizeof...(L);
  using V = vec<T, W>;
  constexpr std::size_t used = G * N;
  V acc[NG] = {};
  if constexpr (Acc) {
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
      acc[g] = V{(L < used ? out[(g * G + L / N) * LDC + L % N] : T{})...};
    }
  }
  if constexpr (narrow_by_shuffles<T, G, K, LDA, W>) {
    V lo[NG];
    V hi[NG];
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
      __builtin_memcpy(&lo[g], a + g * G * LDA, sizeof(V));
      __builtin_memcpy(&hi[g], a + g * G * LDA + (G * K - W), sizeof(V));
#if SA_DETAIL_GCC_X86_AVX
      // In registers from here: with AVX-512, GCC otherwise folds the loads into every k's
      // permute, re-reading a (one or two 64-byte loads per k, split across cache lines when a
      // is not 64-byte aligned). Zen 5, bench_kernels: 4x4 and 6x3x2 in float and double 1.35-2.2x
      // faster. With AVX2 the folded form is as fast or faster (float 4x4: 0.85x when held).
      if constexpr (native_bytes == 64) __asm__("" : "+v"(lo[g]), "+v"(hi[g]));
#endif
    }
    narrow_steps<T, G, NG, K, N, LDB>(acc, lo, hi, b, lanes, std::make_index_sequence<K>{});
  } else if constexpr (narrow_by_chunks<T, G, N, K, LDA, W>) {
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
      chunk_steps<T, G, K, N, LDB, used>(acc[g], a + g * G * LDA, b, lanes, std::make_index_sequence<K>{});
    }
  } else if constexpr (narrow_by_blends<T, G, K, LDA, W>) {
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t k = 0; k < K; ++k) {
      const V bv = row_across<T, N, used, V>(b + k * LDB, lanes);
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
        const V av = rows_across<T, N, LDA, V>(a + g * G * LDA, k, lanes, std::make_index_sequence<G>{});
        kernel_multiply_add<T>(acc[g], av, bv);
      }
    }
  } else {
    STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t k = 0; k < K; ++k) {
      const V bv = {(L < used ? b[k * LDB + L % N] : T{})...};
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
        const V av = {(L < used ? a[(g * G + L / N) * LDA + k] : T{})...};
        kernel_multiply_add<T>(acc[g], av, bv);
      }
    }
  }
  STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t g = 0; g < NG; ++g) {
    __builtin_memcpy(out + g * G * LDC, &acc[g], used * sizeof(T));
  }
}

// The lanes of the narrowest vector (16 bytes at least, NW at most) that holds n elements.
template <class T, std::size_t NW>
constexpr std::size_t tail_lanes(std::size_t n) noexcept {
  std::size_t lanes = min_lanes<T>;
  while (lanes < n && lanes < NW) lanes *= 2;
  return lanes;
}

// All R rows of N columns with vectors of NW lanes, G rows per vector, up to four vectors at a
// time; then the remaining whole vectors, then the last rows in a narrower one.
template <class T, std::size_t NW, std::size_t R, std::size_t K, std::size_t N, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc>
[[gnu::always_inline]] inline void narrow_rows(const T* a, const T* b, T* out) noexcept {
  using seq = std::make_index_sequence<NW>;
  constexpr std::size_t G = LDC == N ? NW / N : 1;
  constexpr std::size_t NG = 4;
  constexpr std::size_t step = G * NG;
  constexpr std::size_t full = R / step * step;
  for (std::size_t i = 0; i < full; i += step)
    narrow<T, G, NG, K, N, LDA, LDB, LDC, Acc>(a + i * LDA, b, out + i * LDC, seq{});
  constexpr std::size_t groups = (R - full) / G;
  constexpr std::size_t rest = full + groups * G;
  if constexpr (groups > 0) narrow<T, G, groups, K, N, LDA, LDB, LDC, Acc>(a + full * LDA, b, out + full * LDC, seq{});
  // The last rows, fewer than G, in the narrowest vector that holds them.
  constexpr std::size_t tail = tail_lanes<T, NW>((R - rest) * N);
  if constexpr (rest < R)
    narrow<T, R - rest, 1, K, N, LDA, LDB, LDC, Acc>(a + rest * LDA, b, out + rest * LDC,
                                                     std::make_index_sequence<tail>{});
}

// Columns [J, C) of out with vectors of W lanes: panels of up to max_nv vectors, then the
// remaining whole vectors, then narrower vectors; columns narrower than any vector go several
// rows to a vector (narrow_rows).
template <class T, std::size_t W, std::size_t J, std::size_t R, std::size_t K, std::size_t C, std::size_t LDA,
          std::size_t LDB, std::size_t LDC, bool Acc>
inline void columns(const T* a, const T* b, T* out) noexcept {
  if constexpr (J < C) {
    constexpr std::size_t left = C - J;
    if constexpr (W >= min_lanes<T> && left >= W) {
      constexpr std::size_t nv = left / W < max_panel_vectors ? left / W : max_panel_vectors;
      constexpr std::size_t step = nv * W;
      constexpr std::size_t panels = left / step;
      for (std::size_t p = 0; p < panels; ++p)
        panel<T, W, nv, R, K, LDA, LDB, LDC, Acc>(a, b + J + p * step, out + J + p * step);
      columns<T, W, J + panels * step, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    } else if constexpr (J == 0 && LDC == C && C <= W / 2 && (R * C % W == 0 || 2 * R * C > W)) {
      // Narrow, contiguous rows filling more than half a vector: several rows per vector (the chapter's 6x2 output in
      // 16 float lanes; in double, 8 and 4).
      narrow_rows<T, W, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    } else if constexpr (W > min_lanes<T>) {
      columns<T, W / 2, J, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    } else {
      // Fewer columns than the narrowest vector.
      narrow_rows<T, W, R, K, left, LDA, LDB, LDC, Acc>(a, b + J, out + J);
    }
  }
}

// Both a and b beyond L1 (and b not packed): blocks of rows outer, so a block's rows of a stay
// in L1 while b streams past, instead of every panel of b streaming all of a.
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline constexpr bool rows_outer =
    R > block_rows<max_panel_vectors>&& R* K * sizeof(T) > pack_bytes&& K* C * sizeof(T) > pack_bytes;

template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
inline void gemm_rows_outer(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t MR = block_rows<max_panel_vectors>;
  constexpr std::size_t full = R / MR * MR;
  for (std::size_t i = 0; i < full; i += MR)
    columns<T, native_lanes<T>, 0, MR, K, C, LDA, LDB, LDC, Acc>(a + i * LDA, b, out + i * LDC);
  if constexpr (full < R)
    columns<T, native_lanes<T>, 0, R - full, K, C, LDA, LDB, LDC, Acc>(a + full * LDA, b, out + full * LDC);
}

template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
inline void gemm_packed(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t W = native_lanes<T>;
  constexpr std::size_t NVW = panel_columns<T, W>;
  constexpr std::size_t KC = pack_bytes / (NVW * sizeof(T));
  constexpr std::size_t blocks = K / KC;
  constexpr std::size_t KT = K - blocks * KC;
  constexpr std::size_t panels = C / NVW;
  alignas(64) T bp[KC * NVW];
  for (std::size_t p = 0; p < panels; ++p) {
    const T* bcol = b + p * NVW;
    T* ocol = out + p * NVW;
    for (std::size_t kb = 0; kb < blocks; ++kb) {
      for (std::size_t k = 0; k < KC; ++k) __builtin_memcpy(bp + k * NVW, bcol + (kb * KC + k) * LDB, sizeof(T) * NVW);
      if (kb == 0)
        panel<T, W, NVW / W, R, KC, LDA, NVW, LDC, Acc>(a, bp, ocol);
      else
        panel<T, W, NVW / W, R, KC, LDA, NVW, LDC, true>(a + kb * KC, bp, ocol);
    }
    if constexpr (KT > 0) {
      for (std::size_t k = 0; k < KT; ++k)
        __builtin_memcpy(bp + k * NVW, bcol + (blocks * KC + k) * LDB, sizeof(T) * NVW);
      panel<T, W, NVW / W, R, KT, LDA, NVW, LDC, (Acc || blocks > 0)>(a + blocks * KC, bp, ocol);
    }
  }
  // The last columns, fewer than a panel: unpacked.
  columns<T, W, panels * NVW, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
}

// A few rows (decoding a token) times a large b: memory-bound, so b is read front to back,
// KB rows of b at a time, in column blocks (16 KiB of each row of b) whose R output rows stay
// in cache while the block's rows of b stream past, each vector of b loaded once for all R
// rows; for each element the products still arrive in order k = 0, ..., K-1.
template <class T, std::size_t W, std::size_t R, std::size_t K, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
inline void gemv_block(const T* a, const T* b, T* out, std::size_t width) noexcept {
  using V = vec<T, W>;
  const std::size_t vectors = width / W;
  if constexpr (!Acc)
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t j = 0; j < width; ++j) out[r * LDC + j] = T{};
  // Rows of b per pass over the block: eight where 32 registers hold their broadcasts.
  constexpr std::size_t KB = vector_registers >= 32 ? 8 : 4;
  constexpr std::size_t k_full = K / KB * KB;
  for (std::size_t k = 0; k < k_full; k += KB) {
    // Rows `ahead` of this pass, into L2 (prefetcht1): a decode reads b once, and the hardware
    // prefetcher alone leaves one core at 0.8 of its read bandwidth (GPT-2 124M decode on a 2-vCPU
    // Xeon: 39.5-44 -> 33-34 ms a token on one thread, 22 -> 19 ms on two; into L1 gains less,
    // non-temporal loses 2x). Eight rows ahead whatever KB: with KB = 4 (AVX2) one pass ahead was
    // 4 rows, and 8 gained 2-3% (Zen 5, x86-64-v3 build, 8 paired rounds at 1 and 2 threads); with
    // AVX-512 16 rows gained nothing over 8. The last passes prefetch their own rows (harmless).
    constexpr std::size_t ahead = KB < 8 ? 8 : KB;
    const T* next = b + (k + ahead + KB <= k_full ? k + ahead : k) * LDB;
    for (std::size_t v = 0; v < vectors; ++v) {
      V bv[KB];
      if ((v * W * sizeof(T)) % 64 == 0)  // a prefetch a cache line
        STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t q = 0; q < KB; ++q)
            __builtin_prefetch(next + q * LDB + v * W, 0, 2);
      // Each vector of b is loaded once and used for all R rows.
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t q = 0; q < KB; ++q)
          __builtin_memcpy(&bv[q], b + (k + q) * LDB + v * W, sizeof(V));
      STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t r = 0; r < R; ++r) {
        T* o = out + r * LDC + v * W;
        V acc;
        __builtin_memcpy(&acc, o, sizeof(V));
        STATIC_ATTENTION_DETAIL_UNROLL for (std::size_t q = 0; q < KB; ++q)
            kernel_multiply_add<T>(acc, a[r * LDA + k + q] - V{}, bv[q]);
        __builtin_memcpy(o, &acc, sizeof(V));
      }
    }
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t j = vectors * W; j < width; ++j)
        for (std::size_t q = 0; q < KB; ++q)
          kernel_multiply_add<T>(out[r * LDC + j], a[r * LDA + k + q], b[(k + q) * LDB + j]);
  }
  for (std::size_t k = k_full; k < K; ++k)
    for (std::size_t r = 0; r < R; ++r) {
      const V av = a[r * LDA + k] - V{};
      T* o = out + r * LDC;
      for (std::size_t v = 0; v < vectors; ++v) {
        V acc;
        V bv;
        __builtin_memcpy(&acc, o + v * W, sizeof(V));
        __builtin_memcpy(&bv, b + k * LDB + v * W, sizeof(V));
        kernel_multiply_add<T>(acc, av, bv);
        __builtin_memcpy(o + v * W, &acc, sizeof(V));
      }
      for (std::size_t j = vectors * W; j < width; ++j) kernel_multiply_add<T>(o[j], a[r * LDA + k], b[k * LDB + j]);
    }
}

template <class T, std::size_t W, std::size_t R, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc>
inline void gemv_rows(const T* a, const T* b, T* out) noexcept {
  // Columns per block: 16 KiB of each row of b, long enough runs for the prefetcher; the R
  // rows of out they update stay within L1 or L2.
  constexpr std::size_t block_cols = (16 * 1024 / sizeof(T)) / W * W;
  for (std::size_t j = 0; j < C; j += block_cols)
    gemv_block<T, W, R, K, LDA, LDB, LDC, Acc>(a, b + j, out + j, C - j < block_cols ? C - j : block_cols);
}

// Where gemv_rows beats the register-blocked kernel: up to 4 rows, and b beyond L1.
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline constexpr bool use_gemv_rows = R <= 4 && K* C * sizeof(T) > 64 * 1024 && C >= 4 * native_lanes<T>;
#endif

// The scalar kernel's register block: MR x NB sums stay in registers across k (sums in out go
// through memory at -Os, 7 instructions a product), and each value of a and of b loaded serves
// NB and MR products. 4 x 4: 16 sums, 4 + 4 operands, within an FPU's 32 registers. In
// software floating point every operation is a call that clobbers the argument registers: one
// row of 16 there (measured on the Cortex-M3).
#if defined(__arm__) && !defined(__ARM_FP)
inline constexpr std::size_t scalar_rows = 1;
inline constexpr std::size_t scalar_cols = 16;
#else
inline constexpr std::size_t scalar_rows = 4;
inline constexpr std::size_t scalar_cols = 4;
#endif

// out[MR x NB] (+)= a[MR x K] . b[K x NB], each sum in order of k.
template <class T, std::size_t MR, std::size_t NB, std::size_t K, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
[[gnu::always_inline]] inline void scalar_block(const T* a, const T* b, T* out) noexcept {
  T sums[MR][NB];
  SA_DETAIL_UNROLL_SCALAR for (std::size_t r = 0; r < MR; ++r)
      SA_DETAIL_UNROLL_SCALAR for (std::size_t j = 0; j < NB; ++j) sums[r][j] = Acc ? out[r * LDC + j] : T{};
  for (std::size_t k = 0; k < K; ++k) {
    T bk[NB];
    SA_DETAIL_UNROLL_SCALAR for (std::size_t j = 0; j < NB; ++j) bk[j] = b[k * LDB + j];
    SA_DETAIL_UNROLL_SCALAR for (std::size_t r = 0; r < MR; ++r) {
      const T ark = a[r * LDA + k];
      SA_DETAIL_UNROLL_SCALAR for (std::size_t j = 0; j < NB; ++j) kernel_multiply_add<T>(sums[r][j], ark, bk[j]);
    }
  }
  SA_DETAIL_UNROLL_SCALAR for (std::size_t r = 0; r < MR; ++r)
      SA_DETAIL_UNROLL_SCALAR for (std::size_t j = 0; j < NB; ++j) out[r * LDC + j] = sums[r][j];
}

// MR rows of out: blocks of scalar_cols columns, then the rest.
template <class T, std::size_t MR, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
[[gnu::always_inline]] inline void scalar_rows_of(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t full = C / scalar_cols * scalar_cols;
  for (std::size_t j = 0; j < full; j += scalar_cols)
    scalar_block<T, MR, scalar_cols, K, LDA, LDB, LDC, Acc>(a, b + j, out + j);
  if constexpr (full < C) scalar_block<T, MR, C - full, K, LDA, LDB, LDC, Acc>(a, b + full, out + full);
}

/// out (R x C) (+)= a (R x K) . b (K x C), row-major with row strides LDA, LDB and LDC; Acc:
/// add to the sums already in out (continuing their order). No overlap.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          bool Acc>
inline void gemm(const T* a, const T* b, T* out) noexcept {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && !defined(STATIC_ATTENTION_FAST_FMA)
  // Helium: its float kernel where the operands' range keeps every value normal (mve_kernels.hpp).
  if constexpr (std::is_same_v<T, float>)
    if (mve::gemm_f32<R, K, C, LDA, LDB, LDC, Acc>(a, b, out)) return;
#endif
#if defined(__GNUC__)
  if constexpr (native_lanes<T> >= min_lanes<T> && native_lanes < T >> 0 && use_gemv_rows<T, R, K, C>) {
    gemv_rows<T, native_lanes<T>, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    return;
  }
  if constexpr (native_lanes<T> >= min_lanes<T> && native_lanes < T >> 0 && use_packed<T, R, K, C>) {
    gemm_packed<T, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    return;
  }
  if constexpr (native_lanes<T> >= min_lanes<T> && native_lanes < T >> 0 && rows_outer<T, R, K, C>) {
    gemm_rows_outer<T, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    return;
  }
  if constexpr (native_lanes<T> >= min_lanes<T> && native_lanes < T >> 0) {
    columns<T, native_lanes<T>, 0, R, K, C, LDA, LDB, LDC, Acc>(a, b, out);
    return;
  }
#endif
#if defined(__ARM_FEATURE_MVE)
  // Helium: the fallback of gemm_f32 (operands beyond its range, double), rarely run. i-k-j
  // order in out: register blocks inlined here cost its callers 512 bytes of stack (the tiny
  // GPT's generate, device_int8.m55).
  for (std::size_t i = 0; i < R; ++i) {
    T* o = out + i * LDC;
    if constexpr (!Acc)
      for (std::size_t j = 0; j < C; ++j) o[j] = T{};
    for (std::size_t k = 0; k < K; ++k) {
      const T aik = a[i * LDA + k];
      const T* bk = b + k * LDB;
      for (std::size_t j = 0; j < C; ++j) kernel_multiply_add<T>(o[j], aik, bk[j]);
    }
  }
#else
  // Portable fallback (Cortex-M without Helium, other compilers): register blocks.
  constexpr std::size_t full = R / scalar_rows * scalar_rows;
  for (std::size_t i = 0; i < full; i += scalar_rows)
    scalar_rows_of<T, scalar_rows, K, C, LDA, LDB, LDC, Acc>(a + i * LDA, b, out + i * LDC);
  if constexpr (full < R) scalar_rows_of<T, R - full, K, C, LDA, LDB, LDC, Acc>(a + full * LDA, b, out + full * LDC);
#endif
}

/// out (R x C) = a (R x K) . b (K x C), all row-major; b's rows are LDB apart. No overlap.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t LDB = C>
inline void matmul(const T* a, const T* b, T* out) noexcept {
  gemm<T, R, K, C, K, LDB, C, false>(a, b, out);
}

// out[R x PC] (row stride C) = a[R x K] . b^T, b being PC rows of K: b^T packed in blocks of
// KC x PC on the stack, the blocks after the first adding to out.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t PC>
inline void abt_panel(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t kc_fit = pack_bytes / (PC * sizeof(T));
  constexpr std::size_t KC = K < kc_fit ? K : (kc_fit > 0 ? kc_fit : 1);
  constexpr std::size_t blocks = K / KC;
  static_assert(!use_packed<T, R, KC, PC>, "a packed panel of b^T is not packed again");
  alignas(64) T bt[KC * PC];
  for (std::size_t kb = 0; kb < blocks; ++kb) {
    for (std::size_t j = 0; j < PC; ++j)
      for (std::size_t k = 0; k < KC; ++k) bt[k * PC + j] = b[j * K + kb * KC + k];
    if (kb == 0)
      gemm<T, R, KC, PC, K, PC, C, false>(a, bt, out);
    else
      gemm<T, R, KC, PC, K, PC, C, true>(a + kb * KC, bt, out);
  }
  if constexpr (blocks * KC < K) {
    constexpr std::size_t KT = K - blocks * KC;
    for (std::size_t j = 0; j < PC; ++j)
      for (std::size_t k = 0; k < KT; ++k) bt[k * PC + j] = b[j * K + blocks * KC + k];
    gemm<T, R, KT, PC, K, PC, C, (blocks > 0)>(a + blocks * KC, bt, out);
  }
}

/// out (R x C) = a (R x K) . b^T, b being C x K row-major (Q K^T, x W^T). b^T is packed a
/// panel at a time (at most pack_bytes on the stack, whatever the shape), then multiplied.
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline void matmul_abt(const T* a, const T* b, T* out) noexcept {
  constexpr std::size_t lanes = native_lanes < T >> 0 ? native_lanes<T> : 4;
  constexpr std::size_t pc_max = 4 * lanes;  // columns per panel
  constexpr std::size_t PC = C < pc_max ? C : pc_max;
  constexpr std::size_t panels = C / PC;
  for (std::size_t p = 0; p < panels; ++p) abt_panel<T, R, K, C, PC>(a, b + p * PC * K, out + p * PC);
  if constexpr (panels * PC < C) abt_panel<T, R, K, C, C - panels * PC>(a, b + panels * PC * K, out + panels * PC);
}

}  // namespace static_attention::detail::simd

#undef STATIC_ATTENTION_DETAIL_UNROLL
#undef SA_DETAIL_UNROLL_SCALAR
#undef SA_DETAIL_GCC_X86_AVX
