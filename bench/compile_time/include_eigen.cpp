// SPDX-License-Identifier: BSL-1.0
// Include cost of Eigen 3.4's <Eigen/Dense>, for comparison.
#include <Eigen/Dense>
#include <array>
