// SPDX-License-Identifier: BSL-1.0
// Runs the device cases of group "random" (tests/device/cases.hpp) and prints their bits.
#include "run_cases.hpp"

int main() { return device_run::run_group(device_cases::random{}); }
