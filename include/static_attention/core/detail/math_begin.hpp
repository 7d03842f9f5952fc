// SPDX-License-Identifier: BSL-1.0
// Opens a region of constexpr math kernels; math_end.hpp closes it. No include guard: each
// kernel header includes both, after its other includes, so that the macros below are defined
// only inside the region and no macro of the library is visible after a public header.
//
// Same bits in both worlds needs every multiply and add rounded separately. The constant
// evaluator never fuses a*b+c, but at run time with FMA hardware Clang (-ffp-contract=on)
// fuses within an expression and GCC (-ffp-contract=fast, even with -std=c++20) fuses
// anywhere. Clang takes a per-function-body pragma; GCC takes an optimize pragma around the
// definitions, which also stops GCC from inlining them into callers built with a different
// contraction mode (so callers built with -ffp-contract=off get them inlined and vectorised).
// Clang also keeps contraction off for the whole region (float_control, popped by math_end.hpp).
#if defined(__clang__)
#define SA_DETAIL_MATH_BEGIN _Pragma("float_control(push)") _Pragma("clang fp contract(off)")
#define SA_DETAIL_MATH_END _Pragma("float_control(pop)")
#define SA_DETAIL_NO_FP_CONTRACT _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define SA_DETAIL_MATH_BEGIN _Pragma("GCC push_options") _Pragma("GCC optimize(\"fp-contract=off\")")
#define SA_DETAIL_MATH_END _Pragma("GCC pop_options")
#define SA_DETAIL_NO_FP_CONTRACT
#else
#define SA_DETAIL_MATH_BEGIN
#define SA_DETAIL_MATH_END
#define SA_DETAIL_NO_FP_CONTRACT
#endif
SA_DETAIL_MATH_BEGIN
