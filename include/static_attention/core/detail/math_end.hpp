// SPDX-License-Identifier: BSL-1.0
// Closes the region math_begin.hpp opened, and forgets its macros.
SA_DETAIL_MATH_END
#undef SA_DETAIL_MATH_BEGIN
#undef SA_DETAIL_MATH_END
#undef SA_DETAIL_NO_FP_CONTRACT
