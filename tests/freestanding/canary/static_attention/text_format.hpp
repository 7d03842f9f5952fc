// SPDX-License-Identifier: BSL-1.0
// Canary for the freestanding check: a formatting header is exempt by its name.
#pragma once
#include <string>
