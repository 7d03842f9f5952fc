// SPDX-License-Identifier: BSL-1.0
// Helpers of the safetensors tests: fixtures, files built from a header text, temporary files,
// models filled as torch would, and the two ways of loading (a file and memory), which must agree.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include <static_attention/core/random.hpp>
#include <static_attention/io/safetensors.hpp>
#include <static_attention/nn/gpt.hpp>

namespace st_test {

namespace sa = static_attention;

/// The book's tiny configurations (tools/export_gpt_weights.py --config tiny, tiny_bias3).
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};

inline std::string fixture(std::string_view name) {
  return std::string{SA_SAFETENSORS_FIXTURES_DIR} + "/" + std::string{name};
}

inline std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

/// A file of the test's own, removed when it goes out of scope.
struct temp_file {
  std::filesystem::path path;
  temp_file(std::string_view name, const std::vector<std::byte>& bytes)
      : path(std::filesystem::temp_directory_path() /
             ("sa_safetensors_" + std::to_string(::getpid()) + "_" + std::string{name})) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

inline void put_le(std::vector<std::byte>& out, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
}

/// A safetensors file: the header length (the header's own unless `length` says otherwise), the
/// header text, then `data` (or `data_size` zero bytes).
inline std::vector<std::byte> file_of(std::string_view header, std::vector<std::byte> data,
                                      std::uint64_t length = ~std::uint64_t{0}) {
  std::vector<std::byte> out;
  put_le(out, length == ~std::uint64_t{0} ? header.size() : length, 8);
  for (const char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}
inline std::vector<std::byte> file_of(std::string_view header, std::size_t data_size) {
  return file_of(header, std::vector<std::byte>(data_size));
}

/// A fixture split into its header text and data.
struct parts {
  std::string header;
  std::vector<std::byte> data;
};
inline parts split(const std::vector<std::byte>& bytes) {
  std::uint64_t n = 0;
  for (int i = 8; i-- > 0;) n = (n << 8) | std::to_integer<std::uint64_t>(bytes[static_cast<std::size_t>(i)]);
  parts p;
  for (std::size_t i = 0; i < n; ++i) p.header += static_cast<char>(bytes[8 + i]);
  p.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(8 + n), bytes.end());
  return p;
}

/// The fixture `name` with its header text edited: each `from` replaced by its `to` (all must be found).
inline std::vector<std::byte> edited(std::string_view name,
                                     std::initializer_list<std::pair<std::string_view, std::string_view>> edits) {
  parts p = split(read_bytes(fixture(name)));
  for (const auto& [from, to] : edits) {
    const std::size_t at = p.header.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, "not in the header: ", std::string{from});
    p.header.replace(at, from.size(), to);
  }
  return file_of(p.header, p.data);
}

/// A model on the heap, filled as torch.manual_seed(seed); GPTModel(cfg) would be.
template <class T, sa::gpt_config Cfg>
std::unique_ptr<sa::gpt_model<T, Cfg>> torch_model(std::uint64_t seed) {
  auto model = std::make_unique<sa::gpt_model<T, Cfg>>();
  sa::torch_generator gen{seed};
  sa::init_like_torch(*model, gen);
  return model;
}

/// The object representation: "unchanged" means these bytes are.
template <class M>
std::vector<std::byte> bytes_of(const M& m) {
  const auto* p = reinterpret_cast<const std::byte*>(&m);
  return {p, p + sizeof(M)};
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// The largest |got - expected| over a logits matrix and a reference array of the same size.
template <class M, std::size_t N>
double max_abs_diff(const M& got, const double (&expected)[N]) {
  static_assert(M::size == N);
  double worst = 0;
  for (std::size_t k = 0; k < N; ++k)
    worst = std::fmax(worst, std::fabs(static_cast<double>(got.elems[k]) - expected[k]));
  return worst;
}

/// Loads `bytes` from memory and from a file: both must give the same outcome, and a failure
/// must leave the model unchanged. Returns the in-memory result.
template <class T, sa::gpt_config Cfg>
sa::state_dict_result load_both(sa::gpt_model<T, Cfg>& model, const std::vector<std::byte>& bytes,
                                const sa::load_options& options = {}) {
  const auto before = bytes_of(model);
  auto from_memory = sa::parse_safetensors(model, std::span<const std::byte>{bytes}, options, "m.safetensors");
  if (!from_memory) CHECK(bytes_of(model) == before);
  const temp_file file("load_both.safetensors", bytes);
  auto copy = std::make_unique<sa::gpt_model<T, Cfg>>(model);
  const auto copy_before = bytes_of(*copy);
  const auto from_file = sa::load_safetensors(*copy, file.path, options);
  CHECK(from_file.has_value() == from_memory.has_value());
  if (from_file && from_memory) CHECK(bytes_of(*copy) == bytes_of(model));
  if (!from_file) CHECK(bytes_of(*copy) == copy_before);
  if (!from_file && !from_memory) {
    CHECK(from_file.error().code == from_memory.error().code);
    CHECK(from_file.error().tensor == from_memory.error().tensor);
    CHECK(contains(from_file.error().message, file.path.filename().string()));  // a long path is shortened
    CHECK_FALSE(from_file.error().model_modified);
  }
  return from_memory;
}

/// `bytes` are refused with `code`, naming `tensor` (the key, or empty) and containing `part`;
/// the model (a tiny one, filled beforehand) keeps every bit.
template <sa::gpt_config Cfg = tiny>
void check_refused(const std::vector<std::byte>& bytes, sa::errc code, std::string_view tensor, std::string_view part,
                   const sa::load_options& options = {}) {
  auto model = torch_model<float, Cfg>(7);
  const auto r = load_both(*model, bytes, options);
  REQUIRE_FALSE(r.has_value());
  INFO(r.error().message);
  CHECK(sa::to_string_view(r.error().code) == sa::to_string_view(code));
  CHECK(r.error().tensor == tensor);
  if (!tensor.empty()) CHECK(contains(r.error().message, "'" + std::string{tensor} + "'"));
  CHECK(contains(r.error().message, part));
  CHECK(contains(r.error().message, "m.safetensors"));
  CHECK_FALSE(r.error().model_modified);
}

}  // namespace st_test
