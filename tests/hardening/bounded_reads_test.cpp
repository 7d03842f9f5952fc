// SPDX-License-Identifier: BSL-1.0
// Run-time truth about the readers' memory on hostile inputs: /dev/zero, a FIFO that never ends,
// sparse files of 3 GiB and headers that promise terabytes. Each gives an error value (or, for
// a valid archive behind a 3 GiB hole, the value), and the heap peak while reading, counted by a
// replaced global operator new, stays far below the input's size: the readers read the header
// first and then only what it promises. (Before issue #17, load_npy_array and load_npz read whole
// files, and ran out of memory on /dev/zero.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/npy.hpp>

// --- a heap that counts its peak ----------------------------------------------------------
namespace {
std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};
constexpr std::size_t prefix = 64;  // room for the size, aligned for any new-extended alignment up to 64

void* tracked(std::size_t size, std::size_t align) {
  if (align > prefix) return nullptr;
  auto* base = static_cast<unsigned char*>(std::aligned_alloc(prefix, (size + 2 * prefix - 1) / prefix * prefix));
  if (base == nullptr) return nullptr;
  *reinterpret_cast<std::size_t*>(base) = size;
  const std::size_t now = live_bytes += size;
  for (std::size_t seen = peak_bytes.load(); now > seen && !peak_bytes.compare_exchange_weak(seen, now);) {
  }
  return base + prefix;
}
void* tracked_or_throw(std::size_t size, std::size_t align) {
  void* p = tracked(size, align);
  if (p == nullptr) throw std::bad_alloc{};
  return p;
}
void release(void* p) noexcept {
  if (p == nullptr) return;
  auto* base = static_cast<unsigned char*>(p) - prefix;
  live_bytes -= *reinterpret_cast<std::size_t*>(base);
  std::free(base);
}
}  // namespace

