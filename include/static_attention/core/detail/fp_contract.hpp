// SPDX-License-Identifier: BSL-1.0
// Same bits at compile time and at run time: products that the optimiser cannot fuse.
//
// The constant evaluator rounds every product and every sum on its own. At run time a compiler
// may contract a * b + c into one fused multiply-add, rounded once: GCC does so by default
// (-ffp-contract=fast, even with -std=c++20), Clang within an expression (-ffp-contract=on), and
// Clang folds llvm.fmuladd of constants as fused even for targets without FMA. Pragmas do not
// stop it in every build (Clang's -ffp-contract=fast disregards them), so the run-time kernels
// pass each product through an empty asm statement: the compiler must round the product to a
// register before the add sees it. The statement emits no instruction.
//
// STATIC_ATTENTION_FAST_FMA, defined before the first include, lets the kernels fuse again:
// faster on cores whose adds and multiplies share ports, no longer the constant evaluator's
// bits (the bound is in docs/accuracy.md and tests/same_bits).
#pragma once

#include <type_traits>

#if defined(__FAST_MATH__) && !defined(STATIC_ATTENTION_ALLOW_FAST_MATH)
#error \
    "static_attention: -ffast-math breaks the promise that run time gives the constant evaluator's bits (it reorders sums and flushes denormals). Build without it, or define STATIC_ATTENTION_ALLOW_FAST_MATH to accept different bits."
#endif

namespace static_attention::detail {

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
/// one expression the compiler may fuse. Works on scalars and on vector-extension types.
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

/// a * b, rounded on its own at run time as in constant evaluation: `acc + rounded_product(a, b)`
/// is never fused.
template <class T>
[[gnu::always_inline]] constexpr T rounded_product(T a, T b) noexcept {
  T p = a * b;
  if (!std::is_constant_evaluated()) round_here(p);
  return p;
}

}  // namespace static_attention::detail
