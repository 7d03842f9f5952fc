// SPDX-License-Identifier: BSL-1.0
#pragma once
#include <static_attention/nn/layer.hpp>
