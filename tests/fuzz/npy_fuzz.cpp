// SPDX-License-Identifier: BSL-1.0
// libFuzzer target for the .npy and .npz readers: any input must give a value or an error, never
// a crash, UB or a leak (ASan and UBSan watch), and the readers must agree with each other.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include <static_attention/io/npy.hpp>

namespace sa = static_attention;

namespace {

// A result that contradicts another is a bug as much as a crash: stop so the fuzzer keeps the input.
void require(bool ok) {
  if (!ok) __builtin_trap();
}

// The fixed-shape reader and the run-time-shaped one must agree: same success, same bits.
template <class M>
void check_typed(std::span<const std::byte> bytes, const sa::npy_result<sa::npy_array>& any) {
  const auto typed = sa::parse_npy<M>(bytes, "fuzz");
  require(typed.has_value() || !typed.error().message.empty());
  if (!typed) return;
  require(any.has_value());
  const auto& a = any.value();
  using T = sa::value_type_t<M>;
  require(a.dtype == (sizeof(T) == 4 ? sa::npy_dtype::f4 : sa::npy_dtype::f8));
  for (std::size_t k = 0; k < M::size; ++k) {
    if constexpr (sizeof(T) == 4)
      require(std::bit_cast<std::uint32_t>(typed.value().elems[k]) == std::bit_cast<std::uint32_t>(a.f4[k]));
    else
      require(std::bit_cast<std::uint64_t>(typed.value().elems[k]) == std::bit_cast<std::uint64_t>(a.f8[k]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(data), size};
  const auto any = sa::parse_npy_array(bytes, "fuzz");
  if (any) {
    // Success means the data are exactly what the header describes.
    std::size_t count = 1;
    for (const std::size_t d : any.value().header.shape) count *= d;
    const std::size_t width = any.value().dtype == sa::npy_dtype::f4 ? 4 : 8;
    require(any.value().header.data_offset + count * width == size);
    require((any.value().dtype == sa::npy_dtype::f4 ? any.value().f4.size() : any.value().f8.size()) == count);
  } else {
    require(!any.error().message.empty());
  }
  check_typed<sa::matrix<float, 3, 2>>(bytes, any);
  check_typed<sa::matrix<double, 2, 3>>(bytes, any);
  check_typed<sa::matrix<float, 1, 6>>(bytes, any);
  check_typed<sa::matrix<float, 2, 3>>(bytes, any);
  check_typed<sa::tensor<float, 2, 3, 4>>(bytes, any);

  // The same input as an archive, under the names the seed archive uses.
  for (const char* entry : {"W_query", "bias"}) {
    const auto m = sa::parse_npz<sa::matrix<float, 2, 3>>(bytes, entry, "fuzz.npz");
    require(m.has_value() || !m.error().message.empty());
    const auto b = sa::parse_npz<sa::matrix<float, 1, 3>>(bytes, entry, "fuzz.npz");
    require(b.has_value() || !b.error().message.empty());
  }
  return 0;
}
