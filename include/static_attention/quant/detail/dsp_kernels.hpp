// SPDX-License-Identifier: BSL-1.0
// The int8 path's run-time kernels for Arm cores with the DSP extension (__ARM_FEATURE_DSP:
// Cortex-M4, M7, M33 with DSP, M55 ...): dual 16-bit multiply-accumulates (SMLAD) over
// sign-extended pairs of int8 (SXTB16 takes bytes 0 and 2 of a word, SXTB16 with ROR #8 bytes 1
// and 3). A word of activations and a word of weights are extended the same way, so two SMLADs
// give x0 w0 + x2 w2 + x1 w1 + x3 w3: the same four products as the portable dot_int, summed in
// another order. Integer sums do not depend on their order (SMLAD wraps modulo 2^32 as the
// portable int32 sums would, and quant_core.hpp bounds every accumulator within int32), so the
// results are the portable kernels' and the constant evaluator's, bit for bit.
//
// Weights and activations are read as 32-bit words through memcpy (an unaligned LDR on these
// cores; no alignment requirement, no aliasing), so the public layouts (quantized_linear's Out x
// In row-major weights) stay as they are. Everything here is run time only: callers take the
// portable path in constant evaluation (std::is_constant_evaluated). On any other target this
// header declares nothing.
#pragma once

#if defined(__ARM_FEATURE_DSP)

#include <arm_acle.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace static_attention::detail::dsp {

/// Four bytes at p as a word (little-endian: byte k in bits 8k .. 8k + 7).
[[gnu::always_inline]] inline std::int32_t load_word(const void* p) noexcept {
  std::int32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

/// Bytes 0 and 2 of w, sign-extended to two int16 halves (SXTB16).
[[gnu::always_inline]] inline std::int32_t even_bytes(std::int32_t w) noexcept { return __sxtb16(w); }

/// Bytes 1 and 3 of w, sign-extended to two int16 halves (SXTB16 with ROR #8, one instruction).
[[gnu::always_inline]] inline std::int32_t odd_bytes(std::int32_t w) noexcept {
  std::int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
  return r;
}

/// acc + lo(a) lo(b) + hi(a) hi(b), int16 halves (SMLAD).
[[gnu::always_inline]] inline std::int32_t mac2(std::int32_t a, std::int32_t b, std::int32_t acc) noexcept {
  return __smlad(a, b, acc);
}

/// The portable tail: products of the last In % 4 bytes.
[[gnu::always_inline]] inline std::int32_t tail_dot(const std::int8_t* x, const std::int8_t* w, std::size_t n,
                                                    std::int32_t acc) noexcept {
  for (std::size_t k = 0; k < n; ++k) acc += std::int32_t{x[k]} * std::int32_t{w[k]};
  return acc;
}

// One word of x against four rows of w (16 multiply-accumulates), as the loop below takes it twice a turn.
#define SA_DETAIL_DSP_1X4_WORD           \
  "ldr %[v], [%[x]], #4\n\t"             \
  "sxtb16 %[ve], %[v]\n\t"               \
  "sxtb16 %[v], %[v], ror #8\n\t"        \
  "ldr %[u], [%[w], %[o1]]\n\t"          \
  "sxtb16 %[ue], %[u]\n\t"               \
  "smlad %[a1], %[ve], %[ue], %[a1]\n\t" \
  "sxtb16 %[u], %[u], ror #8\n\t"        \
  "smlad %[a1], %[v], %[u], %[a1]\n\t"   \
  "ldr %[u], [%[w], %[o2]]\n\t"          \
  "sxtb16 %[ue], %[u]\n\t"               \
  "smlad %[a2], %[ve], %[ue], %[a2]\n\t" \
  "sxtb16 %[u], %[u], ror #8\n\t"        \
  "smlad %[a2], %[v], %[u], %[a2]\n\t"   \
  "ldr %[u], [%[w], %[o3]]\n\t"          \
  "sxtb16 %[ue], %[u]\n\t"               \
  "smlad %[a3], %[ve], %[ue], %[a3]\n\t" \
  "sxtb16 %[u], %[u], ror #8\n\t"        \
  "smlad %[a3], %[v], %[u], %[a3]\n\t"   \
  "ldr %[u], [%[w]], #4\n\t"             \
  "sxtb16 %[ue], %[u]\n\t"               \
  "smlad %[a0], %[ve], %[ue], %[a0]\n\t" \
  "sxtb16 %[u], %[u], ror #8\n\t"        \
  "smlad %[a0], %[v], %[u], %[a0]\n\t"

/// The first Length bytes (a multiple of 8) of the four channels c < 4 of w (rows of Stride
/// int8, 3 Stride < 4096: the offsets of an LDR) against x, added to a0 .. a3: per word of x, one load and two
/// extensions shared by the four channels, then per channel a load, two extensions and two SMLADs (23 instructions for
/// 16 multiply-accumulates), two words per turn of the loop. Eleven registers, so that it also allocates with a frame
/// pointer.
template <std::size_t Stride, std::size_t Length>
[[gnu::always_inline]] inline void dot_1x4_words(const std::int8_t* x, const std::int8_t* w, std::int32_t& a0,
                                                 std::int32_t& a1, std::int32_t& a2, std::int32_t& a3) noexcept {
  static_assert(Length % 8 == 0 && Length > 0 && Length <= Stride && 3 * Stride < 4096,
                "dot_1x4_words<Stride, Length> requires Length % 8 == 0 and 3 Stride < 4096");
  const std::int8_t* const end = x + Length;
  std::int32_t v;
  std::int32_t ve;
  std::int32_t u;
  std::int32_t ue;
  __asm__("1:\n\t" SA_DETAIL_DSP_1X4_WORD SA_DETAIL_DSP_1X4_WORD
          "cmp %[x], %[end]\n\t"
          "bne 1b"
          : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w), [v] "=&r"(v),
            [ve] "=&r"(ve), [u] "=&r"(u), [ue] "=&r"(ue)
          : [end] "r"(end), [o1] "n"(Stride), [o2] "n"(2 * Stride), [o3] "n"(3 * Stride)
          : "cc", "memory");
}
#undef SA_DETAIL_DSP_1X4_WORD

