// SPDX-License-Identifier: BSL-1.0
// A device program's main: runs each case of a group at run time and prints its output's bits,
//   case <name> <count>
//   <count> words of 8 hex digits, eight a line
//   end <name>
// then `fuses <float> <double>` (1 where the build's matrix kernels fuse that type,
// kernels_fuse) and `done <cases>`. check.cpp compares them with the constant evaluator's. The arguments are
// read through a volatile pointer, so the compiler cannot fold the computation into constants.
#pragma once

#include <bit>
#include <cstdint>
#include <cstdio>

#include "cases.hpp"

namespace device_run {

// [snippet:run_case]
template <class Case>
void run_case() {
  const typename Case::args_type* volatile args = &Case::args;
  const auto out = Case::run(*args);
  std::printf("case %s %u\n", Case::name, static_cast<unsigned>(out.size));
  for (std::size_t k = 0; k < out.size; ++k) {
    const bool last = k + 1 == out.size || k % 8 == 7;
    std::printf("%08lx%c", static_cast<unsigned long>(std::bit_cast<std::uint32_t>(out.elems[k])), last ? '\n' : ' ');
  }
  std::printf("end %s\n", Case::name);
}
// [/snippet]

template <class... Cases>
int run_group(device_cases::group<Cases...>) {
  (run_case<Cases>(), ...);
  std::printf("fuses %d %d\n", static_attention::detail::kernels_fuse<float> ? 1 : 0,
              static_attention::detail::kernels_fuse<double> ? 1 : 0);
  std::printf("done %u\n", static_cast<unsigned>(sizeof...(Cases)));
  return 0;
}

}  // namespace device_run
