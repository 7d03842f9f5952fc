// SPDX-License-Identifier: BSL-1.0
// Canary for the freestanding check: <map> reached through another header must be reported.
#pragma once
#include <static_attention/bad_detail.hpp>
