// SPDX-License-Identifier: BSL-1.0
// The "constexpr test" pattern: one check, run by the compiler and again at run time.
#pragma once
#include <doctest/doctest.h>

// SA_CHECK_BOTH(expr): static_assert(expr) in the constant evaluator, then CHECK(expr) under
// doctest, so a constexpr regression fails the build and a run-time regression fails the run.
// expr is typically a call of a constexpr bool function that computes everything it checks.
// In the run-time-only presets (SA_RUNTIME_CHECKS_ONLY: the Release and sanitizer builds) the
// compiler's half is left to the Debug presets, which run it once per compiler: constant
// evaluation does not depend on the optimisation flags, and the run-time half still runs.
#ifdef SA_RUNTIME_CHECKS_ONLY
#define SA_CHECK_BOTH(...) CHECK(__VA_ARGS__)
#else
#define SA_CHECK_BOTH(...)      \
  do {                          \
    static_assert(__VA_ARGS__); \
    CHECK(__VA_ARGS__);         \
  } while (false)
#endif

// SA_CONSTEXPR_OR_CONST and SA_OPAQUE(x): a test's inputs that only its run-time checks read.
// In the Debug presets they are constexpr, computed by the constant evaluator; in the run-time-only
// presets they are const objects computed at start-up: SA_OPAQUE hides x behind a function that
// is not constexpr, so the initialiser is no constant expression and the compiler does not
// evaluate it (it would, to try constant initialisation).
namespace sa_test {
/// x, through a function the constant evaluator cannot call: what it computes is left to the
/// run time (compilers also try to constant-evaluate const locals and return values).
template <class T>
const T& opaque(const T& x) noexcept {
  return x;
}
}  // namespace sa_test
#ifdef SA_RUNTIME_CHECKS_ONLY
#define SA_CONSTEXPR_OR_CONST const
#define SA_OPAQUE(...) ::sa_test::opaque(__VA_ARGS__)
#else
#define SA_CONSTEXPR_OR_CONST constexpr
#define SA_OPAQUE(...) (__VA_ARGS__)
#endif
