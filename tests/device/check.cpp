// SPDX-License-Identifier: BSL-1.0
// The host side of the device tests: checks what a device program printed (run_cases.hpp).
//   device_check <group> <device-output-file>
// For every case of the group (tests/device/cases.hpp) the same computation was done here by the
// constant evaluator (a constexpr variable, whose agreement with torch is static_asserted), and
// the device's output must have exactly its bits; it must also agree with PyTorch's float32
// result (numpy's, for the math functions) within the case's tolerance. Exits 0 when every case
// of the group is present, bit-identical and within tolerance, and the device's float kernels
// fuse as this checker's do (device_check: unfused, device_check_fused: fused; the line
// `fuses <float> <double>` the device printed).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cases.hpp"

namespace {

using device_cases::group;
using device_cases::tolerance_kind;

/// Floats in order, as integers: the distance between two is the number of floats between them.
constexpr std::int64_t ordered(float x) {
  const auto u = std::bit_cast<std::uint32_t>(x);
  const auto magnitude = static_cast<std::int64_t>(u & 0x7fffffffU);
  return (u & 0x80000000U) != 0 ? -magnitude : magnitude;
}

constexpr double magnitude(double x) { return x < 0 ? -x : x; }

/// How far an output element is from its reference, in the unit its tolerance uses.
template <class E>
constexpr double distance(E y, double ref, tolerance_kind kind) {
  if constexpr (std::is_integral_v<E>) {
    return magnitude(static_cast<double>(y) - ref);
  } else {
    if (kind == tolerance_kind::float_steps) {
      return magnitude(static_cast<double>(ordered(y) - ordered(static_cast<float>(ref))));
    }
    const double d = magnitude(static_cast<double>(y) - ref);
    return kind == tolerance_kind::relative ? d / (magnitude(ref) > 1 ? magnitude(ref) : 1.0) : d;
  }
}

constexpr const char* measure(tolerance_kind kind) {
  switch (kind) {
    case tolerance_kind::absolute:
      return "max |device - torch|";
    case tolerance_kind::relative:
      return "max |device - torch| / max(1, |torch|)";
    case tolerance_kind::float_steps:
      return "max distance to numpy in floats";
    case tolerance_kind::exact:
      return "max |device id - torch id|";
  }
  return "";
}

// [snippet:evaluated]
/// The constant evaluator's output of a case.
template <class Case>
struct evaluated {
  static constexpr auto out = Case::run(Case::args);
};
// [/snippet]

/// Compile-time truth: the constant evaluator's output agrees with the reference.
template <class Case>
constexpr bool agrees_with_reference() {
  const auto& out = evaluated<Case>::out;
  const auto& ref = Case::torch;
  if (ref.values.size() > out.size) {
    return false;
  }
  for (std::size_t k = 0; k < ref.values.size(); ++k) {
    if (!(distance(out.elems[k], ref.values[k], ref.kind) <= ref.tolerance)) {
      return false;
    }
  }
  return true;
}

template <class... Cases>
constexpr bool group_agrees(group<Cases...>) {
  return (agrees_with_reference<Cases>() && ...);
}
static_assert(group_agrees(device_cases::chapter{}), "the chapter's cases, constant-evaluated, differ from torch");
static_assert(group_agrees(device_cases::random{}), "the randomized cases, constant-evaluated, differ from torch");
static_assert(group_agrees(device_cases::embedded{}), "the embedded model, constant-evaluated, differs from torch");
static_assert(group_agrees(device_cases::math{}), "the math functions, constant-evaluated, break their contract");
static_assert(group_agrees(device_cases::gpt{}), "the tiny GPTs, constant-evaluated, differ from torch");

/// What the device printed: case name -> the words of its output; `fuses` its kernels_fuse<float>
/// (-1: not printed).
std::map<std::string, std::vector<std::uint32_t>> parse(std::istream& in, unsigned& done, int& fuses) {
  std::map<std::string, std::vector<std::uint32_t>> cases;
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    std::istringstream words{line};
    std::string first;
    words >> first;
    if (first == "case") {
      words >> current;
      cases[current].clear();
    } else if (first == "end") {
      current.clear();
    } else if (first == "done") {
      words >> done;
    } else if (first == "fuses" && current.empty()) {
      words >> fuses;
    } else if (!current.empty()) {
      std::istringstream hex{line};
      std::string word;
      while (hex >> word) {
        cases[current].push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
      }
    }
  }
  return cases;
}

