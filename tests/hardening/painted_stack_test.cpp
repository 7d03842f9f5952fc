// SPDX-License-Identifier: BSL-1.0
// Run-time truth about the stack: the I/O functions run on a thread whose stack the test
// allocates and paints (1 MiB), for a 3 x 2 matrix and for a 2048 x 768 one (6 MiB); the depth
// each run reaches is measured from the paint that is left. A matrix copied on the stack would
// overflow the 1 MiB (the reviewer's segfault); beyond that, the depth must not grow with the
// matrix. The results live on the heap, where `new npy_result<M>(load_npy<M>(path))` builds them
// in place.
#include <pthread.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <static_attention/io/heatmap.hpp>
#include <static_attention/io/npy.hpp>

namespace sa = static_attention;

namespace {

constexpr std::size_t stack_size = std::size_t{1} << 20;
constexpr unsigned char paint = 0xa5;

// The bytes of the thread's stack that f touched (the stack grows down on every target this
// runs on; glibc also keeps the thread's descriptor and TLS at the top of a given stack, the same
// few KiB for every f).
template <class F>
std::size_t stack_depth(F f) {
  void* memory = std::aligned_alloc(4096, stack_size);
  REQUIRE(memory != nullptr);
  std::memset(memory, paint, stack_size);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  REQUIRE(pthread_attr_setstack(&attr, memory, stack_size) == 0);
  pthread_t thread;
  auto run = [](void* fp) -> void* {
    (*static_cast<F*>(fp))();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, run, &f) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  const auto* bytes = static_cast<const unsigned char*>(memory);
  std::size_t untouched = 0;
  while (untouched < stack_size && bytes[untouched] == paint) ++untouched;
  std::free(memory);
  return stack_size - untouched;
}

// Element k of the test's arrays: exact in float, different for neighbours.
float value_at(std::size_t k) { return static_cast<float>(k % 4099) * 0.25f - 512.0f; }

// A .npy image written by hand (version 1.0, '<f4', C order), independent of the reader.
std::vector<std::byte> npy_bytes(std::size_t rows, std::size_t cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  while ((header.size() + 11) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<std::byte> out;
  for (const int c : {0x93, int{'N'}, int{'U'}, int{'M'}, int{'P'}, int{'Y'}, 1, 0})
    out.push_back(static_cast<std::byte>(c));
  out.push_back(static_cast<std::byte>(header.size() & 0xffu));
  out.push_back(static_cast<std::byte>(header.size() >> 8));
  for (const char c : header) out.push_back(static_cast<std::byte>(c));
  for (std::size_t k = 0; k < rows * cols; ++k) {
    const auto bits = std::bit_cast<std::uint32_t>(value_at(k));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((bits >> (8 * i)) & 0xffu));
  }
  return out;
}

struct temp_npy {
  std::filesystem::path path;
  std::vector<std::byte> bytes;
  temp_npy(const char* stem, std::size_t rows, std::size_t cols)
      : path(std::filesystem::temp_directory_path() /
             (std::string{stem} + "." + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".npy")),
        bytes(npy_bytes(rows, cols)) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  temp_npy(const temp_npy&) = delete;
  temp_npy& operator=(const temp_npy&) = delete;
  ~temp_npy() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

template <class M>
bool holds_reference_values(const M& m) {
  for (std::size_t k = 0; k < M::size; ++k)
    if (std::bit_cast<std::uint32_t>(m.elems[k]) != std::bit_cast<std::uint32_t>(value_at(k))) return false;
  return true;
}

using small = sa::matrix<float, 3, 2>;
using huge = sa::matrix<float, 2048, 768>;

// Each I/O function on M, on the painted stack: the deepest of them.
template <class M>
std::size_t deepest_io(const temp_npy& file, bool& all_ok) {
  std::size_t deepest = 0;
  const auto measure = [&](auto f) {
    const std::size_t d = stack_depth(f);
    deepest = d > deepest ? d : deepest;
  };
  const std::string path = file.path.string();
  measure([&] {
    const std::unique_ptr<sa::npy_result<M>> r{new sa::npy_result<M>(sa::load_npy<M>(path))};
    all_ok = all_ok && r->has_value() && holds_reference_values(r->value());
  });
  measure([&] {
    const auto m = std::make_unique<M>();
    const auto r = sa::load_npy(path, *m);
    all_ok = all_ok && r.has_value() && holds_reference_values(*m);
  });
  measure([&] {
    const std::unique_ptr<sa::npy_result<M>> r{new sa::npy_result<M>(sa::parse_npy<M>(file.bytes, "bytes"))};
    all_ok = all_ok && r->has_value() && holds_reference_values(r->value());
  });
  measure([&] {
    const auto a = sa::load_npy_array(path);
    all_ok = all_ok && a.has_value() && a.value().f4.size() == M::size;
  });
  return deepest;
}

}  // namespace

TEST_CASE("the readers' stack depth does not grow with the matrix: 3 x 2 and 2048 x 768 on a 1 MiB stack") {
  const temp_npy small_file("painted_small", 3, 2);
  const temp_npy huge_file("painted_huge", 2048, 768);
  bool all_ok = true;
  const std::size_t small_depth = deepest_io<small>(small_file, all_ok);
  const std::size_t huge_depth = deepest_io<huge>(huge_file, all_ok);
  MESSAGE("stack depth of the readers: ", small_depth, " bytes for a 24-byte matrix, ", huge_depth,
          " bytes for a 6 MiB matrix");
  CHECK(all_ok);
  CHECK(huge_depth < stack_size / 4);
  CHECK(huge_depth <= small_depth + 1024);
}

TEST_CASE("the heatmaps' stack depth does not grow with the matrix") {
  const auto small_m = std::make_unique<sa::matrix<double, 4, 4>>(sa::full<double, 4, 4>(0.5));
  const auto big_m = std::make_unique<sa::matrix<double, 128, 128>>(sa::full<double, 128, 128>(0.25));
  std::vector<std::string> few(4, "tok"), many(128, "tok");
  bool ok = true;
  const auto depth_of = [&](const auto& m, const std::vector<std::string>& labels) {
    const std::size_t svg = stack_depth([&] {
      std::ostringstream os;
      ok = ok && sa::write_svg_heatmap(os, m, labels);
    });
    const std::size_t terminal = stack_depth([&] {
      std::ostringstream os;
      ok = ok && sa::render_terminal(os, m, labels, sa::terminal_colors::truecolor);
    });
    return svg > terminal ? svg : terminal;
  };
  const std::size_t small_depth = depth_of(*small_m, few);
  const std::size_t big_depth = depth_of(*big_m, many);
  MESSAGE("stack depth of the heatmaps: ", small_depth, " bytes for 4 x 4, ", big_depth, " bytes for 128 x 128");
  CHECK(ok);
  CHECK(big_depth <= small_depth + 1024);
}
