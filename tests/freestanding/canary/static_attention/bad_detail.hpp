// SPDX-License-Identifier: BSL-1.0
// Canary for the freestanding check: included by bad.hpp.
#pragma once
#include <map>
