// SPDX-License-Identifier: BSL-1.0
// Run-time float kernels for Helium with float lanes (__ARM_FEATURE_MVE & 2: Cortex-M55, M85):
// the matrix product (simd::gemm's), the array exp (exp(span)) and the causal heads' scores and
// weighted sums (nn/detail/cached_attention.hpp). Never used in constant evaluation; on any other
// target this header declares nothing.
//
// Same bits as the portable kernels, with one condition. Each lane computes what the scalar code
// computes, in the same order: sums in order k = 0, 1, ..., K-1, each step of the matrix product
// in the build's kernel arithmetic (fp_contract.hpp's kernels_fuse<float>: one VFMA, rounded
// once, where the kernels fuse, the default; else the product rounded on its own, VMUL then VADD,
// through an empty asm statement as round_here); the other kernels' products rounded on their
// own (the portable code's multiply_add), exp's steps one by one. But Helium's float instructions
// flush subnormal inputs and results to zero and return the default NaN (the Armv8.1-M
// architecture; QEMU does the same), where the scalar FPU computes subnormals and keeps NaN
// payloads. So the vector kernels run only where no subnormal and no NaN can arise, checked on
// the operands' bits first, and the portable code runs otherwise:
//  - matrix product, unfused: every element of a and b is +-0 or of magnitude in [2^-50, 2^128)
//    (finite), and with Acc every element of out is +-0 or in [2^-100, 2^128). Then every product
//    is 0 or at least 2^-100 in magnitude, so a float with exponent >= -100, a multiple of
//    2^-123; every partial sum is then a multiple of 2^-123 too (an exact sum of such multiples
//    is one, and a sum that rounds is above 2^-99, where floats are multiples of 2^-122). A
//    nonzero multiple of 2^-123 is normal: nothing is flushed. (Overflow gives inf, inf - inf the
//    default NaN, the same in both.)
//  - matrix product, fused: the same with a and b in [2^-40, 2^128). A fused step rounds
//    a_k b_k + acc exactly computed, and a sum that cancels can be far below the rounded product
//    (down to the product's rounding error). But a float of exponent >= -40 is a multiple of
//    2^-63, so every exact product is a multiple of 2^-126, and so is every partial sum (the
//    start, +0 or out's elements of exponent >= -100; an exact sum of multiples; a sum that
//    rounds is at least 2^-102, where floats are multiples of 2^-125): each step's exact value
//    is 0 or at least 2^-126, and rounds to 0 or a normal float. Nothing is flushed.
//  - exp: each vector of four arguments is in [-87, 87] and each nonzero one at least 2^-60 in
//    magnitude (else those four lanes take the scalar exp). exp(-87) > 2^-126, and the reduced
//    argument r is x itself for |x| < ln2 / 2 (so r^2 >= 2^-120) and otherwise far from 0
//    (never below 2^-29), so every intermediate is normal: checked for all 1,113,325,570 such
//    floats with the same operations on the host.
// GCC's own vectorizer must stay off for the rest of the library's float code on these cores
// (ports/cortex-m/cortex-m55.cmake: -fno-tree-vectorize): GCC 12 takes Helium float for IEEE
// arithmetic.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)

#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/detail/math_exp.hpp>

namespace static_attention::detail::mve {

/// vstrwq_p_f32(p, v, lanes), the inactive lanes' memory left alone, between two compiler
/// barriers (no instruction). GCC 12.2 describes a predicated store as writing all four lanes:
/// it then drops an earlier store to an inactive lane's memory as overwritten, or gives a later
/// load of it the register's lane (seen at -O3 on the M55: the context of a 3 -> 2, two-head
/// attention, one feature a head, lost its zeros to add_weighted_rows_f32's one-lane stores).
/// The first barrier keeps earlier stores, the second makes later loads read memory.
[[gnu::always_inline]] inline void store_lanes(float* p, float32x4_t v, mve_pred16_t lanes) noexcept {
  __asm__ volatile("" ::: "memory");
  vstrwq_p_f32(p, v, lanes);
  __asm__ volatile("" ::: "memory");
}

/// Whether the matrix product's steps are fused (VFMA), as the scalar kernels' (fp_contract.hpp).
inline constexpr bool fused = kernels_fuse<float>;

/// The least exponent of gemm_f32's operands: every step's value is then 0 or normal (above).
inline constexpr int least_operand_exponent = fused ? -40 : -50;

/// x, its float lanes rounded before use (no instruction): stops GCC from fusing a product
/// into the add that follows it.
[[gnu::always_inline]] inline float32x4_t rounded(float32x4_t x) noexcept {
  __asm__("" : "+w"(x));
  return x;
}

/// Running bounds of a block's magnitudes, as bits: `low` the least of |x| - 1 (so +-0 gives
/// 2^32 - 1, never the least), `high` the greatest |x|.
struct bit_range {
  uint32x4_t low = vdupq_n_u32(0xFFFFFFFFu);
  uint32x4_t high = vdupq_n_u32(0u);

