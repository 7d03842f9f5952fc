// SPDX-License-Identifier: BSL-1.0
// The umbrella of verification (verify/): sets, domains, bounds and properties of nn modules.
#pragma once

#include <static_attention/verify/bound.hpp>
#include <static_attention/verify/causal.hpp>
#include <static_attention/verify/certify.hpp>
#include <static_attention/verify/domains.hpp>
#include <static_attention/verify/interval.hpp>
#include <static_attention/verify/no_overflow.hpp>
