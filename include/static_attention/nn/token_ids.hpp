// SPDX-License-Identifier: BSL-1.0
// Token ids checked where they enter: check_ids() validates a sequence once, against a
// vocabulary size, and gives token_ids, which the models take without checking again ("parse,
// don't validate").
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <static_attention/core/result.hpp>

namespace static_attention {

/// An integer type for token ids (any integral type but bool).
template <class I>
concept token_id = std::integral<I> && !std::same_as<I, bool>;

namespace detail {
// Not constexpr: reaching it in constant evaluation stops the compiler, and the diagnostic names
// the vocabulary size (a template argument), the id and its position (call arguments).
template <std::size_t VocabSize>
void token_id_outside_vocabulary(long long /*id*/, std::size_t /*position*/) noexcept {}

template <std::size_t VocabSize, token_id I>
constexpr bool in_vocabulary(I id) noexcept {
  if constexpr (std::is_signed_v<I>)
    if (id < I{0}) return false;
  return static_cast<unsigned long long>(id) < VocabSize;
}

// The position of the first id outside [0, VocabSize), or count if there is none. In constant
// evaluation an id outside is a compile error naming it.
template <std::size_t VocabSize, token_id I>
constexpr std::size_t first_bad_id(const I* ids, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    if (!in_vocabulary<VocabSize>(ids[i])) {
      if (std::is_constant_evaluated()) token_id_outside_vocabulary<VocabSize>(static_cast<long long>(ids[i]), i);
      return i;
    }
  }
  return count;
}

// The tag of token_ids' constructor: only check_ids, having checked, makes one.
struct checked_ids_t {
  explicit checked_ids_t() = default;
};

// The error for ids[at]: "token id 5000 at position 2 is outside the vocabulary [0, 64)".
template <std::size_t VocabSize, token_id I>
constexpr error bad_id_error(const I* ids, std::size_t at) noexcept {
  return make_error(errc::id_out_of_range, "token id ", static_cast<long long>(ids[at]), " at position ", at,
                    " is outside the vocabulary [0, ", VocabSize, ")");
}

// R (a result) holding bad_id_error for ids[at], built in a frame of its own: a caller that
// checks its ids first (generate) keeps no error-sized temporary in its frame, which a decode
// loop's stack would carry throughout (nn/footprint.hpp).
template <class R, std::size_t VocabSize, token_id I>
[[gnu::noinline]] constexpr R refuse_bad_id(const I* ids, std::size_t at) noexcept {
  return bad_id_error<VocabSize>(ids, at);
}

// Success if every one of the count ids is in [0, VocabSize), or the first bad one's error.
template <std::size_t VocabSize, token_id I>
constexpr result<void> ids_in_vocabulary(const I* ids, std::size_t count) noexcept {
  if (const std::size_t bad = first_bad_id<VocabSize>(ids, count); bad < count)
    return bad_id_error<VocabSize>(ids, bad);
  return {};
}

// The check a model makes before it writes count ids into a cache of Capacity tokens that holds
// `held` already: every id in the vocabulary, and room for them all (nothing is written otherwise).
template <std::size_t VocabSize, std::size_t Capacity, token_id I>
constexpr result<void> admit_ids(std::string_view call, const I* ids, std::size_t count, std::size_t held) noexcept {
  if (auto known = ids_in_vocabulary<VocabSize>(ids, count); !known) return known;
  if (held + count > Capacity)
    return make_error(errc::capacity_exceeded, call, ": ", count, " tokens after the ", held,
                      " held exceed the workspace's capacity of ", Capacity, "; clear() it or use a larger one");
  return {};
}
}  // namespace detail

/// N ids, each known to be in [0, VocabSize): made only by check_ids, so a model that takes it
/// reads no embedding row out of range and needs no check of its own.
template <std::size_t VocabSize, std::size_t N, token_id I = std::int64_t>
class token_ids {
 public:
  /// The ids, in order.
  constexpr const std::array<I, N>& ids() const noexcept { return ids_; }
  constexpr I operator[](std::size_t i) const noexcept { return ids_[i]; }
  static constexpr std::size_t size() noexcept { return N; }
  static constexpr std::size_t vocab_size = VocabSize;

  /// Made by check_ids only: the tag is detail's.
  constexpr token_ids(detail::checked_ids_t, const std::array<I, N>& ids) noexcept : ids_(ids) {}

 private:
  std::array<I, N> ids_;
};

/// Validates ids against a vocabulary of VocabSize: token_ids, or errc::id_out_of_range naming
/// the first bad id and its position. In constant evaluation a bad id is a compile error.
template <std::size_t VocabSize, token_id I, std::size_t N>
constexpr result<token_ids<VocabSize, N, I>> check_ids(const std::array<I, N>& ids) noexcept {
  if (auto known = detail::ids_in_vocabulary<VocabSize>(ids.data(), N); !known) return known.error();
  return token_ids<VocabSize, N, I>(detail::checked_ids_t{}, ids);
}

/// The same check on ids whose count is known only at run time: success, or the first bad id.
template <std::size_t VocabSize, token_id I>
constexpr result<void> check_ids(std::span<const I> ids) noexcept {
  return detail::ids_in_vocabulary<VocabSize>(ids.data(), ids.size());
}

}  // namespace static_attention
