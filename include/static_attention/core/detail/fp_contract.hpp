// SPDX-License-Identifier: BSL-1.0
// Same bits at compile time and at run time: how the run-time kernels multiply and add.
//
// Two kinds of arithmetic, each the same at both times:
//   - a product rounded on its own, then added (rounded_product, multiply_add): for the
//     element-wise code, and for the matrix kernels unless fused kernels are asked for. At run time
//     a compiler may contract a * b + c into one fused multiply-add, rounded once: GCC does so by
//     default (-ffp-contract=fast, even with -std=c++20), Clang within an expression
//     (-ffp-contract=on), and Clang folds llvm.fmuladd of constants as fused even for targets
//     without FMA. Pragmas do not stop it in every build (Clang's -ffp-contract=fast disregards
//     them), so each product passes through an empty asm statement: the compiler must round the
//     product to a register before the add sees it. The statement emits no instruction.
//   - a fused multiply-add, rounded once (kernel_multiply_add where kernels_fuse<T>): the matrix
//     kernels of builds whose target has FMA instructions for T (x86 with __FMA__, AArch64, 32-bit
//     Arm whose FPU fuses T: float with FPv4-SP and FPv5, the Cortex-M4F, M7, M33, M55; double
//     with a double-precision FPv5, the M7 and M55), unless STATIC_ATTENTION_UNFUSED_KERNELS is
//     defined. At run time an explicit FMA instruction (never left to contraction, so
//     -ffp-contract=off, -O0 and -ffp-contract=fast all give it); in constant evaluation the exact
//     emulation of exact_fma.hpp (matmul_kernel.hpp).
//
// STATIC_ATTENTION_DETAIL_KERNELS_FUSE (internal: the device tests' host checker, not for users)
// makes kernels_fuse<T> true for the types its bits name, in __ARM_FP's encoding (4: float, 8:
// double; 12: both), whatever the target: a host build then constant-evaluates what a board with
// that FPU computes (tests/device: device_check_fused). At run time such a build's fused steps
// are __builtin_fmaf / __builtin_fma, a call to the C library's fmaf / fma where the host has no
// FMA instruction: correctly rounded, so still the constant evaluator's bits, only slower.
//
// STATIC_ATTENTION_FAST_FMA, defined before the first include, lets the rounded products fuse
// wherever the compiler likes (the matrix kernels that do not fuse, and the element-wise and
// attention code that rounds each product): no longer the constant evaluator's bits there (the
// bound is in docs/accuracy.md and tests/same_bits). The kernels that fuse are unchanged.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#if defined(__FAST_MATH__) && !defined(STATIC_ATTENTION_ALLOW_FAST_MATH)
#error \
    "static_attention: -ffast-math breaks the promise that run time gives the constant evaluator's bits (it reorders sums and flushes denormals). Build without it, or define STATIC_ATTENTION_ALLOW_FAST_MATH to accept different bits."
#endif

#if defined(STATIC_ATTENTION_UNFUSED_KERNELS) && defined(STATIC_ATTENTION_FUSED_KERNELS)
#error \
    "static_attention: STATIC_ATTENTION_UNFUSED_KERNELS and STATIC_ATTENTION_FUSED_KERNELS ask for opposite kernel arithmetic; define one (fused is the default where the target has FMA)."
#endif

#if defined(__GNUC__) && defined(__FMA__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && \
    (!defined(__i386__) || !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ == 0)
#define SA_DETAIL_FMA_X86 1
#endif

// 32-bit Arm with a VFP that fuses (VFMA, VFMS), with GCC: float with FPv4-SP and later, double
// with a double-precision FPv5. Not the Cortex-M3 (no FPU), nor the M4F's and M33's double
// (software). Not Clang: for arm-none-eabi it takes fma to set errno, so __builtin_fmaf becomes a
// call to fmaf unless -fno-math-errno (checked with Clang 16).
#if defined(__GNUC__) && !defined(__clang__) && defined(__arm__) && defined(__ARM_FEATURE_FMA) && defined(__ARM_FP) && \
    (__ARM_FP & 4)