/// acc[c] = bias[c] + sum_k x[k] w[c In + k] for the four channels c < 4 of w (rows of In int8).
template <std::size_t In>
[[gnu::always_inline]] inline void dot_1x4(const std::int8_t* x, const std::int8_t* w, const std::int32_t* bias,
                                           std::int32_t* acc) noexcept {
  std::int32_t a0 = bias[0];
  std::int32_t a1 = bias[1];
  std::int32_t a2 = bias[2];
  std::int32_t a3 = bias[3];
  std::size_t k = 0;
  if constexpr (In >= 8 && 3 * In < 4096) {
    dot_1x4_words<In, In / 8 * 8>(x, w, a0, a1, a2, a3);
    k = In / 8 * 8;
  }
  for (; k + 4 <= In; k += 4) {
    const std::int32_t v = load_word(x + k);
    const std::int32_t ve = even_bytes(v);
    const std::int32_t vo = odd_bytes(v);
    std::int32_t u = load_word(w + k);
    a0 = mac2(ve, even_bytes(u), a0);
    a0 = mac2(vo, odd_bytes(u), a0);
    u = load_word(w + In + k);
    a1 = mac2(ve, even_bytes(u), a1);
    a1 = mac2(vo, odd_bytes(u), a1);
    u = load_word(w + 2 * In + k);
    a2 = mac2(ve, even_bytes(u), a2);
    a2 = mac2(vo, odd_bytes(u), a2);
    u = load_word(w + 3 * In + k);
    a3 = mac2(ve, even_bytes(u), a3);
    a3 = mac2(vo, odd_bytes(u), a3);
  }
  if constexpr (In % 4 != 0) {
    constexpr std::size_t t = In / 4 * 4;
    a0 = tail_dot(x + t, w + t, In % 4, a0);
    a1 = tail_dot(x + t, w + In + t, In % 4, a1);
    a2 = tail_dot(x + t, w + 2 * In + t, In % 4, a2);
    a3 = tail_dot(x + t, w + 3 * In + t, In % 4, a3);
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
}

// One word of each of two rows of x against two channels of w (16 multiply-accumulates), as the
// loop below takes it twice a turn.
#define SA_DETAIL_DSP_2X2_WORD              \
  "ldr %[u1], [%[w], %[s]]\n\t"             \
  "sxtb16 %[u1e], %[u1]\n\t"                \
  "sxtb16 %[u1], %[u1], ror #8\n\t"         \
  "ldr %[u0], [%[w]], #4\n\t"               \
  "sxtb16 %[u0e], %[u0]\n\t"                \
  "sxtb16 %[u0], %[u0], ror #8\n\t"         \
  "ldr %[v], [%[x], %[s]]\n\t"              \
  "sxtb16 %[ve], %[v]\n\t"                  \
  "sxtb16 %[v], %[v], ror #8\n\t"           \
  "smlad %[a10], %[ve], %[u0e], %[a10]\n\t" \
  "smlad %[a10], %[v], %[u0], %[a10]\n\t"   \
  "smlad %[a11], %[ve], %[u1e], %[a11]\n\t" \
  "smlad %[a11], %[v], %[u1], %[a11]\n\t"   \
  "ldr %[v], [%[x]], #4\n\t"                \
  "sxtb16 %[ve], %[v]\n\t"                  \
  "sxtb16 %[v], %[v], ror #8\n\t"           \
  "smlad %[a00], %[ve], %[u0e], %[a00]\n\t" \
  "smlad %[a00], %[v], %[u0], %[a00]\n\t"   \
  "smlad %[a01], %[ve], %[u1e], %[a01]\n\t" \
  "smlad %[a01], %[v], %[u1], %[a01]\n\t"

/// The first Length bytes (a multiple of 8) of rows r < 2 of x against channels c < 2 of w (both
/// of row stride Stride < 4096), added to a_rc: per word, each row's and each channel's word is
/// loaded and extended once (20 instructions for 16 multiply-accumulates), two words per turn.
/// Thirteen registers.
template <std::size_t Stride, std::size_t Length>
[[gnu::always_inline]] inline void dot_2x2_words(const std::int8_t* x, const std::int8_t* w, std::int32_t& a00,
                                                 std::int32_t& a01, std::int32_t& a10, std::int32_t& a11) noexcept {
  static_assert(Length % 8 == 0 && Length > 0 && Length <= Stride && Stride < 4096,
                "dot_2x2_words<Stride, Length> requires Length % 8 == 0 and Stride < 4096");
  const std::int8_t* const end = x + Length;
  std::int32_t v;
  std::int32_t ve;
  std::int32_t u0;
  std::int32_t u0e;
  std::int32_t u1;
  std::int32_t u1e;
  __asm__("1:\n\t" SA_DETAIL_DSP_2X2_WORD SA_DETAIL_DSP_2X2_WORD
          "cmp %[x], %[end]\n\t"
          "bne 1b"
          : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x), [w] "+r"(w), [v] "=&r"(v),
            [ve] "=&r"(ve), [u0] "=&r"(u0), [u0e] "=&r"(u0e), [u1] "=&r"(u1), [u1e] "=&r"(u1e)
          : [end] "r"(end), [s] "n"(Stride)
          : "cc", "memory");
}
#undef SA_DETAIL_DSP_2X2_WORD

