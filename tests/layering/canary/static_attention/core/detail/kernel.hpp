// SPDX-License-Identifier: BSL-1.0
#pragma once
#include <static_attention/core/matrix.hpp>
