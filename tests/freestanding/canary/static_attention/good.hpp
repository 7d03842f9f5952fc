// SPDX-License-Identifier: BSL-1.0
// Canary for the freestanding check: allowed standard headers only.
#pragma once
#include <array>
#include <cstddef>