/// acc[r Out + c] = bias[c] + sum_k x[r In + k] w[c In + k] for rows r < 2 and channels c < 2:
/// each weight word extended once for both rows.
template <std::size_t In, std::size_t Out>
[[gnu::always_inline]] inline void dot_2x2(const std::int8_t* x, const std::int8_t* w, const std::int32_t* bias,
                                           std::int32_t* acc) noexcept {
  std::int32_t a00 = bias[0];
  std::int32_t a01 = bias[1];
  std::int32_t a10 = bias[0];
  std::int32_t a11 = bias[1];
  std::size_t k = 0;
  if constexpr (In >= 8 && In < 4096) {
    dot_2x2_words<In, In / 8 * 8>(x, w, a00, a01, a10, a11);
    k = In / 8 * 8;
  }
  for (; k + 4 <= In; k += 4) {
    const std::int32_t v0 = load_word(x + k);
    const std::int32_t v1 = load_word(x + In + k);
    std::int32_t u = load_word(w + k);
    a00 = mac2(even_bytes(v0), even_bytes(u), a00);
    a00 = mac2(odd_bytes(v0), odd_bytes(u), a00);
    a10 = mac2(even_bytes(v1), even_bytes(u), a10);
    a10 = mac2(odd_bytes(v1), odd_bytes(u), a10);
    u = load_word(w + In + k);
    a01 = mac2(even_bytes(v0), even_bytes(u), a01);
    a01 = mac2(odd_bytes(v0), odd_bytes(u), a01);
    a11 = mac2(even_bytes(v1), even_bytes(u), a11);
    a11 = mac2(odd_bytes(v1), odd_bytes(u), a11);
  }
  if constexpr (In % 4 != 0) {
    constexpr std::size_t t = In / 4 * 4;
    a00 = tail_dot(x + t, w + t, In % 4, a00);
    a01 = tail_dot(x + t, w + In + t, In % 4, a01);
    a10 = tail_dot(x + In + t, w + t, In % 4, a10);
    a11 = tail_dot(x + In + t, w + In + t, In % 4, a11);
  }
  acc[0] = a00;
  acc[1] = a01;
  acc[Out] = a10;
  acc[Out + 1] = a11;
}

