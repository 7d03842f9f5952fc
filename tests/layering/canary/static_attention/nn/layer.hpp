// SPDX-License-Identifier: BSL-1.0
#pragma once
#include <string>
#include <static_attention/core/matrix.hpp>
#include <static_attention/io/print.hpp>
