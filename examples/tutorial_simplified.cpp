// SPDX-License-Identifier: BSL-1.0
// docs/tutorial.md, part 1: simplified attention (the chapter's 3.3), first token by token, then
// all tokens at once. Every value is computed at compile time.
// [snippet:use]
#include <static_attention/io/print.hpp>          // operator<< as PyTorch prints
#include <static_attention/static_attention.hpp>  // the core: no I/O, no heap
// [/snippet]
#include <iostream>

#include "tutorial.hpp"

// [snippet:inputs]
namespace sa = static_attention;

// "Your journey starts with one step": 6 tokens x 3 dimensions.
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f},   // Your     (x^1)
                                         {0.55f, 0.87f, 0.66f},   // journey  (x^2)
                                         {0.57f, 0.85f, 0.64f},   // starts   (x^3)
                                         {0.22f, 0.58f, 0.33f},   // with     (x^4)
                                         {0.77f, 0.25f, 0.10f},   // one      (x^5)
                                         {0.05f, 0.80f, 0.55f}};  // step     (x^6)
// [/snippet]

// [snippet:scores_2]
constexpr auto query = sa::row(inputs, 1);                                // x^2, a 1 x 3 matrix
constexpr auto attn_scores_2 = sa::matmul(query, sa::transpose(inputs));  // 1 x 6: x^2 . x^i
// [/snippet]
void print_scores_2() { std::cout << attn_scores_2 << '\n'; }

// [snippet:normalize]
// Divide by the sum, then the chapter's naive softmax, then the stable one the library uses.
constexpr auto attn_weights_2_tmp = attn_scores_2 / sa::sum(attn_scores_2)(0, 0);
constexpr auto attn_weights_2_naive = sa::softmax_naive(attn_scores_2);
constexpr auto attn_weights_2 = sa::softmax(attn_scores_2);
static_assert(sa::approx_equal(sa::sum(attn_weights_2), sa::ones<float, 1, 1>(), 1e-6f));
// [/snippet]
void print_normalize() {
  std::cout << "Attention weights: " << attn_weights_2_tmp << '\n'
            << "Sum: " << sa::sum(attn_weights_2_tmp) << '\n'
            << "Naive softmax: " << attn_weights_2_naive << '\n'
            << "Softmax: " << attn_weights_2 << '\n';
}

// [snippet:context_2]
constexpr auto context_vec_2 = sa::matmul(attn_weights_2, inputs);  // sum_i alpha_2i x^i: 1 x 3
// The same route in one call, with no matrix product at all:
static_assert(sa::approx_equal(sa::context_vector(inputs, 1), context_vec_2, 1e-6f));
// [/snippet]
void print_context_2() { std::cout << context_vec_2 << '\n'; }

// [snippet:all]
constexpr auto attn_scores = sa::matmul(inputs, sa::transpose(inputs));  // 6 x 6
constexpr auto attn_weights = sa::softmax(attn_scores);                  // softmax of each row
constexpr auto all_context_vecs = sa::matmul(attn_weights, inputs);      // 6 x 3
// Row 2 of the batched route is the per-token context vector: a matrix product moves no row.
static_assert(sa::approx_equal(sa::row(all_context_vecs, 1), context_vec_2, 1e-6f));
// The three steps in one call each:
static_assert(sa::attention_scores(inputs) == attn_scores);
static_assert(sa::context_vectors(inputs) == all_context_vecs);
// [/snippet]
void print_all() {
  std::cout << attn_scores << '\n'
            << attn_weights << '\n'
            << "All row sums: " << sa::transpose(sa::sum(attn_weights)) << '\n'
            << all_context_vecs << '\n';
}

int main(int argc, char** argv) {
  const tutorial_section sections[] = {
      {"scores_2", print_scores_2}, {"normalize", print_normalize}, {"context_2", print_context_2}, {"all", print_all}};
  return run_sections(argc, argv, sections);
}
