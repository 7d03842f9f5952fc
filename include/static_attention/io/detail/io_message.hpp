// SPDX-License-Identifier: BSL-1.0
// Error messages of the loaders: parts joined into an error_message (255 characters), with the
// file's path shortened from its front ("...fixtures/w.npy") when the whole would not fit, so
// that the file's name and what was expected and found survive.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

#include <static_attention/core/result.hpp>

namespace static_attention::detail {

// The shortest tail of a path kept when a message is shortened.
inline constexpr std::size_t io_min_path_tail = 24;

// head..., then path (shortened if need be), then tail...
inline error_message io_message(std::initializer_list<std::string_view> head, std::string_view path,
                                std::initializer_list<std::string_view> tail) {
  std::size_t others = 0;
  for (const std::string_view part : head) others += part.size();
  for (const std::string_view part : tail) others += part.size();
  error_message m;
  for (const std::string_view part : head) m.append(part);
  if (others + path.size() <= error_message::capacity) {
    m.append(path);
  } else {
    const std::size_t room = others + 3 < error_message::capacity ? error_message::capacity - others - 3 : 0;
    const std::size_t keep = room > io_min_path_tail ? room : io_min_path_tail;
    if (keep >= path.size()) {
      m.append(path);
    } else {
      m.append("...").append(path.substr(path.size() - keep));
    }
  }
  for (const std::string_view part : tail) m.append(part);
  return m;
}

// An error whose message is io_message(head, path, tail).
inline error io_error(errc code, std::initializer_list<std::string_view> head, std::string_view path,
                      std::initializer_list<std::string_view> tail) {
  return error{code, io_message(head, path, tail)};
}

}  // namespace static_attention::detail
