// SPDX-License-Identifier: BSL-1.0
// The stack budget is the user's to set: with STATIC_ATTENTION_STACK_LIMIT at 16 MiB (for a
// thread with a stack that large), GPT-2 124M's model(ids) on 32 ids compiles. The default
// refuses it (tests/compile_fail/stack_limit_gpt_forward.cpp).
#define STATIC_ATTENTION_STACK_LIMIT (16u << 20)
#include <array>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

static_assert(sa::stack_limit == 16u << 20);
static_assert(gpt2::forward_stack_bytes<32> > (1u << 20) && gpt2::forward_stack_bytes<32> <= sa::stack_limit);
static_assert(sa::stack_use_within<gpt2::forward_stack_bytes<4>, 1u << 20>);  // 4 ids fit the default

// Instantiated, not run: the call compiles under the raised limit.
inline sa::matrix<float, 32, 50257> forward(const gpt2& model, const std::array<int, 32>& ids) { return model(ids); }