  [[gnu::always_inline]] void add(uint32x4_t bits) noexcept {
    const uint32x4_t magnitude = vandq_u32(bits, vdupq_n_u32(0x7FFFFFFFu));
    low = vminq_u32(low, vsubq_n_u32(magnitude, 1u));
    high = vmaxq_u32(high, magnitude);
  }
  /// Every element +-0 or of magnitude in [2^(least_exponent), 2^128).
  [[gnu::always_inline]] bool within(int least_exponent) const noexcept {
    const auto least = static_cast<std::uint32_t>(127 + least_exponent) << 23;
    return vminvq_u32(0xFFFFFFFFu, low) >= least - 1u && vmaxvq_u32(0u, high) < 0x7F800000u;
  }
};

/// Adds the Rows x Cols block at p (rows LD floats apart) to `range`: four lanes at a time, a
/// row's last lanes predicated (inactive lanes load as +0, which passes).
template <std::size_t Rows, std::size_t Cols, std::size_t LD>
[[gnu::always_inline]] inline void add_block(const float* p, bit_range& range) noexcept {
  if constexpr (LD == Cols && Rows > 1) {
    add_block<1, Rows * Cols, Rows * Cols>(p, range);
  } else {
    for (std::size_t i = 0; i < Rows; ++i) {
      const auto* row = reinterpret_cast<const std::uint32_t*>(p + i * LD);
      std::size_t j = 0;
      for (; j + 4 <= Cols; j += 4) range.add(vld1q_u32(row + j));
      if constexpr (Cols % 4 != 0) range.add(vldrwq_z_u32(row + j, vctp32q(Cols % 4)));
    }
  }
}

// One multiply-add of the steps below, c += u s (u a Q register, s a core register holding a
// float), in the build's kernel arithmetic: one VFMA, rounded once (fused), or the product
// rounded into the Q register t, then added (VMUL, VADD).
// clang-format off
#define SA_DETAIL_MVE_FMA(c, u, s) "vfma.f32 %q[" c "], %q[" u "], %[" s "]\n\t"
#define SA_DETAIL_MVE_MUL_ADD(c, u, s) \
  "vmul.f32 %q[t], %q[" u "], %[" s "]\n\t" \
  "vadd.f32 %q[" c "], %q[" c "], %q[t]\n\t"

// Two steps of k for a 2 x 2 block (rows a0, a1; b's vectors at b and b + 16 bytes, the next
// row of b `next` bytes on): per step two vector loads of b, then the four multiply-adds by a
// scalar of a (loaded two at a time by LDRD). 23 instructions and the loop end for 32
// multiply-adds unfused, 16 fused.
#define SA_DETAIL_MVE_2X2_STEP(mac, s0, s1) \
  "vldrw.u32 %q[u0], [%[b]]\n\t" \
  "vldrw.u32 %q[u1], [%[b], #16]\n\t" \
  "add %[b], %[b], %[next]\n\t" \
  mac("c00", "u0", s0) mac("c01", "u1", s0) mac("c10", "u0", s1) mac("c11", "u1", s1)
#define SA_DETAIL_MVE_2X2_LOOP(mac) \
  "dls lr, %[n]\n" \
  "1:\n\t" \
  "ldrd %[x0], %[x1], [%[a0]], #8\n\t" \
  "ldrd %[y0], %[y1], [%[a1]], #8\n\t" \
  SA_DETAIL_MVE_2X2_STEP(mac, "x0", "y0") SA_DETAIL_MVE_2X2_STEP(mac, "x1", "y1") \
  "le lr, 1b" \
  : [c00] "+w"(c00), [c01] "+w"(c01), [c10] "+w"(c10), [c11] "+w"(c11), [u0] "=&w"(u0), [u1] "=&w"(u1), \
    [t] "=&w"(t), [x0] "=&r"(x0), [x1] "=&r"(x1), [y0] "=&r"(y0), [y1] "=&r"(y1), [a0] "+r"(a), [a1] "+r"(a1), \
    [b] "+r"(b) \
  : [n] "r"(steps), [next] "r"(LDB * sizeof(float)) \
  : "lr", "memory"
// clang-format on

/// The first 2 Steps values of k of a 2 x 2 block: c_rv += a_r[k] b[k][vector v], in order of k
/// (rows of a LDA floats apart, of b LDB), fused where the kernels fuse. Assembly: GCC 12, given
/// the loop in intrinsics, keeps pointers in spare registers and moves them each turn. The loop
/// counter is LR (DLS and LE, Armv8.1-M's low-overhead loop).
template <std::size_t LDA, std::size_t LDB>
[[gnu::always_inline]] inline void steps_2x2(const float*& a, const float*& b, std::size_t steps, float32x4_t& c00,
                                             float32x4_t& c01, float32x4_t& c10, float32x4_t& c11) noexcept {
  const float* a1 = a + LDA;
  float32x4_t u0;
  float32x4_t u1;
  float32x4_t t;  // the unfused product
  std::uint32_t x0;
  std::uint32_t x1;
  std::uint32_t y0;
  std::uint32_t y1;
  if constexpr (fused)
    __asm__(SA_DETAIL_MVE_2X2_LOOP(SA_DETAIL_MVE_FMA));
  else
    __asm__(SA_DETAIL_MVE_2X2_LOOP(SA_DETAIL_MVE_MUL_ADD));
}
#undef SA_DETAIL_MVE_2X2_LOOP
#undef SA_DETAIL_MVE_2X2_STEP

// Two steps of k for a 4 x 1 block (four rows of a against one vector of b).
// clang-format off
#define SA_DETAIL_MVE_4X1_STEP(mac, s0, s1, s2, s3) \
  "vldrw.u32 %q[u], [%[b]]\n\t" \
  "add %[b], %[b], %[next]\n\t" \
  mac("c0", "u", s0) mac("c1", "u", s1) mac("c2", "u", s2) mac("c3", "u", s3)
#define SA_DETAIL_MVE_4X1_LOOP(mac) \
  "dls lr, %[n]\n" \
  "1:\n\t" \
  "ldrd %[x0], %[x1], [%[a], %[o1]]\n\t" \
  "ldrd %[x2], %[x3], [%[a], %[o2]]\n\t" \
  "ldrd %[x4], %[x5], [%[a], %[o3]]\n\t" \
  "ldrd %[x6], %[x7], [%[a]], #8\n\t" \
  SA_DETAIL_MVE_4X1_STEP(mac, "x6", "x0", "x2", "x4") SA_DETAIL_MVE_4X1_STEP(mac, "x7", "x1", "x3", "x5") \
  "le lr, 1b" \
  : [c0] "+w"(c0), [c1] "+w"(c1), [c2] "+w"(c2), [c3] "+w"(c3), [u] "=&w"(u), [t] "=&w"(t), [x0] "=&r"(x[0]), \
    [x1] "=&r"(x[1]), [x2] "=&r"(x[2]), [x3] "=&r"(x[3]), [x4] "=&r"(x[4]), [x5] "=&r"(x[5]), [x6] "=&r"(x[6]), \
    [x7] "=&r"(x[7]), [a] "+r"(a), [b] "+r"(b) \
  : [n] "r"(steps), [next] "r"(LDB * sizeof(float)), [o1] "n"(LDA * sizeof(float)), \
    [o2] "n"(2 * LDA * sizeof(float)), [o3] "n"(3 * LDA * sizeof(float)) \
  : "lr", "memory"
// clang-format on

/// The first 2 Steps values of k of a 4 x 1 block, as steps_2x2 (25 instructions and the loop
/// end for 32 multiply-adds unfused, 16 fused). Rows 1 to 3 of a are LDA floats apart, reached
/// by offsets (LDRD's immediate: 3 LDA floats < 1020 bytes).
template <std::size_t LDA, std::size_t LDB>
[[gnu::always_inline]] inline void steps_4x1(const float*& a, const float*& b, std::size_t steps, float32x4_t& c0,
                                             float32x4_t& c1, float32x4_t& c2, float32x4_t& c3) noexcept {
  static_assert(3 * LDA * sizeof(float) < 1020, "steps_4x1<LDA, LDB> requires 3 LDA floats within an LDRD offset");
  float32x4_t u;
  float32x4_t t;  // the unfused product
  std::uint32_t x[8];
  if constexpr (fused)
    __asm__(SA_DETAIL_MVE_4X1_LOOP(SA_DETAIL_MVE_FMA));
  else
    __asm__(SA_DETAIL_MVE_4X1_LOOP(SA_DETAIL_MVE_MUL_ADD));
}
#undef SA_DETAIL_MVE_4X1_LOOP
#undef SA_DETAIL_MVE_4X1_STEP
#undef SA_DETAIL_MVE_MUL_ADD
#undef SA_DETAIL_MVE_FMA

/// out[MR x NV vectors] (+)= a[MR x K] . b[K x NV vectors], the last vector's lanes `last`
/// (all lanes: 0xFFFF); rows LDA, LDB, LDC floats apart. The MR x NV accumulators stay in Q
/// registers (MR NV + NV + 1 <= 8); per k, NV vector loads of b and MR scalar loads of a feed MR NV
/// VFMAs by a scalar (fused), or as many VMULs by a scalar and VADDs.
template <std::size_t MR, std::size_t NV, std::size_t K, std::size_t LDA, std::size_t LDB, std::size_t LDC, bool Acc>
[[gnu::always_inline]] inline void block_f32(const float* a, const float* b, float* out, mve_pred16_t last) noexcept {
  float32x4_t acc[MR][NV];
  _Pragma("GCC unroll 8") for (std::size_t r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 4") for (std::size_t v = 0; v < NV; ++v) {
      if constexpr (Acc)
        acc[r][v] = v + 1 < NV ? vld1q_f32(out + r * LDC + 4 * v) : vldrwq_z_f32(out + r * LDC + 4 * v, last);
      else
        acc[r][v] = vdupq_n_f32(0.0f);  // +0 + p, as the portable sums start
    }
  }
  std::size_t k0 = 0;
  if constexpr (K >= 2 && ((MR == 2 && NV == 2) || (MR == 4 && NV == 1 && 3 * LDA * sizeof(float) < 1020))) {
    // Whole vectors of b only: a predicated last vector reads past the row's end in assembly.
    if (last == 0xFFFF) {
      const float* ak = a;
      const float* bk = b;
      if constexpr (MR == 2)
        steps_2x2<LDA, LDB>(ak, bk, K / 2, acc[0][0], acc[0][1], acc[1][0], acc[1][1]);
      else
        steps_4x1<LDA, LDB>(ak, bk, K / 2, acc[0][0], acc[1][0], acc[2][0], acc[3][0]);
      k0 = K / 2 * 2;
    }
  }
  // k as a loop, not unrolled: unrolled, GCC hoists loads of b and spills them (eight Q registers).
  _Pragma("GCC unroll 1") for (std::size_t k = k0; k < K; ++k) {
    float32x4_t bv[NV];
    _Pragma("GCC unroll 4") for (std::size_t v = 0; v < NV; ++v) {
      bv[v] = v + 1 < NV ? vld1q_f32(b + k * LDB + 4 * v) : vldrwq_z_f32(b + k * LDB + 4 * v, last);
    }
    _Pragma("GCC unroll 8") for (std::size_t r = 0; r < MR; ++r) {
      const float s = a[r * LDA + k];
      _Pragma("GCC unroll 4") for (std::size_t v = 0; v < NV; ++v) {
        if constexpr (fused)
          acc[r][v] = vfmaq_n_f32(acc[r][v], bv[v], s);  // acc + b s, rounded once
        else
          acc[r][v] = vaddq_f32(acc[r][v], rounded(vmulq_n_f32(bv[v], s)));
      }
    }
  }
  _Pragma("GCC unroll 8") for (std::size_t r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 4") for (std::size_t v = 0; v < NV; ++v) {
      if (v + 1 < NV)
        vst1q_f32(out + r * LDC + 4 * v, acc[r][v]);
      else
        store_lanes(out + r * LDC + 4 * v, acc[r][v], last);
    }
  }
}

