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
