// SPDX-License-Identifier: BSL-1.0
// Include cost of the library's umbrella header (run.py subtracts include_array.cpp).
#include <array>
#include <static_attention/static_attention.hpp>
