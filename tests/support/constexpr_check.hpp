// SPDX-License-Identifier: BSL-1.0
// The "constexpr test" pattern: one check, run by the compiler and again at run time.
#pragma once
#include <doctest/doctest.h>

// SA_CHECK_BOTH(expr): static_assert(expr) in the constant evaluator, then CHECK(expr) under
// doctest, so a constexpr regression fails the build and a run-time regression fails the run.
// expr is typically a call of a constexpr bool function that computes everything it checks.
#define SA_CHECK_BOTH(...)      \
  do {                          \
    static_assert(__VA_ARGS__); \
    CHECK(__VA_ARGS__);         \
  } while (false)
