// SPDX-License-Identifier: BSL-1.0
// The byte-pair merge of one pre-token, as tiktoken's `byte_pair_merge`: start from single
// bytes, then repeatedly merge the adjacent pair whose concatenation has the lowest rank (the
// leftmost on a tie) until no pair is a token. A rank is a token id: GPT-2's merge i makes token
// 256 + i. Storage is a fixed array on the stack, sized by the caller's bound on the piece.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace static_attention::detail {

// No token: the rank of a pair that never merges.
inline constexpr std::uint16_t no_rank = 0xFFFFu;

// Merges `piece` (1 <= size <= Capacity bytes) and calls emit(id) for each resulting token, left
// to right. `rank(bytes)` is the id of a byte string, or no_rank. Returns false if a single byte
// has no id (a vocabulary without every byte), having emitted nothing.
template <std::size_t Capacity, class Rank, class Emit>
constexpr bool byte_pair_merge(std::string_view piece, const Rank& rank, Emit&& emit) {
  // parts: the start of each part, its id, and the rank of merging it with the next; the last
  // entry is a sentinel start.
  std::array<std::uint16_t, Capacity + 1> start{};
  std::array<std::uint16_t, Capacity + 1> id{};
  std::array<std::uint16_t, Capacity + 1> pair_rank{};
  const std::size_t n = piece.size();
  std::size_t parts = n + 1;  // entries in use, the sentinel included
  for (std::size_t i = 0; i <= n; ++i) start[i] = static_cast<std::uint16_t>(i);
  for (std::size_t i = 0; i < n; ++i)
    if ((id[i] = rank(piece.substr(i, 1))) == no_rank) return false;
  const auto rank_of = [&](std::size_t i, std::size_t k) {  // parts i .. i+k-1 as one token
    if (i + k >= parts) return no_rank;
    return rank(piece.substr(start[i], std::size_t{start[i + k]} - start[i]));
  };
  for (std::size_t i = 0; i < parts; ++i) pair_rank[i] = rank_of(i, 2);
  for (;;) {
    std::size_t best = 0;
    std::uint16_t best_rank = no_rank;
    for (std::size_t i = 0; i + 1 < parts; ++i) {
      if (pair_rank[i] < best_rank) {
        best_rank = pair_rank[i];
        best = i;
      }
    }
    if (best_rank == no_rank) break;
    id[best] = best_rank;  // the merged part is the token its rank names
    if (best > 0) pair_rank[best - 1] = rank_of(best - 1, 3);
    pair_rank[best] = rank_of(best, 3);
    for (std::size_t i = best + 1; i + 1 < parts; ++i) {
      start[i] = start[i + 1];
      id[i] = id[i + 1];
      pair_rank[i] = pair_rank[i + 1];
    }
    --parts;
  }
  for (std::size_t i = 0; i + 1 < parts; ++i) emit(id[i]);
  return true;
}

}  // namespace static_attention::detail
