// Include cost of Eigen 3.4's <Eigen/Dense>, for comparison.
#include <Eigen/Dense>
#include <array>
