// SPDX-License-Identifier: BSL-1.0
// libFuzzer target for the readers that take a path, and for the weight embedder's input path:
// each input is written to a file, then
//  - load_npy_array (the embedder's reader), load_npy and load_npz must agree with the in-memory
//    parsers on the same bytes: the same success, the same error code, the same bits;
//  - the embedder's own steps (tools/embed_weights.cpp, built as a library) load the file and
//    write a header in namespaces with a component named static_attention and std, whose every
//    use of the library and of the standard library must be fully qualified (issue #17);
//  - the embedder's namespace check, on the input's first bytes as text, accepts only paths of
//    identifiers that the header can open.
// Any crash, sanitizer report or broken invariant stops the fuzzer with the input.
#include <unistd.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#define SA_EMBED_WEIGHTS_NO_MAIN
#include "embed_weights.cpp"  // tools/: the embedder's steps, without its main

namespace sa = static_attention;

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

// The file every input goes through; its stem is a valid variable name for the embedder.
const std::string& input_path() {
  static const std::string path = "/tmp/sa_npy_file_fuzz_" + std::to_string(::getpid()) + ".npy";
  return path;
}

bool write_input(std::span<const std::byte> bytes) {
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

template <class R>
void same_outcome(const R& from_file, const R& from_memory) {
  require(from_file.has_value() == from_memory.has_value());
  if (!from_file) require(from_file.error().code == from_memory.error().code && !from_file.error().message.empty());
}

template <class M>
bool same_bits(const M& a, const M& b) {
  using bits = std::conditional_t<sizeof(sa::value_type_t<M>) == 4, std::uint32_t, std::uint64_t>;
  for (std::size_t k = 0; k < M::size; ++k)
    if (std::bit_cast<bits>(a.elems[k]) != std::bit_cast<bits>(b.elems[k])) return false;
  return true;
}

template <class M>
void check_typed(std::span<const std::byte> bytes) {
  const auto from_file = sa::load_npy<M>(input_path());
  const auto from_memory = sa::parse_npy<M>(bytes, input_path());
  same_outcome(from_file, from_memory);
  if (from_file) require(same_bits(from_file.value(), from_memory.value()));
  // Into a matrix of the caller's: the same bits on success, untouched otherwise.
  M into{};
  const auto r = sa::load_npy(input_path(), into);
  require(r.has_value() == from_file.has_value());
  require(same_bits(into, r ? from_file.value() : M{}));
}

template <class M>
void check_npz(std::span<const std::byte> bytes, std::string_view entry) {
  const auto from_file = sa::load_npz<M>(input_path(), entry);
  const auto from_memory = sa::parse_npz<M>(bytes, entry, input_path());
  same_outcome(from_file, from_memory);
  if (from_file) require(same_bits(from_file.value(), from_memory.value()));
}

// "::static_attention::" and "::std::" everywhere the header names them: never a bare
// "static_attention::" or "std::", which a namespace of the same name would capture.
void require_qualified(const std::string& text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool is_use = text.compare(at + name.size(), 2, "::") == 0;
    const bool qualified = at >= 2 && text.compare(at - 2, 2, "::") == 0;
    const bool own_namespace = at >= 6 && text.compare(at - 6, 6, "fuzz::") == 0;
    if (is_use && !own_namespace) require(qualified);
  }
}

// An independent reading of what the embedder's namespace check must accept.
bool plausible_namespace(std::string_view ns) {
  if (ns.empty() || ns.find(":::") != std::string_view::npos) return false;
  for (std::size_t start = 0;;) {
    const std::size_t end = ns.find("::", start);
    const std::string_view part = ns.substr(start, end == std::string_view::npos ? ns.size() - start : end - start);
    if (part.empty() || (part[0] >= '0' && part[0] <= '9')) return false;
    for (const char c : part)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    if (start == 0 && (part == "std" || part == "posix" || part[0] == '_')) return false;
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(data), size};
  if (!write_input(bytes)) return 0;

  const auto any = sa::load_npy_array(input_path());
  const auto any_memory = sa::parse_npy_array(bytes, input_path());
  same_outcome(any, any_memory);
  if (any) {
    const auto& a = any.value();
    const auto& b = any_memory.value();
    require(a.header.shape == b.header.shape && a.dtype == b.dtype && a.f4.size() == b.f4.size() &&
            a.f8.size() == b.f8.size());
    for (std::size_t k = 0; k < a.f4.size(); ++k)
      require(std::bit_cast<std::uint32_t>(a.f4[k]) == std::bit_cast<std::uint32_t>(b.f4[k]));
    for (std::size_t k = 0; k < a.f8.size(); ++k)
      require(std::bit_cast<std::uint64_t>(a.f8[k]) == std::bit_cast<std::uint64_t>(b.f8[k]));
    // Zero-element shapes have no elements, whatever the other dimensions.
    bool zero = false;
    for (const std::size_t d : a.header.shape) zero = zero || d == 0;
    if (zero) require(a.f4.empty() && a.f8.empty());
  }
  check_typed<sa::matrix<float, 3, 2>>(bytes);
  check_typed<sa::matrix<double, 2, 3>>(bytes);
  check_typed<sa::matrix<float, 1, 6>>(bytes);
  check_typed<sa::tensor<float, 2, 3, 4>>(bytes);
  for (const char* entry : {"W_query", "bias"}) {
    check_npz<sa::matrix<float, 2, 3>>(bytes, entry);
    check_npz<sa::matrix<float, 1, 3>>(bytes, entry);
  }

  // The embedder's input path, and the header it writes.
  embed_weights::weight w;
  const std::string problem = embed_weights::load_weight(input_path(), w);
  require(problem.empty() ==
          (any.has_value() && !any.value().header.shape.empty() && any.value().header.shape.size() <= 3 &&
           (any.value().f4.size() + any.value().f8.size()) > 0));
  if (problem.empty()) {
    for (const char* ns : {"fuzz::static_attention", "fuzz::std"}) {
      require(embed_weights::namespace_problem(ns).empty());
      const std::string text = embed_weights::header_text(ns, {w});
      require(text.find("namespace " + std::string{ns} + " {") != std::string::npos);
      require(text.find(" " + w.name + "{") != std::string::npos ||
              text.find(" " + w.name + " = ") != std::string::npos);
      require_qualified(text, "static_attention");
      require_qualified(text, "std");
    }
  }
  const std::string_view text{reinterpret_cast<const char*>(data), size < 40 ? size : 40};
  if (embed_weights::namespace_problem(text).empty()) require(plausible_namespace(text));
  return 0;
}
