// SPDX-License-Identifier: BSL-1.0
// Run-time truth: scalars, vectors and tensor4s print character for character as torch 1.13
// prints 0-d, 1-d and 4-d tensors, and shape_of prints `torch.Size([...])`
// (print_rank_reference.hpp, written by tests/reference/gen_book_print_reference.py).
#include <doctest/doctest.h>

#include <sstream>
#include <static_attention/io/print.hpp>
#include <string>

#include "print_rank_reference.hpp"

namespace {

namespace sa = static_attention;
namespace ref = reference::print_rank;

template <class M, class V, std::size_t N>
M from_values(const V (&values)[N]) {
  static_assert(M::size == N);
  M m;
  for (std::size_t k = 0; k < N; ++k) m.elems[k] = static_cast<typename M::value_type>(values[k]);
  return m;
}

template <class M>
std::string streamed(const M& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

using t_vector_float_3 = sa::vector<float, 3>;
using t_vector_float_6 = sa::vector<float, 6>;
using t_vector_float_40 = sa::vector<float, 40>;
using t_vector_float_2000 = sa::vector<float, 2000>;
using t_tensor4_float_1_2_3_3 = sa::tensor4<float, 1, 2, 3, 3>;
using t_tensor4_float_2_2_2_3 = sa::tensor4<float, 2, 2, 2, 3>;
using t_tensor4_float_2_3_4_50 = sa::tensor4<float, 2, 3, 4, 50>;

#define SA_PRINT_CASE(name, type)                                       \
  SUBCASE(#name) {                                                      \
    const auto x = from_values<type>(ref::name##_values);               \
    CHECK(sa::to_string(x) == std::string(ref::name##_text));           \
    CHECK(streamed(x) == std::string(ref::name##_text));                \
    CHECK(streamed(sa::shape_of(x)) == std::string(ref::name##_shape)); \
  }

TEST_CASE("0-d, 1-d and 4-d tensors print as torch prints them"){
    SA_PRINT_CASE(scalar_one, sa::scalar<float>) SA_PRINT_CASE(scalar_value, sa::scalar<float>)
        SA_PRINT_CASE(scalar_tiny, sa::scalar<float>) SA_PRINT_CASE(scalar_big, sa::scalar<float>)
            SA_PRINT_CASE(scalar_negative_zero, sa::scalar<float>) SA_PRINT_CASE(scalar_nan, sa::scalar<float>)
                SA_PRINT_CASE(vector_context, t_vector_float_3) SA_PRINT_CASE(vector_ones, t_vector_float_6)
                    SA_PRINT_CASE(vector_whole, t_vector_float_3) SA_PRINT_CASE(vector_wide, t_vector_float_3)
                        SA_PRINT_CASE(vector_long, t_vector_float_40)
                            SA_PRINT_CASE(vector_summarised, t_vector_float_2000)
                                SA_PRINT_CASE(tensor4_heads, t_tensor4_float_1_2_3_3)
                                    SA_PRINT_CASE(tensor4_batch, t_tensor4_float_2_2_2_3)
                                        SA_PRINT_CASE(tensor4_summarised, t_tensor4_float_2_3_4_50)}
#undef SA_PRINT_CASE

TEST_CASE("the grad_fn suffix follows dtype, on the last line or a line of its own, as torch's") {
  const auto softmax = from_values<sa::matrix<float, 6, 6>>(ref::grad_softmax_values);
  CHECK(sa::to_string(softmax, {.grad_fn = "SoftmaxBackward0"}) == std::string(ref::grad_softmax_text));
  const auto shorter = from_values<sa::matrix<float, 2, 2>>(ref::grad_short_values);
  CHECK(sa::to_string(shorter, {.grad_fn = "MulBackward0"}) == std::string(ref::grad_short_text));
  sa::matrix<double, 2, 3> wide;
  for (std::size_t k = 0; k < 6; ++k) wide.elems[k] = ref::grad_double_values[k];
  CHECK(sa::to_string(wide, {.grad_fn = "MulBackward0"}) == std::string(ref::grad_double_text));
}

TEST_CASE("shape_of gives torch.Size for matrices and tensors, and int64 scalars print as torch's") {
  CHECK(streamed(sa::shape_of(sa::tensor<float, 2, 4, 7>{})) == "torch.Size([2, 4, 7])");
  CHECK(streamed(sa::shape_of(sa::matrix<float, 6, 2>{})) == "torch.Size([6, 2])");
  CHECK(streamed(sa::shape_of(sa::scalar<float>{})) == "torch.Size([])");
  static_assert(sa::shape_of(sa::matrix<float, 6, 2>{}) == sa::torch_size<2>{{6, 2}});
  CHECK(sa::to_string(sa::scalar<long long>{3}) == "tensor(3)");  // torch.tensor(3)
}

}  // namespace