#define SA_DETAIL_FMA_ARM_FLOAT 1
#if (__ARM_FP & 8)
#define SA_DETAIL_FMA_ARM_DOUBLE 1
#endif
#endif

namespace static_attention::detail {

/// True when the run-time matrix kernels for T fuse each multiply-add into one FMA instruction
/// (and the constant evaluator computes the same FMA): by default on every target with FMA
/// instructions for T (x86 with FMA: -mfma, -march=x86-64-v3, -march=native on Haswell, Zen and
/// later; AArch64; 32-bit Arm with GCC: float on the Cortex-M4F, M7, M33 and M55, double on the
/// M7 and M55), with GCC or Clang. Builds that define STATIC_ATTENTION_UNFUSED_KERNELS before
/// the first include, and targets without FMA for T (x86-64 baseline, -mno-fma, the Cortex-M3,
/// the M4F's and M33's software double), round each product on its own at both times: the
/// arithmetic of the torch and numpy references whose printed digits the book's tests reproduce
/// (a fused build changes the last digit of a few). Either way run time gives the constant
/// evaluator's bits; fused is faster on Intel, whose cores issue a multiply and an add as two
/// operations where an FMA is one, and on the Cortex-M, where it is one instruction instead of two.
template <class T>
inline constexpr bool kernels_fuse =
#if defined(STATIC_ATTENTION_UNFUSED_KERNELS)
    false;
#elif defined(STATIC_ATTENTION_DETAIL_KERNELS_FUSE)
    (std::is_same_v<T, float> && (STATIC_ATTENTION_DETAIL_KERNELS_FUSE & 4) != 0) ||
    (std::is_same_v<T, double> && (STATIC_ATTENTION_DETAIL_KERNELS_FUSE & 8) != 0);
#elif defined(SA_DETAIL_FMA_X86) || (defined(__GNUC__) && defined(__aarch64__)) || defined(SA_DETAIL_FMA_ARM_DOUBLE)
    std::is_same_v<T, float> || std::is_same_v<T, double>;
#elif defined(SA_DETAIL_FMA_ARM_FLOAT)
    std::is_same_v<T, float>;
#else
    false;
#endif

/// True when the run-time kernels give the constant evaluator's bits (no opt-in fusion, no
/// -ffast-math).
#if defined(STATIC_ATTENTION_FAST_FMA) || defined(__FAST_MATH__)
inline constexpr bool same_bits_at_run_time = false;
#else
inline constexpr bool same_bits_at_run_time = true;
#endif

/// x, opaque to the optimiser (run time only): whatever produced x is rounded before use.
template <class T>
[[gnu::always_inline]] inline void round_here(T& x) noexcept {
#if defined(STATIC_ATTENTION_FAST_FMA)
  (void)x;
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && \
    (!defined(__i386__) || !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ == 0)
#if defined(__AVX512F__)
  __asm__("" : "+v"(x));  // any of the 32 vector registers
#else
  __asm__("" : "+x"(x));
#endif
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(x));
#elif defined(__GNUC__) && defined(__arm__)
#if defined(__ARM_FP) && (__ARM_FP & 4)
  if constexpr (std::is_same_v<T, float>) {
    __asm__("" : "+t"(x));  // a single-precision VFP register
    return;
  }
#endif
#if defined(__ARM_FP) && (__ARM_FP & 8)
  if constexpr (std::is_same_v<T, double>) {
    __asm__("" : "+w"(x));  // a double-precision VFP register
    return;
  }
#endif
  __asm__("" : "+r"(x));  // soft float: core registers (there is nothing to fuse)
#elif defined(__GNUC__)
  __asm__("" : "+m"(x));
#else
  volatile T v = x;  // other compilers: a store the optimiser must keep
  x = v;
#endif
}

/// acc += a * b at run time: the product rounded on its own, or, with STATIC_ATTENTION_FAST_FMA,
/// one expression the compiler may fuse (the arithmetic of the unfused builds' kernels). Works on scalars and on
/// vector-extension types.
template <class T, class S>
[[gnu::always_inline]] inline void multiply_add(T& acc, S a, T b) noexcept {
#if defined(STATIC_ATTENTION_FAST_FMA)
  acc += a * b;
#else
  T p = a * b;
  round_here(p);
  acc += p;
#endif
}

