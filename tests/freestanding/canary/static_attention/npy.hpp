// SPDX-License-Identifier: BSL-1.0
// Canary for the freestanding check: exempt by the explicit list.
#pragma once
#include <vector>
