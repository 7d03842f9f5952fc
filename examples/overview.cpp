// SPDX-License-Identifier: BSL-1.0
// The README's first example: the chapter's simplified attention, checked by the compiler.
// [snippet:overview]
#include <static_attention/static_attention.hpp>
namespace sa = static_attention;

// "Your journey starts with one step": 6 tokens x 3 dimensions.
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};

constexpr auto attn_scores = sa::matmul(inputs, sa::transpose(inputs));  // matrix<float, 6, 6>
constexpr auto attn_weights = sa::softmax(attn_scores);                  // each row sums to 1
constexpr auto all_context_vecs = sa::matmul(attn_weights, inputs);      // matrix<float, 6, 3>
constexpr auto z2 = sa::context_vector(inputs, 1);                       // the per-token route

static_assert(sa::approx_equal(sa::sum(attn_weights), sa::ones<float, 6, 1>(), 1e-6f));
static_assert(sa::approx_equal(sa::row(all_context_vecs, 1), z2, 1e-6f));  // a matmul moves no row
static_assert(sa::approx_equal(z2, sa::matrix<float, 1, 3>{{0.4419f, 0.6515f, 0.5683f}}, 5e-5f));
// [/snippet]

// The same check at run time.
int main() { return sa::approx_equal(sa::row(all_context_vecs, 1), z2, 1e-6f) ? 0 : 1; }