// fma(a, b, c) lane by lane, the vector built whole (element writes would leave GCC unsure
// that the others are initialised).
template <class E, class T, std::size_t... L>
[[gnu::always_inline]] inline T fma_lanes(T a, T b, T c, std::index_sequence<L...>) noexcept {
  if constexpr (std::is_same_v<E, float>)
    return T{__builtin_fmaf(a[L], b[L], c[L])...};
  else
    return T{__builtin_fma(a[L], b[L], c[L])...};
}

/// acc = fma(a, b, acc), rounded once, by an FMA instruction (run time only; kernels_fuse<E>
/// for the element type E of T). T is E or a vector of E (kernel_simd.hpp's vec); a is E or T.
template <class E, class T, class S>
[[gnu::always_inline]] inline void fused_multiply_add(T& acc, S a, T b) noexcept {
  static_assert(kernels_fuse<E>, "fused_multiply_add is for the builds whose kernels fuse");
  if constexpr (std::is_same_v<T, E>) {
    if constexpr (std::is_same_v<E, float>)
      acc = __builtin_fmaf(a, b, acc);
    else
      acc = __builtin_fma(a, b, acc);
  } else {
#if defined(__GNUC__)
    const T av = a;  // a vector, or a scalar broadcast
#if defined(SA_DETAIL_FMA_X86)
    if constexpr (std::is_same_v<E, float> && sizeof(T) == 16)
      acc = __builtin_ia32_vfmaddps(av, b, acc);
    else if constexpr (std::is_same_v<E, double> && sizeof(T) == 16)
      acc = __builtin_ia32_vfmaddpd(av, b, acc);
    else if constexpr (std::is_same_v<E, float> && sizeof(T) == 32)
      acc = __builtin_ia32_vfmaddps256(av, b, acc);
    else if constexpr (std::is_same_v<E, double> && sizeof(T) == 32)
      acc = __builtin_ia32_vfmaddpd256(av, b, acc);
#if defined(__AVX512F__)
    else if constexpr (std::is_same_v<E, float> && sizeof(T) == 64)
#if defined(__clang__)
      acc = __builtin_ia32_vfmaddps512_mask(av, b, acc, static_cast<unsigned short>(0xffffU), 4);
#else
      acc = __builtin_ia32_vfmaddps512_mask(av, b, acc, static_cast<short>(-1), 4);  // GCC's mask is a short
#endif
    else if constexpr (std::is_same_v<E, double> && sizeof(T) == 64)
      acc = __builtin_ia32_vfmaddpd512_mask(av, b, acc, static_cast<unsigned char>(0xffU), 4);
#endif
    else
#endif
    {
      // Other widths and targets: lane by lane (AArch64: one fmla a vector).
      acc = fma_lanes<E>(av, b, acc, std::make_index_sequence<sizeof(T) / sizeof(E)>{});
    }
#endif
  }
}

/// acc += a * b in a matrix kernel for elements E: one FMA where kernels_fuse<E>, else the
/// product rounded on its own (multiply_add). Same arithmetic as the constant evaluator's dot
/// products in that build (matmul_kernel.hpp).
template <class E, class T, class S>
[[gnu::always_inline]] inline void kernel_multiply_add(T& acc, S a, T b) noexcept {
  if constexpr (kernels_fuse<E>)
    fused_multiply_add<E>(acc, a, b);
  else
    multiply_add(acc, a, b);
}

/// a * b, rounded on its own at run time as in constant evaluation: `acc + rounded_product(a, b)`
/// is never fused.
template <class T>
[[gnu::always_inline]] constexpr T rounded_product(T a, T b) noexcept {
  T p = a * b;
  if (!std::is_constant_evaluated()) round_here(p);
  return p;
}

}  // namespace static_attention::detail

#undef SA_DETAIL_FMA_X86
#undef SA_DETAIL_FMA_ARM_FLOAT
#undef SA_DETAIL_FMA_ARM_DOUBLE