void* operator new(std::size_t n) { return tracked_or_throw(n, 0); }
void* operator new[](std::size_t n) { return tracked_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return tracked_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return tracked_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return tracked(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return tracked(n, 0); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }

namespace {

namespace sa = static_attention;
using errc = sa::npy_errc;

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

// The heap peak above what was live when f started.
template <class F>
std::size_t heap_peak(F f) {
  const std::size_t before = live_bytes.load();
  peak_bytes = before;
  f();
  return peak_bytes.load() - before;
}

template <class R>
void check_error(const R& r, errc code, std::string_view part) {
  REQUIRE_FALSE(r.has_value());
  INFO(r.error().message);
  CHECK(sa::to_string_view(r.error().code) == sa::to_string_view(code));
  CHECK(r.error().message.find(part) != std::string::npos);
}

std::filesystem::path temp_path(const char* stem) {
  static int serial = 0;
  return std::filesystem::temp_directory_path() /
         (std::string{stem} + "." + std::to_string(::getpid()) + "." + std::to_string(++serial));
}

struct removed_on_exit {
  std::filesystem::path path;
  ~removed_on_exit() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

void put_le(std::vector<std::byte>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
}

// The preamble and header numpy writes for `descr` and `shape` (version 1.0).
std::vector<std::byte> npy_head(std::string_view descr, std::string_view shape) {
  std::string header =
      "{'descr': '" + std::string{descr} + "', 'fortran_order': False, 'shape': " + std::string{shape} + ", }";
  while ((header.size() + 11) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<std::byte> out;
  for (const int c : {0x93, int{'N'}, int{'U'}, int{'M'}, int{'P'}, int{'Y'}, 1, 0})
    out.push_back(static_cast<std::byte>(c));
  put_le(out, header.size(), 2);
  for (const char c : header) out.push_back(static_cast<std::byte>(c));
  return out;
}

void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// CRC-32 as ZIP defines it, bit by bit: the test's own reference, not the library's table.
std::uint32_t crc32(const std::vector<std::byte>& data) {
  std::uint32_t c = 0xffffffffu;
  for (const std::byte b : data) {
    c ^= std::to_integer<std::uint32_t>(b);
    for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? (c >> 1) ^ 0xedb88320u : c >> 1;
  }
  return ~c;
}

}  // namespace

TEST_CASE("/dev/zero: every reader stops after the preamble with bad_magic, or refuses a non-regular archive") {
  if (!std::filesystem::exists("/dev/zero")) return;
  using huge = sa::matrix<float, 2048, 768>;
  const std::size_t any = heap_peak([] { check_error(sa::load_npy_array("/dev/zero"), errc::bad_magic, "0x00"); });
  const std::size_t typed =
      heap_peak([] { check_error(sa::load_npy<huge>("/dev/zero"), errc::bad_magic, "not a .npy file"); });
  const std::size_t npz = heap_peak(
      [] { check_error(sa::load_npz<huge>("/dev/zero", "w"), errc::file_unreadable, "must be a regular file"); });
  MESSAGE("heap peaks on /dev/zero: load_npy_array ", any, " B, load_npy ", typed, " B, load_npz ", npz, " B");
  CHECK(any < 64 * 1024);
  CHECK(typed < 64 * 1024);
  CHECK(npz < 64 * 1024);
}

TEST_CASE("a sparse 3 GiB file with a header for 10 floats: trailing bytes, read no further") {
  const removed_on_exit file{temp_path("sparse3g.npy")};
  auto bytes = npy_head("<f4", "(10,)");
  bytes.resize(bytes.size() + 40);
  write_file(file.path, bytes);
  std::filesystem::resize_file(file.path, 3 * gib);
  const std::size_t any = heap_peak([&] {
    check_error(sa::load_npy_array(file.path.string()), errc::trailing_bytes, "found at least 1 bytes after the 40");
  });
  const std::size_t typed = heap_peak([&] {
    check_error(sa::load_npy<sa::matrix<float, 1, 10>>(file.path.string()), errc::trailing_bytes, "at least 1 bytes");
  });
  MESSAGE("heap peaks on a 3 GiB file: load_npy_array ", any, " B, load_npy ", typed, " B");
  CHECK(any < 256 * 1024);
  CHECK(typed < 256 * 1024);
}

TEST_CASE("headers that promise more than exists or than the limit: no allocation for the promise") {
  const removed_on_exit file{temp_path("promise.npy")};
  auto terabytes = npy_head("<f8", "(1099511627776,)");  // 8 TiB of doubles
  terabytes.resize(terabytes.size() + 16);
  write_file(file.path, terabytes);
  std::size_t peak = heap_peak(
      [&] { check_error(sa::load_npy_array(file.path.string()), errc::too_large, "more than the limit of"); });
  CHECK(peak < 64 * 1024);
  check_error(sa::parse_npy_array(terabytes), errc::too_large, "(1099511627776,)");

  auto four_mib = npy_head("<f4", "(1048576,)");  // 4 MiB promised, 16 bytes there
  four_mib.resize(four_mib.size() + 16);
  write_file(file.path, four_mib);
  peak = heap_peak(
      [&] { check_error(sa::load_npy_array(file.path.string()), errc::truncated_data, "found 16 of the 4194304"); });
  MESSAGE("heap peak for a file that promises 4 MiB and holds 16 bytes: ", peak, " B");
  CHECK(peak < 64 * 1024);
  // A lower limit of the caller's own.
  check_error(sa::load_npy_array(file.path.string(), 1024), errc::too_large, "limit of 1024 data bytes");
}

TEST_CASE("a FIFO that never ends: the data the header promises, one byte more, then trailing_bytes") {
  const removed_on_exit fifo{temp_path("endless.fifo")};
  REQUIRE(::mkfifo(fifo.path.c_str(), 0600) == 0);
  std::signal(SIGPIPE, SIG_IGN);
  const auto head = npy_head("<f4", "(1048576,)");  // 4 MiB, then zeros forever
  std::thread writer([&] {
    const int fd = ::open(fifo.path.c_str(), O_WRONLY);
    if (fd < 0) return;
    const std::vector<char> zeros(1 << 16, 0);
    bool open = ::write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size());
    while (open) open = ::write(fd, zeros.data(), zeros.size()) > 0;  // until the reader hangs up
    ::close(fd);
  });
  const std::size_t peak = heap_peak([&] {
    check_error(sa::load_npy_array(fifo.path.string()), errc::trailing_bytes,
                "found at least 1 bytes after the 4194304 data bytes");
  });
  // Let a writer still waiting for a reader go, if the reader never opened.
  const int fd = ::open(fifo.path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  writer.join();
  MESSAGE("heap peak on an endless FIFO promising 4 MiB: ", peak, " B");
  CHECK(peak < 16 * 1024 * 1024);
  check_error(sa::load_npz<sa::matrix<float, 2, 3>>(fifo.path.string(), "w"), errc::file_unreadable,
              "must be a regular file");
}

TEST_CASE("an .npz archive with a 3 GiB hole before its central directory: only the entry is read") {
  const removed_on_exit file{temp_path("hole.npz")};
  // The entry: a 2 x 3 float matrix of 0.5 * k.
  auto npy = npy_head("<f4", "(2, 3)");
  for (int k = 0; k < 6; ++k) put_le(npy, std::bit_cast<std::uint32_t>(0.5f * static_cast<float>(k)), 4);
  const std::string name = "w.npy";
  const std::uint32_t crc = crc32(npy);
  std::vector<std::byte> local;
  put_le(local, 0x04034b50, 4);
  put_le(local, 20, 2);  // version needed
  put_le(local, 0, 2);   // flags
  put_le(local, 0, 2);   // stored
  put_le(local, 0, 4);   // time, date
  put_le(local, crc, 4);
  put_le(local, npy.size(), 4);
  put_le(local, npy.size(), 4);
  put_le(local, name.size(), 2);
  put_le(local, 0, 2);
  for (const char c : name) local.push_back(static_cast<std::byte>(c));
  local.insert(local.end(), npy.begin(), npy.end());
  const std::uint64_t cd_offset = 3 * gib;
  std::vector<std::byte> tail;
  put_le(tail, 0x02014b50, 4);
  put_le(tail, 20, 2);  // made by
  put_le(tail, 20, 2);  // needed
  put_le(tail, 0, 2);
  put_le(tail, 0, 2);
  put_le(tail, 0, 4);
  put_le(tail, crc, 4);
  put_le(tail, npy.size(), 4);
  put_le(tail, npy.size(), 4);
  put_le(tail, name.size(), 2);
  put_le(tail, 0, 2);  // extra
  put_le(tail, 0, 2);  // comment
  put_le(tail, 0, 2);  // disk
  put_le(tail, 0, 2);  // internal attributes
  put_le(tail, 0, 4);  // external attributes
  put_le(tail, 0, 4);  // local header offset
  for (const char c : name) tail.push_back(static_cast<std::byte>(c));
  const std::uint64_t cd_size = tail.size();
  put_le(tail, 0x06054b50, 4);
  put_le(tail, 0, 2);
  put_le(tail, 0, 2);
  put_le(tail, 1, 2);
  put_le(tail, 1, 2);
  put_le(tail, cd_size, 4);
  put_le(tail, cd_offset, 4);
  put_le(tail, 0, 2);
  write_file(file.path, local);
  std::filesystem::resize_file(file.path, cd_offset);
  {
    std::ofstream out(file.path, std::ios::binary | std::ios::app);
    out.write(reinterpret_cast<const char*>(tail.data()), static_cast<std::streamsize>(tail.size()));
  }
  REQUIRE(std::filesystem::file_size(file.path) == cd_offset + tail.size());
  bool loaded = false;
  const std::size_t peak = heap_peak([&] {
    const auto m = sa::load_npz<sa::matrix<float, 2, 3>>(file.path.string(), "w");
    REQUIRE(m.has_value());
    loaded = m.value() == sa::matrix<float, 2, 3>{{0.0f, 0.5f, 1.0f}, {1.5f, 2.0f, 2.5f}};
  });
  CHECK(loaded);
  MESSAGE("heap peak reading one entry of a 3 GiB archive: ", peak, " B");
  CHECK(peak < 256 * 1024);
}