template <class Case>
bool check_case(const std::map<std::string, std::vector<std::uint32_t>>& device) {
  const auto& expected = evaluated<Case>::out;
  const auto found = device.find(Case::name);
  if (found == device.end()) {
    std::printf("FAIL %s: not in the device's output\n", Case::name);
    return false;
  }
  const std::vector<std::uint32_t>& bits = found->second;
  using element = std::remove_cvref_t<decltype(expected.elems[0])>;
  static_assert(sizeof(element) == sizeof(std::uint32_t), "the device prints 32-bit words");
  if (bits.size() != expected.size) {
    std::printf("FAIL %s: the device printed %zu values, %zu expected\n", Case::name, bits.size(), expected.size);
    return false;
  }
  std::size_t differing = 0;
  for (std::size_t k = 0; k < expected.size; ++k) {
    const auto want = std::bit_cast<std::uint32_t>(expected.elems[k]);
    if (bits[k] != want) {
      if (differing < 8) {
        std::printf("  %s[%zu]: device %08lx, constant evaluator %08lx\n", Case::name, k,
                    static_cast<unsigned long>(bits[k]), static_cast<unsigned long>(want));
      }
      ++differing;
    }
  }
  const auto& ref = Case::torch;
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t k = 0; k < ref.values.size(); ++k) {
    const double d = distance(std::bit_cast<element>(bits[k]), ref.values[k], ref.kind);
    if (!(d <= worst)) {
      worst = d;
      worst_at = k;
    }
  }
  const bool close = worst <= ref.tolerance;
  const std::string same = differing == 0 ? std::string{"bit-identical to the constant evaluator"}
                                          : std::to_string(differing) + " differ from the constant evaluator";
  std::printf("%s %s: %zu values, %s; %s %.3g at [%zu] (tolerance %.3g)\n", differing == 0 && close ? "PASS" : "FAIL",
              Case::name, expected.size, same.c_str(), measure(ref.kind), worst, worst_at, ref.tolerance);
  return differing == 0 && close;
}

template <class... Cases>
bool check_group(group<Cases...>, const std::map<std::string, std::vector<std::uint32_t>>& device, unsigned done) {
  bool ok = true;
  ((ok = check_case<Cases>(device) && ok), ...);
  if (done != sizeof...(Cases)) {
    std::printf("FAIL: the device program did not finish (done %u of %zu cases)\n", done, sizeof...(Cases));
    ok = false;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: device_check chapter|random|embedded|math|gpt <device-output-file>\n");
    return 2;
  }
  std::ifstream file{argv[2]};
  if (!file) {
    std::fprintf(stderr, "device_check: cannot read %s\n", argv[2]);
    return 2;
  }
  unsigned done = 0;
  int fuses = -1;
  const auto device = parse(file, done, fuses);
  constexpr int checker_fuses = static_attention::detail::kernels_fuse<float> ? 1 : 0;
  if (fuses != checker_fuses) {
    std::printf("FAIL: the device's float kernels %s, this checker's %s: check it with %s\n",
                fuses == 1 ? "fuse" : (fuses == 0 ? "do not fuse" : "did not say whether they fuse"),
                checker_fuses == 1 ? "do" : "do not", fuses == 1 ? "device_check_fused" : "device_check");
    return 1;
  }
  const std::string group_name = argv[1];
  bool ok = false;
  if (group_name == "chapter") {
    ok = check_group(device_cases::chapter{}, device, done);
  } else if (group_name == "random") {
    ok = check_group(device_cases::random{}, device, done);
  } else if (group_name == "embedded") {
    ok = check_group(device_cases::embedded{}, device, done);
  } else if (group_name == "math") {
    ok = check_group(device_cases::math{}, device, done);
  } else if (group_name == "gpt") {
    ok = check_group(device_cases::gpt{}, device, done);
  } else {
    std::fprintf(stderr, "device_check: no group %s\n", argv[1]);
    return 2;
  }
  return ok ? 0 : 1;
}
