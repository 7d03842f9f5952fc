// Reading a whole file (or its first max_bytes + 1 bytes) into memory, with errors as values.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <static_attention/detail/npy_header.hpp>
#include <static_attention/detail/npy_result.hpp>

namespace static_attention::detail {

// The bytes of a file, and whether reading stopped at the limit with more bytes left.
struct npy_file_bytes {
  std::vector<std::byte> bytes;
  bool cut = false;
};

// Reads up to max_bytes + 1 bytes, so that a caller who knows the largest valid size can tell
// "too long" without reading a file of any size into memory.
inline npy_result<npy_file_bytes> read_file_bytes(const std::string& path, std::size_t max_bytes,
                                                  const npy_context& ctx) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return npy_fail(npy_errc::file_not_found, ctx, "found no such file");
    return npy_fail(npy_errc::file_unreadable, ctx,
                    std::string{"could not open the file: "} + (err != 0 ? std::strerror(err) : "unknown error"));
  }
  npy_file_bytes out;
  constexpr std::size_t chunk = 1 << 16;
  const std::size_t limit = max_bytes == static_cast<std::size_t>(-1) ? max_bytes : max_bytes + 1;
  bool failed = false;
  int err = 0;
  while (out.bytes.size() < limit) {
    const std::size_t old = out.bytes.size();
    const std::size_t want = limit - old < chunk ? limit - old : chunk;
    out.bytes.resize(old + want);
    errno = 0;
    const std::size_t got = std::fread(out.bytes.data() + old, 1, want, f);
    out.bytes.resize(old + got);
    if (got < want) {
      if (std::ferror(f)) {
        failed = true;
        err = errno;
      }
      break;
    }
  }
  std::fclose(f);
  if (failed)
    return npy_fail(npy_errc::file_unreadable, ctx,
                    std::string{"could not read the file: "} + (err != 0 ? std::strerror(err) : "I/O error"));
  out.cut = out.bytes.size() > max_bytes;
  return out;
}

}  // namespace static_attention::detail
