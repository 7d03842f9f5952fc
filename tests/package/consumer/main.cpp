// SPDX-License-Identifier: BSL-1.0
// A consumer's program: the chapter's simplified attention, checked at compile time.
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
constexpr auto all_context_vecs = sa::context_vectors(inputs);
static_assert(sa::approx_equal(sa::row(all_context_vecs, 1), sa::context_vector(inputs, 1), 1e-6f));

int main() {
  // The chapter prints tensor([0.4419, 0.6515, 0.5683]) for the second token.
  const auto z2 = sa::context_vector(inputs, 1);
  const bool ok = sa::approx_equal(z2, sa::matrix<float, 1, 3>{{0.4419f, 0.6515f, 0.5683f}}, 5e-5f);
  return ok ? 0 : 1;
}
