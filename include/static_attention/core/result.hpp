// SPDX-License-Identifier: BSL-1.0
// result<T>: how every run-time failure of the library is reported, without exceptions (they may
// be off on embedded targets), in the spirit of C++23's std::expected. Freestanding and
// constexpr: the tokenizer returns one inside static_assert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace static_attention {

/// What went wrong, for every run-time entry point of the library: one enumeration, so a caller
/// branches on one set of names whatever the source.
enum class errc {
  // Inputs to a model, tokenizer or sampler.
  id_out_of_range,    ///< a token id < 0 or >= the vocabulary size
  capacity_exceeded,  ///< more tokens than a workspace, cache or context holds
  output_too_small,   ///< the caller's output span cannot hold the result
  invalid_argument,   ///< a parameter outside its domain (a temperature < 0, a probability > 1, ...)
  invalid_utf8,       ///< text that is not valid UTF-8 where text is required
  // Files.
  file_not_found,       ///< the file does not exist
  file_unreadable,      ///< the file exists but cannot be read (permissions, a directory, I/O error)
  bad_magic,            ///< not a file of the expected format
  unsupported_version,  ///< a format version the reader does not know
  truncated_header,     ///< the input ends inside the preamble or the header
  header_too_large,     ///< the header is longer than the format's limit
  header_encoding,      ///< a byte the format's header does not allow
  malformed_header,     ///< the header does not parse
  header_keys,          ///< a key of the header is missing, repeated or unknown
  dtype_mismatch,       ///< the element type is not the one asked for
  fortran_order,        ///< the data are in column-major (Fortran) order
  shape_mismatch,       ///< the shape is not the one the matrix or tensor type states
  truncated_data,       ///< fewer data bytes than the shape and dtype need
  trailing_bytes,       ///< more bytes after the data than the shape and dtype need
  zip_malformed,        ///< not a ZIP archive, or its records contradict each other
  zip_truncated,        ///< a ZIP record or an entry's data extends past the end of the archive
  zip_unsupported,      ///< encryption or multi-disk archives
  zip_compressed,       ///< a compressed entry, as np.savez_compressed writes
  zip_entry_not_found,  ///< no entry of the requested name
  zip_crc_mismatch,     ///< an entry's data do not match their CRC-32
  too_large,            ///< an input larger than the reader's byte limit
  // Models from files.
  malformed,          ///< an archive or an entry is not what its writer writes, or is damaged
  missing_tensor,     ///< no entry for a tensor the model has
  unexpected_tensor,  ///< an entry the model does not have (refused when loading strictly)
  mask_mismatch,      ///< a causal-mask buffer that is not the causal mask
  torch_pickle,       ///< a torch.save file: convert it with tools/export_state_dict.py
  malformed_line,     ///< a text file (vocabulary, merges) with a line that does not parse
};

/// The name of an error code, e.g. "shape_mismatch".
constexpr std::string_view to_string_view(errc code) noexcept {
  constexpr std::string_view names[] = {
      "id_out_of_range",  "capacity_exceeded", "output_too_small", "invalid_argument",    "invalid_utf8",
      "file_not_found",   "file_unreadable",   "bad_magic",        "unsupported_version", "truncated_header",
      "header_too_large", "header_encoding",   "malformed_header", "header_keys",         "dtype_mismatch",
      "fortran_order",    "shape_mismatch",    "truncated_data",   "trailing_bytes",      "zip_malformed",
      "zip_truncated",    "zip_unsupported",   "zip_compressed",   "zip_entry_not_found", "zip_crc_mismatch",
      "too_large",        "malformed",         "missing_tensor",   "unexpected_tensor",   "mask_mismatch",
      "torch_pickle",     "malformed_line"};
  const auto i = static_cast<std::size_t>(code);
  return i < std::size(names) ? names[i] : std::string_view{"unknown"};
}

/// A message of at most `capacity` characters, built without the heap (and in constant
/// evaluation): longer text is cut and ends in "...".
class error_message {
 public:
  static constexpr std::size_t capacity = 255;

  constexpr error_message() noexcept = default;
  constexpr error_message(std::string_view text) noexcept { append(text); }  // NOLINT: implicit, as a string

  /// Appends text, cutting at the capacity.
  constexpr error_message& append(std::string_view text) noexcept {
    for (char c : text) push(c);
    return *this;
  }
  /// Appends an integer in decimal.
  template <class I>
  requires std::is_integral_v<I>
  constexpr error_message& append_int(I value) noexcept {
    char digits[24]{};
    std::size_t n = 0;
    const bool negative = value < I{0};
    auto v = negative ? static_cast<std::uint64_t>(-(static_cast<std::int64_t>(value) + 1)) + 1u
                      : static_cast<std::uint64_t>(value);
    do {
      digits[n++] = static_cast<char>('0' + v % 10u);
      v /= 10u;
    } while (v != 0u);
    if (negative) push('-');
    while (n > 0) push(digits[--n]);
    return *this;
  }

