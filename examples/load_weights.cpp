// SPDX-License-Identifier: BSL-1.0
// Weights in at run time: a multi-head attention model read from .npy files that numpy wrote
// (examples/weights/, made by tests/reference/gen_embedded_weights.py), checked against torch's output.
// Every mismatch between a file and the type that reads it is an error value, never UB.
#include <cstdio>
#include <string>

#include <static_attention/io/npy.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

#ifndef STATIC_ATTENTION_EXAMPLES_DIR
#define STATIC_ATTENTION_EXAMPLES_DIR "examples"
#endif

namespace {

std::string weights_file(const char* name) {
  return std::string(STATIC_ATTENTION_EXAMPLES_DIR) + "/weights/" + name + ".npy";
}

// True when the load succeeded; otherwise prints why.
template <class Result>
bool loaded(const Result& r) {
  if (!r) std::fprintf(stderr, "%s\n", r.error().message.c_str());
  return static_cast<bool>(r);
}

}  // namespace

int main() {
  // [snippet:load]
  // The type states the shape and dtype the file must have: 16 x 16 '<f4'.
  const auto w_query = sa::load_npy<sa::matrix<float, 16, 16>>(weights_file("w_query"));
  if (!w_query) {
    std::fprintf(stderr, "%s\n", w_query.error().message.c_str());
    return 1;
  }
  // [/snippet]
  const auto w_key = sa::load_npy<sa::matrix<float, 16, 16>>(weights_file("w_key"));
  const auto w_value = sa::load_npy<sa::matrix<float, 16, 16>>(weights_file("w_value"));
  const auto w_out = sa::load_npy<sa::matrix<float, 16, 16>>(weights_file("out_proj_weight"));
  const auto b_out = sa::load_npy<sa::matrix<float, 1, 16>>(weights_file("out_proj_bias"));  // shape (16,)
  const auto inputs = sa::load_npy<sa::matrix<float, 8, 16>>(weights_file("inputs"));
  const auto expected = sa::load_npy<sa::matrix<float, 8, 16>>(weights_file("expected"));
  if (!loaded(w_key) || !loaded(w_value) || !loaded(w_out) || !loaded(b_out) || !loaded(inputs) || !loaded(expected))
    return 1;

  const auto mha = sa::multi_head_attention<float, 16, 16, 4>::from_linear(
      w_query.value(), w_key.value(), w_value.value(), w_out.value(), b_out.value());
  const float err = sa::max_abs_diff(mha(inputs.value()), expected.value());
  std::printf("multi_head_attention from .npy weights: max |ours - torch| = %.3g\n", static_cast<double>(err));

  // [snippet:mismatch]
  // A file whose shape differs from the type: an error value that names both.
  const auto wrong = sa::load_npy<sa::matrix<float, 16, 8>>(weights_file("w_query"));
  if (!wrong) std::printf("%s\n", wrong.error().message.c_str());
  // [/snippet]
  return err <= 1e-6f && !wrong ? 0 : 1;
}
