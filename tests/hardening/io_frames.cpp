// SPDX-License-Identifier: BSL-1.0
// Type-level truth about the stack: the public I/O functions instantiated for a small matrix and
// for matrices and tensors of several MiB, compiled with -fstack-usage. check_stack_usage.cmake
// then bounds every frame, so a matrix copied on the stack (as parse_npy_as did on GCC, 262,832
// bytes for a 256 KiB matrix) fails the test. An object library: compiling it is what matters.
#include <array>
#include <filesystem>
#include <ostream>
#include <span>
#include <string_view>

#include <static_attention/io/heatmap.hpp>
#include <static_attention/io/npy.hpp>
#include <static_attention/io/safetensors.hpp>
#include <static_attention/io/state_dict.hpp>

namespace sa = static_attention;

using small = sa::matrix<float, 3, 2>;
using huge = sa::matrix<float, 2048, 768>;           // 6 MiB
using huge_batch = sa::tensor<double, 4, 256, 256>;  // 2 MiB
using square = sa::matrix<double, 256, 256>;         // 512 KiB

#define SA_IO_FRAMES(M)                                                                                        \
  template sa::npy_result<M> sa::load_npy<M>(std::string_view);                                                \
  template sa::npy_result<void> sa::load_npy<M>(std::string_view, M&);                                         \
  template sa::npy_result<M> sa::parse_npy<M>(std::span<const std::byte>, std::string_view);                   \
  template sa::npy_result<void> sa::parse_npy<M>(std::span<const std::byte>, M&, std::string_view);            \
  template sa::npy_result<M> sa::load_npz<M>(std::string_view, std::string_view);                              \
  template sa::npy_result<void> sa::load_npz<M>(std::string_view, std::string_view, M&);                       \
  template sa::npy_result<M> sa::parse_npz<M>(std::span<const std::byte>, std::string_view, std::string_view); \
  template sa::npy_result<void> sa::parse_npz<M>(std::span<const std::byte>, std::string_view, M&, std::string_view);

SA_IO_FRAMES(small)
SA_IO_FRAMES(huge)
SA_IO_FRAMES(huge_batch)
SA_IO_FRAMES(square)

using labels = std::array<std::string_view, 256>;
template bool sa::write_svg_heatmap<double, 256, 256, labels, labels>(std::ostream&, const square&, const labels&,
                                                                      const labels&, const sa::svg_heatmap_options&);
template bool sa::render_terminal<double, 256, 256, labels, labels>(std::ostream&, const square&, const labels&,
                                                                    const labels&, const sa::terminal_heatmap_options&);
template bool sa::write_svg_heatmap<double, 256>(std::ostream&, const square&, std::initializer_list<std::string_view>,
                                                 const sa::svg_heatmap_options&);
template bool sa::render_terminal<double, 256>(std::ostream&, const square&, std::initializer_list<std::string_view>,
                                               sa::terminal_colors);

// The run-time-shaped readers, for completeness.
sa::npy_result<sa::npy_array> load_any(std::string_view path) { return sa::load_npy_array(path); }
sa::npy_result<sa::npy_array> parse_any(std::span<const std::byte> bytes) { return sa::parse_npy_array(bytes); }

// The model loaders, for a tiny GPT and for one whose tensors are MiBs (GPT-2's vocabulary and
// context): their frames must not grow with the model.
inline constexpr sa::gpt_config tiny_gpt{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config wide_gpt{50257, 1024, 64, 1, 1, true};
#define SA_LOADER_FRAMES(T, CFG)                                                                                    \
  template sa::state_dict_result sa::load_state_dict<T, CFG>(sa::gpt_model<T, CFG>&, const std::filesystem::path&,  \
                                                             const sa::load_options&);                              \
  template sa::state_dict_result sa::load_safetensors<T, CFG>(sa::gpt_model<T, CFG>&, const std::filesystem::path&, \
                                                              const sa::load_options&);                             \
  template sa::state_dict_result sa::parse_safetensors<T, CFG>(sa::gpt_model<T, CFG>&, std::span<const std::byte>,  \
                                                               const sa::load_options&, std::string_view);
SA_LOADER_FRAMES(float, tiny_gpt)
SA_LOADER_FRAMES(float, wide_gpt)
SA_LOADER_FRAMES(double, wide_gpt)
