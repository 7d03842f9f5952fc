// SPDX-License-Identifier: BSL-1.0
// exp(float) at run time on the board, against the constant evaluator's code run on the board:
// exp_kernel_ff with exp_impl's selects (core/detail/math_exp.hpp; this file is compiled with
// -ffp-contract=off, so it runs as the constant evaluator computes it). On the Cortex-M without
// vectors exp takes branches, scales by an integer addition to the exponent and, on an FPU that
// fuses, takes hi = x - kd ln2_hi as one VFMS; the softmax's exponentials
// (detail::math::exp_below_max) also skip the kernel for +-0 and leave it for arguments at or
// below -86. All of these must give the same bits. Inputs: every 4099th bit pattern (1,047,809),
// and 2^12 patterns on each side of every value where a path changes (the arguments -104, -86,
// -87.34 (subnormal results), -86.99 and 88.37 (k = -125.5 and 127.5), the largest finite
// argument, +-0, +-inf, and the NaNs). Each through the scalar exp, the array exp and, for the
// arguments <= 0, exp_below_max. Prints the inputs compared and the differences; exits
// 1 if there is one.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <span>

#include <static_attention/core/math.hpp>

namespace {

namespace sa = static_attention;
namespace sm = sa::detail::math;

// exp_impl's select path: what the constant evaluator runs.
float constant_path(float x) {
  const float lo = static_cast<float>(sm::exp_zero_f);
  const float hi = static_cast<float>(sm::exp_overflow_f);
  const float y = sm::exp_kernel_ff(sm::kernel_arg(x, lo, hi));
  return sm::select(sm::is_nan(x), sm::quiet(x), sm::select(x < lo, 0.0f, sm::select(x > hi, sm::inf_f, y)));
}

struct tally {
  unsigned long compared = 0;
  unsigned long differing = 0;
};

[[gnu::noinline]] void check(std::uint32_t bits, tally& t) {
  const float x = std::bit_cast<float>(bits);
  const std::uint32_t want = std::bit_cast<std::uint32_t>(constant_path(x));
  const float* volatile in = &x;  // nothing folded
  float got[3] = {sa::exp(*in), 0.0f, 0.0f};
  sa::exp(std::span<const float>{in, 1}, std::span<float>{got + 1, 1});
  const bool below_max = x <= 0.0f;  // an argument x - top of the softmax, top = 0
  if (below_max) (void)sm::exp_below_max(in, 0.0f, got + 2, 1);
  for (int k = 0; k < (below_max ? 3 : 2); ++k) {
    if (std::bit_cast<std::uint32_t>(got[k]) != want) {
      if (t.differing < 16)
        std::printf("exp of the float %08lx, %s: %08lx, constant evaluator's code %08lx\n",
                    static_cast<unsigned long>(bits), k == 0 ? "scalar" : (k == 1 ? "array" : "exp_below_max"),
                    static_cast<unsigned long>(std::bit_cast<std::uint32_t>(got[k])), static_cast<unsigned long>(want));
      ++t.differing;
    }
  }
  ++t.compared;
}

void around(float x, tally& t) {
  const std::uint32_t center = std::bit_cast<std::uint32_t>(x);
  constexpr std::uint32_t reach = 4096;
  for (std::uint32_t d = 0; d <= 2 * reach; ++d) check(center - reach + d, t);
}

}  // namespace

int main() {
  tally t;
  for (std::uint64_t bits = 0; bits <= 0xffff'ffffU; bits += 4099) check(static_cast<std::uint32_t>(bits), t);
  const float edges[] = {-104.0f, -86.0f, -87.33655f, -86.99077f, 88.37626f, 0x1.62e42ep+6f, 0.0f, -0.0f};
  for (const float x : edges) around(x, t);
  around(std::bit_cast<float>(0x7f80'0000U), t);  // +inf and the NaNs above it
  around(std::bit_cast<float>(0xff80'0000U), t);  // -inf and the NaNs above it
  std::printf("exp sweep: %lu inputs, %lu results differ from the constant evaluator's code\n", t.compared,
              t.differing);
  return t.differing == 0 ? 0 : 1;
}
