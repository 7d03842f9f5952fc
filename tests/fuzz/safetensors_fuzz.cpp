// SPDX-License-Identifier: BSL-1.0
// libFuzzer target for load_safetensors: any input must give a loaded model or an error value,
// never a crash, UB or a leak (ASan and UBSan watch). Invariants checked on every input: a failure
// leaves the model bit for bit unchanged and has a message; a success writes every byte the same
// way from memory and from a file (the input written to one), and the two readers agree; the same
// input loads into a float and a double model alike (either both or neither, as the dtypes allow),
// in both key sets' models (tiny: the book's names; tiny_bias3: Hugging Face's qkv-biased GPT-2).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include <static_attention/io/safetensors.hpp>

namespace sa = static_attention;

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

template <class M>
bool same_bytes(const M& a, const M& b) {
  return std::memcmp(&a, &b, sizeof(M)) == 0;
}

// The input written to a file of this process's own, for the reader that takes a path.
const std::string& scratch_path() {
  static const std::string path = "/tmp/sa_safetensors_fuzz_" + std::to_string(::getpid()) + ".safetensors";
  return path;
}

template <class T, sa::gpt_config Cfg>
bool check_model(std::span<const std::byte> bytes, bool strict) {
  static auto* model = new sa::gpt_model<T, Cfg>();
  static auto* before = new sa::gpt_model<T, Cfg>();
  static auto* from_file = new sa::gpt_model<T, Cfg>();
  *before = *model;
  *from_file = *model;
  const auto r = sa::parse_safetensors(*model, bytes, {.strict = strict}, "fuzz");
  if (!r) require(same_bytes(*model, *before) && !r.error().message.empty() && !r.error().model_modified);
  std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
  require(f != nullptr);
  require(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
  const auto rf = sa::load_safetensors(*from_file, scratch_path(), {.strict = strict});
  require(rf.has_value() == r.has_value());
  if (r) require(same_bytes(*model, *from_file));
  if (!r) require(rf.error().code == r.error().code && rf.error().tensor == r.error().tensor);
  return r.has_value();
}

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(data), size};
  const bool strict = size % 2 == 0;
  const bool book = check_model<float, tiny>(bytes, strict);
  // A double model reads everything a float one does (and F64 besides).
  if (book) require(check_model<double, tiny>(bytes, strict));
  check_model<float, tiny_bias3>(bytes, strict);
  return 0;
}