/// Rows [0, R) of a panel of NV vectors: blocks of MR rows, then the rest.
template <std::size_t MR, std::size_t NV, std::size_t R, std::size_t K, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, bool Acc>
[[gnu::always_inline]] inline void panel_f32(const float* a, const float* b, float* out, mve_pred16_t last) noexcept {
  constexpr std::size_t full = R / MR * MR;
  for (std::size_t i = 0; i < full; i += MR)
    block_f32<MR, NV, K, LDA, LDB, LDC, Acc>(a + i * LDA, b, out + i * LDC, last);
  if constexpr (full < R) block_f32<R - full, NV, K, LDA, LDB, LDC, Acc>(a + full * LDA, b, out + full * LDC, last);
}

/// out (R x C) (+)= a (R x K) . b (K x C), rows LDA, LDB, LDC floats apart, when the operands'
/// range allows (see the top of this file); false, having written nothing, when it does not.
/// Columns in panels of two vectors (2 x 2 blocks), then one vector (4 x 1 blocks), the last
/// vector predicated when C % 4 != 0.
template <std::size_t R, std::size_t K, std::size_t C, std::size_t LDA, std::size_t LDB, std::size_t LDC, bool Acc>
inline bool gemm_f32(const float* a, const float* b, float* out) noexcept {
  bit_range operands;
  add_block<R, K, LDA>(a, operands);
  add_block<K, C, LDB>(b, operands);
  if (!operands.within(least_operand_exponent)) return false;
  if constexpr (Acc) {
    bit_range sums;
    add_block<R, C, LDC>(out, sums);
    if (!sums.within(-100)) return false;
  }
  constexpr std::size_t vectors = (C + 3) / 4;
  constexpr std::size_t pairs = vectors / 2;
  const mve_pred16_t all = vctp32q(4u);
  const mve_pred16_t tail = vctp32q(C % 4 == 0 ? 4u : C % 4);
  if constexpr (vectors % 2 == 0) {
    for (std::size_t p = 0; p + 1 < pairs; ++p)
      panel_f32<2, 2, R, K, LDA, LDB, LDC, Acc>(a, b + 8 * p, out + 8 * p, all);
    panel_f32<2, 2, R, K, LDA, LDB, LDC, Acc>(a, b + 8 * (pairs - 1), out + 8 * (pairs - 1), tail);
  } else {
    for (std::size_t p = 0; p < pairs; ++p) panel_f32<2, 2, R, K, LDA, LDB, LDC, Acc>(a, b + 8 * p, out + 8 * p, all);
    panel_f32<4, 1, R, K, LDA, LDB, LDC, Acc>(a, b + 8 * pairs, out + 8 * pairs, tail);
  }
  return true;
}

