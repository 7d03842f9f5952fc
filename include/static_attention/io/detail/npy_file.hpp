// SPDX-License-Identifier: BSL-1.0
// Reading files piece by piece, with errors as values and every read bounded by the caller: the
// readers read a .npy header first and then only the data bytes that header promises (plus one,
// to tell trailing bytes), so an endless or huge input never makes them read without limit.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <static_attention/io/detail/npy_header.hpp>
#include <static_attention/io/detail/npy_result.hpp>

namespace static_attention::detail {

// An input file, closed on destruction.
class npy_input {
 public:
  npy_input(const npy_input&) = delete;
  npy_input& operator=(const npy_input&) = delete;
  npy_input(npy_input&& other) noexcept
      : file_(std::exchange(other.file_, nullptr)), regular_size_(other.regular_size_), at_(other.at_) {}
  npy_input& operator=(npy_input&& other) noexcept {
    std::swap(file_, other.file_);
    regular_size_ = other.regular_size_;
    at_ = other.at_;
    return *this;
  }
  ~npy_input() {
    if (file_ != nullptr) std::fclose(file_);
  }

  // Opens `path` for reading: file_not_found or file_unreadable otherwise. With `regular_only`,
  // anything but a regular file is refused before it is opened (opening a FIFO would wait for a
  // writer).
  static npy_result<npy_input> open(const std::string& path, const npy_context& ctx, bool regular_only = false) {
    if (regular_only) {
      std::error_code ec;
      const auto status = std::filesystem::status(path, ec);
      if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        return npy_fail(npy_errc::file_unreadable, ctx,
                        "found no regular file (a pipe, a device or a directory); an .npz archive is read from its "
                        "end, so it must be a regular file");
    }
    errno = 0;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      const int err = errno;
      if (err == ENOENT) return npy_fail(npy_errc::file_not_found, ctx, "found no such file");
      return npy_fail(npy_errc::file_unreadable, ctx,
                      std::string{"could not open the file: "} + (err != 0 ? std::strerror(err) : "unknown error"));
    }
    npy_input in{f};
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      const auto size = std::filesystem::file_size(path, ec);
      if (!ec) in.regular_size_ = static_cast<std::uint64_t>(size);
    }
    return in;
  }

  // The size of a regular file; nullopt for pipes, devices and the like, whose length is known
  // only by reading them to the end.
  std::optional<std::uint64_t> regular_size() const noexcept { return regular_size_; }

  // Appends to `bytes`, at the current position, until `bytes` holds `limit` bytes or the input
  // ends. Memory grows with what arrives, not with `limit`.
  std::optional<npy_error> read_up_to(std::vector<std::byte>& bytes, std::size_t limit, const npy_context& ctx) {
    if (bytes.size() >= limit) return std::nullopt;
    if (regular_size_ && *regular_size_ > at_) {  // reserve once what the file can still give
      const std::uint64_t left = *regular_size_ - at_;
      const std::size_t want = limit - bytes.size();
      bytes.reserve(bytes.size() + (left < want ? static_cast<std::size_t>(left) : want));
    }
    constexpr std::size_t chunk = std::size_t{1} << 16;
    while (bytes.size() < limit) {
      const std::size_t old = bytes.size();
      std::size_t want = limit - old < chunk ? limit - old : chunk;
      // A regular file holds what its size says (and one byte more tells that it grew): no
      // buffer beyond that, so a header that promises more than the file holds costs nothing.
      if (regular_size_ && *regular_size_ >= at_ && *regular_size_ - at_ < want)
        want = static_cast<std::size_t>(*regular_size_ - at_) + 1;
      bytes.resize(old + want);
      errno = 0;
      const std::size_t got = std::fread(bytes.data() + old, 1, want, file_);
      bytes.resize(old + got);
      at_ += got;
      if (got < want) {
        if (std::ferror(file_) != 0) return read_error(errno, ctx);
        break;
      }
    }
    return std::nullopt;
  }

  // Replaces `bytes` with the `len` bytes at `offset` of a regular file; the caller has checked
  // that they lie inside the file.
  std::optional<npy_error> read_at(std::uint64_t offset, std::size_t len, std::vector<std::byte>& bytes,
                                   const npy_context& ctx) {
    if (offset > static_cast<std::uint64_t>(std::numeric_limits<long>::max()) ||
        std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0)
      return npy_fail(npy_errc::file_unreadable, ctx, "could not seek to offset " + std::to_string(offset));
    at_ = offset;
    bytes.clear();
    if (auto e = read_up_to(bytes, len, ctx)) return e;
    if (bytes.size() < len)  // the file shrank since it was opened
      return npy_fail(npy_errc::file_unreadable, ctx,
                      "the file ended at offset " + std::to_string(offset + bytes.size()) + " while reading " +
                          std::to_string(len) + " bytes at offset " + std::to_string(offset));
    return std::nullopt;
  }

 private:
  explicit npy_input(std::FILE* f) noexcept : file_(f) {}

  static npy_error read_error(int err, const npy_context& ctx) {
    return npy_fail(npy_errc::file_unreadable, ctx,
                    std::string{"could not read the file: "} + (err != 0 ? std::strerror(err) : "I/O error"));
  }

  std::FILE* file_ = nullptr;
  std::optional<std::uint64_t> regular_size_;
  std::uint64_t at_ = 0;  // bytes read from the start, or the offset of the last seek plus those
};

// Reads the preamble and the header of a .npy input, and no data: at most 12 + npy_max_header_size
// bytes, fewer when the preamble already shows the input is no .npy file (parse_npy_header then
// says why, from these bytes alone, exactly as it would from the whole input).
inline std::optional<npy_error> npy_read_head(npy_input& in, std::vector<std::byte>& bytes, const npy_context& ctx) {
  const std::size_t magic_len = std::size(npy_magic);
  if (auto e = in.read_up_to(bytes, magic_len + 2, ctx)) return e;
  if (bytes.size() < magic_len + 2) return std::nullopt;
  for (std::size_t i = 0; i < magic_len; ++i)
    if (std::to_integer<unsigned>(bytes[i]) != npy_magic[i]) return std::nullopt;
  const int major = std::to_integer<int>(bytes[magic_len]);
  if (major < 1 || major > 3) return std::nullopt;
  const std::size_t preamble = magic_len + 2 + (major == 1 ? 2 : 4);
  if (auto e = in.read_up_to(bytes, preamble, ctx)) return e;
  if (bytes.size() < preamble) return std::nullopt;
  const std::size_t header_len = npy_read_le(bytes, magic_len + 2, preamble - magic_len - 2);
  if (header_len > npy_max_header_size) return std::nullopt;
  return in.read_up_to(bytes, preamble + header_len, ctx);
}

}  // namespace static_attention::detail
