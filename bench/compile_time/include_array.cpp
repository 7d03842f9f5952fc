// SPDX-License-Identifier: BSL-1.0
// Include-cost baseline: a translation unit that includes only <array>.
#include <array>