/// Whether every element of the rows x cols block at p (rows ld floats apart) is +-0 or of
/// magnitude in [2^(least_exponent), 2^128): gemm_f32's check, for shapes known at run time.
inline bool block_in_range(const float* p, std::size_t rows, std::size_t cols, std::size_t ld,
                           int least_exponent) noexcept {
  bit_range range;
  for (std::size_t i = 0; i < rows; ++i) {
    const auto* row = reinterpret_cast<const std::uint32_t*>(p + i * ld);
    std::size_t j = 0;
    for (; j + 4 <= cols; j += 4) range.add(vld1q_u32(row + j));
    if (j < cols) range.add(vldrwq_z_u32(row + j, vctp32q(static_cast<std::uint32_t>(cols - j))));
  }
  return range.within(least_exponent);
}

/// out[p] = (sum over k < K of x[k] m[k Stride + p], in order of k, from +0) for p < n, four
/// values of p to a vector (the last predicated): the products of a row and a block of columns,
/// before a scalar step (the caller's division). Operands in gemm_f32's range.
template <std::size_t K, std::size_t Stride>
inline void row_times_columns_f32(const float* x, const float* m, std::size_t n, float* out) noexcept {
  for (std::size_t p = 0; p < n; p += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<std::uint32_t>(n - p));
    float32x4_t acc = vdupq_n_f32(0.0f);
    if (p + 4 <= Stride) {  // whole vectors within the rows of m: lanes past n computed, not stored
      _Pragma("GCC unroll 16") for (std::size_t k = 0; k < K; ++k) {
        acc = vaddq_f32(acc, rounded(vmulq_n_f32(vld1q_f32(m + k * Stride + p), x[k])));
      }
    } else {
      _Pragma("GCC unroll 16") for (std::size_t k = 0; k < K; ++k) {
        acc = vaddq_f32(acc, rounded(vmulq_n_f32(vldrwq_z_f32(m + k * Stride + p, lanes), x[k])));
      }
    }
    store_lanes(out + p, acc, lanes);
  }
}

