// SPDX-License-Identifier: BSL-1.0
#pragma once
#include <string>
#include <ostream>
#include <static_attention/nn/layer.hpp>