  constexpr const char* c_str() const noexcept { return text_; }
  constexpr const char* data() const noexcept { return text_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr std::string_view view() const noexcept { return {text_, size_}; }
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit, as a string
  /// The position of `part`, or npos; as std::string::find.
  constexpr std::size_t find(std::string_view part) const noexcept { return view().find(part); }
  static constexpr std::size_t npos = std::string_view::npos;

  friend constexpr bool operator==(const error_message& a, std::string_view b) noexcept { return a.view() == b; }

 private:
  constexpr void push(char c) noexcept {
    if (size_ < capacity) {
      text_[size_++] = c;
    } else if (!cut_) {
      cut_ = true;
      text_[capacity - 3] = text_[capacity - 2] = text_[capacity - 1] = '.';
    }
  }

  char text_[capacity + 1]{};
  std::size_t size_ = 0;
  bool cut_ = false;
};

/// A failure: a code to branch on, and a message for people that names the input, what was
/// expected and what was found.
struct error {
  errc code{};
  error_message message;
};

namespace detail {
// Misuse of a result, as std::optional::value() without exceptions. Not constexpr, so that in
// constant evaluation it is a compile error naming the misuse; at run time it reports and stops,
// since returning anything would hand out a value that was never computed.
[[noreturn]] inline void bad_result_access(const char* what, const char* message) noexcept {
  std::fprintf(stderr, "static_attention: %s%s%s\n", what, *message ? ": " : "", message);
  std::abort();
}

// Tag of result's constructor that fills the value where it will stay.
struct result_fill_t {
  explicit result_fill_t() = default;
};
inline constexpr result_fill_t result_fill{};
}  // namespace detail

/// Either a T or an error E, never both and never a partly computed T.
///
/// `*r` and `value()` on an error, and `error()` on a value, are compile errors in constant
/// evaluation and print the message and abort at run time: check `r` (or `has_value()`) first.
/// E is `error` (a code and a message) unless a loader adds fields of its own to it.
template <class T, class E = error>
class [[nodiscard]] result {
 public:
  using value_type = T;
  using error_type = E;

  /// A success.
  constexpr result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as std::expected
  /// A success holding T constructed in place from args.
  template <class... Args>
  constexpr explicit result(std::in_place_t, Args&&... args) : value_(std::in_place, std::forward<Args>(args)...) {}
  /// A success holding a value-initialised T that `fill(T&)` then writes where it will stay, so
  /// a large matrix returned as a prvalue is written straight into the caller's result.
  template <class Fill>
  constexpr result(detail::result_fill_t, Fill&& fill) : value_(std::in_place) {
    std::forward<Fill>(fill)(*value_);
  }
  /// A failure.
  constexpr result(E error) : error_(std::move(error)) {}  // NOLINT: implicit, as std::expected

  /// True if the result holds a value.
  constexpr bool has_value() const noexcept { return value_.has_value(); }
  constexpr explicit operator bool() const noexcept { return has_value(); }

  /// The value.
  constexpr T& value() & noexcept { return (check_value(), *value_); }
  constexpr const T& value() const& noexcept { return (check_value(), *value_); }
  constexpr T&& value() && noexcept { return (check_value(), std::move(*value_)); }
  constexpr T& operator*() & noexcept { return value(); }
  constexpr const T& operator*() const& noexcept { return value(); }
  constexpr T* operator->() noexcept { return &value(); }
  constexpr const T* operator->() const noexcept { return &value(); }

  /// The error.
  constexpr const E& error() const noexcept {
    if (has_value()) detail::bad_result_access("result::error() called on a value", "");
    return error_;
  }

 private:
  constexpr void check_value() const noexcept {
    if (!has_value()) detail::bad_result_access("result::value() called on an error", error_.message.c_str());
  }

  std::optional<T> value_;
  E error_{};
};

/// Success or an error E, for the calls that write into storage the caller owns.
template <class E>
class [[nodiscard]] result<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  /// A success.
  constexpr result() noexcept = default;
  /// A failure.
  constexpr result(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit, as std::expected

  constexpr bool has_value() const noexcept { return ok_; }
  constexpr explicit operator bool() const noexcept { return ok_; }

  /// Nothing, on success.
  constexpr void value() const noexcept {
    if (!ok_) detail::bad_result_access("result::value() called on an error", error_.message.c_str());
  }
  constexpr void operator*() const noexcept { value(); }

  /// The error.
  constexpr const E& error() const noexcept {
    if (ok_) detail::bad_result_access("result::error() called on a success", "");
    return error_;
  }

 private:
  E error_{};
  bool ok_ = true;
};

/// An error value with a code and a message made of parts (string views and integers).
template <class... Parts>
constexpr error make_error(errc code, const Parts&... parts) noexcept {
  error e{code, {}};
  (
      [&] {
        if constexpr (std::is_integral_v<Parts> && !std::is_same_v<Parts, char> && !std::is_same_v<Parts, bool>)
          e.message.append_int(parts);
        else
          e.message.append(std::string_view(parts));
      }(),
      ...);
  return e;
}

}  // namespace static_attention