/// out[k] += sum over q < n of w[q] m[q Stride + k], in order of q, for k < K (four to a vector,
/// the last predicated): a weighted sum of rows. Operands in gemm_f32's range, out's too.
template <std::size_t K, std::size_t Stride>
inline void add_weighted_rows_f32(const float* w, const float* m, std::size_t n, float* out) noexcept {
  _Pragma("GCC unroll 4") for (std::size_t k = 0; k < K; k += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<std::uint32_t>(K - k));
    float32x4_t acc = vldrwq_z_f32(out + k, lanes);
    for (std::size_t q = 0; q < n; ++q)
      acc = vaddq_f32(acc, rounded(vmulq_n_f32(vldrwq_z_f32(m + q * Stride + k, lanes), w[q])));
    store_lanes(out + k, acc, lanes);
  }
}

/// exp of four arguments, lane by lane the scalar exp_kernel_ff's steps (math_exp.hpp), for
/// arguments within exp_f32's range.
[[gnu::always_inline]] inline float32x4_t exp4(float32x4_t x) noexcept {
  using namespace static_attention::detail::math;
  const float32x4_t shifted = vaddq_n_f32(rounded(vmulq_n_f32(x, inv_ln2_f)), round_shift_f);
  const float32x4_t kd = vsubq_n_f32(shifted, round_shift_f);
  const uint32x4_t ku = vsubq_n_u32(vreinterpretq_u32_f32(shifted), bits(round_shift_f));
  const float32x4_t hi = vsubq_f32(x, rounded(vmulq_n_f32(kd, ln2_hi_f)));
  const float32x4_t lo = rounded(vmulq_n_f32(kd, ln2_lo_f));
  const float32x4_t r = vsubq_f32(hi, lo);
  float32x4_t q = vdupq_n_f32(0x1.a124e6p-13f);
  q = vaddq_n_f32(rounded(vmulq_f32(q, r)), 0x1.6d4318p-10f);
  q = vaddq_n_f32(rounded(vmulq_f32(q, r)), 0x1.1110e0p-7f);
  q = vaddq_n_f32(rounded(vmulq_f32(q, r)), 0x1.5554eap-5f);
  q = vaddq_n_f32(rounded(vmulq_f32(q, r)), 0x1.555556p-3f);
  q = vaddq_n_f32(rounded(vmulq_f32(q, r)), 0x1.000000p-1f);
  const float32x4_t s = rounded(vmulq_f32(rounded(vmulq_f32(r, r)), q));
  const float32x4_t one = vdupq_n_f32(1.0f);
  const float32x4_t a1 = vaddq_f32(one, hi);
  const float32x4_t t = vsubq_f32(hi, vsubq_f32(a1, one));
  const float32x4_t y = vaddq_f32(a1, vaddq_f32(t, vsubq_f32(s, lo)));
  const uint32x4_t k1 = vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(ku), 1));
  const uint32x4_t k2 = vsubq_u32(ku, k1);
  const float32x4_t p1 = vreinterpretq_f32_u32(vshlq_n_u32(vaddq_n_u32(k1, 127u), 23));
  const float32x4_t p2 = vreinterpretq_f32_u32(vshlq_n_u32(vaddq_n_u32(k2, 127u), 23));
  return rounded(vmulq_f32(rounded(vmulq_f32(y, p1)), p2));
}

