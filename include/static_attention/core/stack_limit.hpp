// SPDX-License-Identifier: BSL-1.0
// The stack budget, as Eigen's EIGEN_STACK_ALLOCATION_LIMIT: a call that would put more than
// stack_limit bytes on the stack (its by-value result and the intermediates it holds at once)
// is a compile error that names the bytes, the limit and the caller-owned call to use instead.
// Define STATIC_ATTENTION_STACK_LIMIT (bytes) before including the library to change it.
#pragma once

#include <cstddef>

namespace static_attention {

/// The most bytes one call of the library may put on the stack: STATIC_ATTENTION_STACK_LIMIT if
/// defined, else 1 MiB (an eighth of the usual 8 MiB main-thread stack).
inline constexpr std::size_t stack_limit =
#ifdef STATIC_ATTENTION_STACK_LIMIT
    static_cast<std::size_t>(STATIC_ATTENTION_STACK_LIMIT);
#else
    std::size_t{1} << 20;
#endif

/// True if a call that puts Bytes on the stack keeps within Limit (stack_limit): the rule behind
/// every "would put ... bytes on the stack" error; `stack_use_within<6432896, 1048576>` is false.
template <std::size_t Bytes, std::size_t Limit>
inline constexpr bool stack_use_within = Bytes <= Limit;

namespace detail {
// The stack-budget check of one call: Bytes held at once on the stack. Instead is a tag whose
// name says what to call with caller-owned storage; the diagnostic shows it beside the bytes.
template <std::size_t Bytes, class Instead, std::size_t Limit = stack_limit>
constexpr void check_stack() noexcept {
  static_assert(stack_use_within<Bytes, Limit>,
                "this call would put more than STATIC_ATTENTION_STACK_LIMIT bytes (default 1 MiB) on the stack "
                "(stack_use_within<bytes, limit>): call what `Instead` names, with caller-owned storage, or define "
                "STATIC_ATTENTION_STACK_LIMIT");
}
}  // namespace detail

}  // namespace static_attention