/// acc = bias + sum_k x[k] w[k] for one channel (the channels left over by the blocked kernels).
template <std::size_t In>
[[gnu::always_inline]] inline std::int32_t dot_1x1(const std::int8_t* x, const std::int8_t* w,
                                                   std::int32_t acc) noexcept {
  constexpr std::size_t words = In / 4;
  for (std::size_t k = 0; k < 4 * words; k += 4) {
    const std::int32_t v = load_word(x + k);
    const std::int32_t u = load_word(w + k);
    acc = mac2(even_bytes(v), even_bytes(u), acc);
    acc = mac2(odd_bytes(v), odd_bytes(u), acc);
  }
  if constexpr (In % 4 != 0) acc = tail_dot(x + 4 * words, w + 4 * words, In % 4, acc);
  return acc;
}

/// One row: acc[j] = bias[j] + sum_k x[k] w[j In + k] for j < Out (w: Out x In, row-major).
template <std::size_t In, std::size_t Out>
inline void linear_row(const std::int8_t* x, const std::int8_t* w, const std::int32_t* bias,
                       std::int32_t* acc) noexcept {
  constexpr std::size_t blocked = Out / 4 * 4;
  for (std::size_t j = 0; j < blocked; j += 4) dot_1x4<In>(x, w + j * In, bias + j, acc + j);
  for (std::size_t j = blocked; j < Out; ++j) acc[j] = dot_1x1<In>(x, w + j * In, bias[j]);
}

/// Rows rows (x: Rows x In, acc: Rows x Out): pairs of rows by the 2 x 2 kernel, an odd last row
/// by linear_row.
template <std::size_t In, std::size_t Out>
inline void linear_rows(const std::int8_t* x, std::size_t rows, const std::int8_t* w, const std::int32_t* bias,
                        std::int32_t* acc) noexcept {
  std::size_t i = 0;
  for (; i + 2 <= rows; i += 2) {
    const std::int8_t* xi = x + i * In;
    std::int32_t* ai = acc + i * Out;
    constexpr std::size_t blocked = Out / 2 * 2;
    for (std::size_t j = 0; j < blocked; j += 2) dot_2x2<In, Out>(xi, w + j * In, bias + j, ai + j);
    if constexpr (blocked < Out) {
      ai[blocked] = dot_1x1<In>(xi, w + blocked * In, bias[blocked]);
      ai[Out + blocked] = dot_1x1<In>(xi + In, w + blocked * In, bias[blocked]);
    }
  }
  if (i < rows) linear_row<In, Out>(x + i * In, w, bias, acc + i * Out);
}

}  // namespace static_attention::detail::dsp

#endif