/// out[i] = exp(in[i]) for i < n, the scalar exp's bits: four lanes at a time where all four
/// arguments are in range (see the top of this file), the scalar exp elsewhere. in == out is
/// allowed.
inline void exp_f32(const float* in, float* out, std::size_t n) noexcept {
  constexpr std::uint32_t least = ((127u - 60u) << 23) - 1u;  // |x| - 1 for |x| = 2^-60
  constexpr std::uint32_t most = 0x42AE0000u;                 // 87.0f
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t x = vld1q_f32(in + i);
    const uint32x4_t magnitude = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x7FFFFFFFu));
    if (vminvq_u32(0xFFFFFFFFu, vsubq_n_u32(magnitude, 1u)) >= least && vmaxvq_u32(0u, magnitude) <= most) {
      vst1q_f32(out + i, exp4(x));
    } else {
      for (std::size_t j = i; j < i + 4; ++j) out[j] = math::exp_impl(in[j]);
    }
  }
  if (i < n) {  // the last lanes, the others loaded as +0 and not stored
    const mve_pred16_t lanes = vctp32q(static_cast<std::uint32_t>(n - i));
    const float32x4_t x = vldrwq_z_f32(in + i, lanes);
    const uint32x4_t magnitude = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x7FFFFFFFu));
    if (vminvq_u32(0xFFFFFFFFu, vsubq_n_u32(magnitude, 1u)) >= least && vmaxvq_u32(0u, magnitude) <= most) {
      store_lanes(out + i, exp4(x), lanes);
    } else {
      for (; i < n; ++i) out[i] = math::exp_impl(in[i]);
    }
  }
}

}  // namespace static_attention::detail::mve

#endif
