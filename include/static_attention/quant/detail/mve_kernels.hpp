// SPDX-License-Identifier: BSL-1.0
// The int8 path's run-time kernels for Arm cores with Helium, the M-profile vector extension
// (__ARM_FEATURE_MVE: Cortex-M55, M85): VMLADAVA.S8 multiplies 16 int8 lanes of two vectors and
// adds the 16 products to a 32-bit accumulator. The products and sums are exact integers and the
// accumulators cannot overflow (quant_core.hpp bounds every partial sum within int32), so the
// order in which the lanes are summed does not matter: the results are the portable kernels' and
// the constant evaluator's, bit for bit.
//
// Register blocking: one vector of activations is loaded once for four output channels (four
// weight loads, four VMLADAVAs: 9 instructions and a loop end for 64 multiply-accumulates), and
// two rows of activations share each weight load in the batched kernel. A length that is not a
// multiple of 16 ends with one predicated step: lanes past the end are neither read (a predicated
// load does not touch memory in its inactive lanes) nor counted (they load as zero). Vector loads
// of bytes need no alignment, so the public layouts (quantized_linear's Out x In row-major
// weights) stay as they are. Everything here is run time only: callers take the portable path in
// constant evaluation (std::is_constant_evaluated). On any other target this header declares
// nothing.
#pragma once

#if defined(__ARM_FEATURE_MVE)

#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

namespace static_attention::detail::mve {

/// The first `n` (< 16) lanes active: the predicate of a tail step.
[[gnu::always_inline]] inline mve_pred16_t first_lanes(std::size_t n) noexcept {
  return vctp8q(static_cast<std::uint32_t>(n));
}

/// 16 bytes at p, or the first lanes of `tail` at p and zeros (lanes past it not read).
[[gnu::always_inline]] inline int8x16_t load(const std::int8_t* p) noexcept { return vld1q_s8(p); }
[[gnu::always_inline]] inline int8x16_t load(const std::int8_t* p, mve_pred16_t tail) noexcept {
  return vldrbq_z_s8(p, tail);
}

/// p[0] = a, p[1] = b (STRD). Written in assembly so that GCC's straight-line vectorizer does not
/// gather the accumulators into a vector through the stack to store them.
[[gnu::always_inline]] inline void store_pair(std::int32_t* p, std::int32_t a, std::int32_t b) noexcept {
  __asm__("strd %[a], %[b], [%[p]]"
          : "=m"(*reinterpret_cast<std::int32_t(*)[2]>(p))
          : [a] "r"(a), [b] "r"(b), [p] "r"(p));
}

/// acc + the sum of the 16 lane products of a and b (VMLADAVA.S8).
[[gnu::always_inline]] inline std::int32_t mac16(std::int32_t acc, int8x16_t a, int8x16_t b) noexcept {
  return vmladavaq_s8(acc, a, b);
}

/// The first Length bytes (a multiple of 16) of the four channels c < 4 of w (rows of Stride
/// int8) against x, added to a0 .. a3: per 16 bytes, one load of x shared by the four channels,
/// then per channel a load and a VMLADAVA (9 instructions and the loop end for 64
/// multiply-accumulates). Written in assembly because GCC 12, given the same loop in intrinsics,
/// computes every address anew and moves the accumulators through vector registers; VMLADAVA
/// takes an even register (constraint Te), the loop counter is LR (DLS and LE, Armv8.1-M's
/// low-overhead loop).
template <std::size_t Stride, std::size_t Length>
[[gnu::always_inline]] inline void dot_1x4_vectors(const std::int8_t* x, const std::int8_t* w, std::int32_t& a0,
                                                   std::int32_t& a1, std::int32_t& a2, std::int32_t& a3) noexcept {
  static_assert(Length % 16 == 0 && Length > 0 && Length <= Stride,
                "dot_1x4_vectors<Stride, Length> requires Length % 16 == 0");
  const std::int8_t* w1 = w + Stride;
  const std::int8_t* w2 = w + 2 * Stride;
  const std::int8_t* w3 = w + 3 * Stride;
  __asm__(
      "dls lr, %[n]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[x]], #16\n\t"
      "vldrb.8 q1, [%[w0]], #16\n\t"
      "vmladava.s8 %[a0], q0, q1\n\t"
      "vldrb.8 q2, [%[w1]], #16\n\t"
      "vmladava.s8 %[a1], q0, q2\n\t"
      "vldrb.8 q1, [%[w2]], #16\n\t"
      "vmladava.s8 %[a2], q0, q1\n\t"
      "vldrb.8 q2, [%[w3]], #16\n\t"
      "vmladava.s8 %[a3], q0, q2\n\t"
      "le lr, 1b"
      : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+r"(x), [w0] "+r"(w), [w1] "+r"(w1),
        [w2] "+r"(w2), [w3] "+r"(w3)
      : [n] "r"(Length / 16)
      : "q0", "q1", "q2", "lr", "memory");
}

/// acc[c] = bias[c] + sum_k x[k] w[c In + k] for the four channels c < 4 of w (rows of In int8).
template <std::size_t In>
[[gnu::always_inline]] inline void dot_1x4(const std::int8_t* x, const std::int8_t* w, const std::int32_t* bias,
                                           std::int32_t* acc) noexcept {
  std::int32_t a0 = bias[0];
  std::int32_t a1 = bias[1];
  std::int32_t a2 = bias[2];
  std::int32_t a3 = bias[3];
  constexpr std::size_t full = In / 16 * 16;
  if constexpr (full > 0) dot_1x4_vectors<In, full>(x, w, a0, a1, a2, a3);
  if constexpr (full < In) {
    const mve_pred16_t p = first_lanes(In - full);
    const int8x16_t v = load(x + full, p);
    a0 = mac16(a0, v, load(w + full, p));
    a1 = mac16(a1, v, load(w + In + full, p));
    a2 = mac16(a2, v, load(w + 2 * In + full, p));
    a3 = mac16(a3, v, load(w + 3 * In + full, p));
  }
  store_pair(acc, a0, a1);
  store_pair(acc + 2, a2, a3);
}

/// acc = bias + sum_k x[k] w[k] for one channel (the channels left over by the blocked kernels).
template <std::size_t In>
[[gnu::always_inline]] inline std::int32_t dot_1x1(const std::int8_t* x, const std::int8_t* w,
                                                   std::int32_t acc) noexcept {
  constexpr std::size_t full = In / 16 * 16;
  for (std::size_t k = 0; k < full; k += 16) acc = mac16(acc, load(x + k), load(w + k));
  if constexpr (full < In) {
    const mve_pred16_t p = first_lanes(In - full);
    acc = mac16(acc, load(x + full, p), load(w + full, p));
  }
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

/// `rows` rows (x: rows x In, acc: rows x Out), row by row: VMLADAVA's 16 lanes leave the loop's
/// loads and overheads few enough that sharing weight loads between rows gains little, and seven
/// even registers cannot hold the accumulators of a 2 x 4 block.
template <std::size_t In, std::size_t Out>
inline void linear_rows(const std::int8_t* x, std::size_t rows, const std::int8_t* w, const std::int32_t* bias,
                        std::int32_t* acc) noexcept {
  for (std::size_t i = 0; i < rows; ++i) linear_row<In, Out>(x + i * In, w, bias, acc + i * Out);
}

}  // namespace static_attention::detail::mve

#endif
