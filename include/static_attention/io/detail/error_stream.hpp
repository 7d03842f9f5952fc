// SPDX-License-Identifier: BSL-1.0
// operator<< for error_message, so that `std::cout << r.error().message` works once any I/O
// header is included. One definition for every I/O header: include this one rather than
// defining another (core/result.hpp cannot, since only io/ may include <ostream>).
#pragma once

#include <ostream>

#include <static_attention/core/result.hpp>

namespace static_attention {

/// Writes an error message to a stream: `std::cout << r.error().message`.
inline std::ostream& operator<<(std::ostream& out, const error_message& message) { return out << message.view(); }

}  // namespace static_attention
