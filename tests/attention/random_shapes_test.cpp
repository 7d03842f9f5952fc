// SPDX-License-Identifier: BSL-1.0
// Every module against torch on randomized shapes (N = 1..64, d = 1..64, heads 1..8, batch 1..4):
// double within 1e-12, float within 1e-6. The cases are a Hana sequence of types; each one
// instantiates the modules with its own shapes. The small cases are also checked by the compiler.
#include <boost/hana/for_each.hpp>

#include <static_attention/static_attention.hpp>

#include "attention_reference.hpp"
#include "constexpr_check.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace hana = boost::hana;
namespace ref = reference::attention;
using test_support::to_matrix;
using test_support::to_tensor;

namespace {

// Which results a case is checked for; each flag reads one of torch's arrays.
struct agreement {
  bool simplified, self_attention, causal, mha;
  constexpr bool all() const { return simplified && self_attention && causal && mha; }
};

// at_run_time: the inputs are opaque (sa_test::opaque), so only the run time computes the case:
// Clang's code generation tries to constant-evaluate a function's const locals and its return
// value, which for the large cases would run the whole attention in the compiler (30 s and more
// a case).
template <class Case, class T, bool at_run_time = false>
constexpr agreement agrees_with_torch() {
  constexpr std::size_t B = Case::batch, N = Case::tokens, d_in = Case::d_in, d_out = Case::d_out;
  constexpr bool is_float = sizeof(T) == sizeof(float);
  constexpr T tol = is_float ? T(1e-6) : T(1e-12);
  const auto& expected = [](const auto& f64, const auto& f32) -> const auto& {
    if constexpr (is_float)
      return f32;
    else
      return f64;
  };
  const auto x_value = to_tensor<T, B, N, d_in>(Case::x);
  const auto x = at_run_time ? sa_test::opaque(x_value) : x_value;
  const auto wq = to_matrix<T, d_out, d_in>(Case::wq);
  const auto wk = to_matrix<T, d_out, d_in>(Case::wk);
  const auto wv = to_matrix<T, d_out, d_in>(Case::wv);
  const auto self_attn = sa::self_attention<T, d_in, d_out>::from_linear(wq, wk, wv);
  const auto causal = sa::causal_attention<T, d_in, d_out>::from_linear(wq, wk, wv);
  const auto mha = sa::multi_head_attention<T, d_in, d_out, Case::heads>::from_linear(
      wq, wk, wv, to_matrix<T, d_out, d_out>(Case::w_out), to_matrix<T, 1, d_out>(Case::b_out));
  return {
      sa::approx_equal(sa::context_vectors(x),
                       to_tensor<T, B, N, d_in>(expected(Case::simplified, Case::simplified_f32)), tol),
      sa::approx_equal(self_attn(x),
                       to_tensor<T, B, N, d_out>(expected(Case::self_attention, Case::self_attention_f32)), tol),
      sa::approx_equal(causal(x), to_tensor<T, B, N, d_out>(expected(Case::causal, Case::causal_f32)), tol),
      sa::approx_equal(mha(x), to_tensor<T, B, N, d_out>(expected(Case::mha, Case::mha_f32)), tol),
  };
}

template <class Case, class T>
constexpr bool agrees() {
  return agrees_with_torch<Case, T>().all();
}

}  // namespace

TEST_CASE("every module equals torch on every randomized case, float and double, at run time") {
  hana::for_each(ref::cases, [](auto type) {
    using Case = typename decltype(type)::type;
    CAPTURE(Case::batch);
    CAPTURE(Case::tokens);
    CAPTURE(Case::d_in);
    CAPTURE(Case::d_out);
    CAPTURE(Case::heads);
    // Function arguments, not a braced list: Clang tries to constant-evaluate the backing array
    // of an initializer_list, which would run every case in the compiler too.
    const auto check = [](const agreement& a) {
      CHECK(a.simplified);
      CHECK(a.self_attention);
      CHECK(a.causal);
      CHECK(a.mha);
    };
    check(agrees_with_torch<Case, double, true>());
    check(agrees_with_torch<Case, float, true>());
  });
}

TEST_CASE("the small randomized cases agree inside the compiler too") {
  SA_CHECK_BOTH(agrees<ref::case_0, double>());
  SA_CHECK_BOTH(agrees<ref::case_0, float>());
  SA_CHECK_BOTH(agrees<ref::case_1, double>());
  SA_CHECK_BOTH(agrees<ref::case_1, float>());
  SA_CHECK_BOTH(agrees<ref::case_2, double>());
  SA_CHECK_BOTH(agrees<ref::case_2, float>());
}
