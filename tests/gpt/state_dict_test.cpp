// SPDX-License-Identifier: BSL-1.0
// Run-time truth: load_state_dict reads the .npz archives tools/export_state_dict.py writes of the
// book's GPTModel (tests/gpt/fixtures/), giving torch's logits (1e-6) and torch's generated ids
// (exactly); every archive that does not fit the model is an error naming the tensor, and leaves
// the model bit for bit unchanged, including damage found only in the last tensor's data. Archives
// this file writes itself (np.savez's format, from a model) check the round trip, the optional
// causal masks, and a model whose tensors are larger than the stack.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>
#include <boost/hana/for_each.hpp>

#include <static_attention/core/random.hpp>
#include <static_attention/io/state_dict.hpp>
#include <static_attention/nn/gpt.hpp>

#include "gpt_test_support.hpp"
#include "tiny_state_dict_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt_state_dict;
using errc = sa::state_dict_errc;
using test_support::to_matrix;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};
inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

std::string fixture(std::string_view name) { return std::string{SA_GPT_FIXTURES_DIR} + "/" + std::string{name}; }

// A file of this test's own, removed when it goes out of scope.
struct temp_file {
  std::filesystem::path path;
  explicit temp_file(std::string_view name)
      : path(std::filesystem::temp_directory_path() /
             ("sa_state_dict_test_" + std::to_string(::getpid()) + "_" + std::string{name})) {}
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The object representation: "unchanged" means these bytes are.
template <class M>
std::vector<std::byte> bytes_of(const M& m) {
  const auto* p = reinterpret_cast<const std::byte*>(&m);
  return {p, p + sizeof(M)};
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// A model on the heap, filled as torch.manual_seed(seed); GPTModel(cfg) would be.
template <class T, sa::gpt_config Cfg>
std::unique_ptr<sa::gpt_model<T, Cfg>> torch_model(std::uint64_t seed) {
  auto model = std::make_unique<sa::gpt_model<T, Cfg>>();
  sa::torch_generator gen{seed};
  sa::init_like_torch(*model, gen);
  return model;
}

// ---- A minimal np.savez: .npy 1.0 entries in a stored (uncompressed) ZIP archive.

std::uint32_t crc32(const std::vector<std::byte>& data) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (const std::byte b : data) c = table[(c ^ std::to_integer<std::uint32_t>(b)) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void put_le(std::vector<std::byte>& out, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
}

class npz_writer {
 public:
  // An array of `shape` from row-major values, as numpy writes it.
  template <class U>
  void add(const std::string& name, std::initializer_list<std::size_t> shape, const U* values) {
    std::string dict = std::string{"{'descr': '"} + (std::is_same_v<U, float> ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (";
    std::size_t count = 1;
    for (const std::size_t d : shape) {
      dict += std::to_string(d) + ", ";
      count *= d;
    }
    if (shape.size() == 1)
      dict.pop_back();  // (16,)
    else
      dict.resize(dict.size() - 2);  // (8, 16)
    dict += "), }";
    while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::vector<std::byte> npy;
    for (const char ch : std::string_view{"\x93NUMPY\x01\x00", 8}) npy.push_back(static_cast<std::byte>(ch));
    put_le(npy, dict.size(), 2);
    for (const char ch : dict) npy.push_back(static_cast<std::byte>(ch));
    using bits = std::conditional_t<sizeof(U) == 4, std::uint32_t, std::uint64_t>;
    for (std::size_t k = 0; k < count; ++k) put_le(npy, std::bit_cast<bits>(values[k]), sizeof(U));
    entries_.push_back({name + ".npy", std::move(npy)});
  }

  void save(const std::filesystem::path& path) const {
    std::vector<std::byte> zip, central;
    for (const auto& e : entries_) {
      const std::uint32_t crc = crc32(e.data);
      const std::size_t local = zip.size();
      put_le(zip, 0x04034b50, 4);
      put_le(zip, 20, 2);    // version needed
      put_le(zip, 0, 2);     // flags
      put_le(zip, 0, 2);     // stored
      put_le(zip, 0, 2);     // time
      put_le(zip, 0x21, 2);  // 1980-01-01
      put_le(zip, crc, 4);
      put_le(zip, e.data.size(), 4);
      put_le(zip, e.data.size(), 4);
      put_le(zip, e.name.size(), 2);
      put_le(zip, 0, 2);  // extra
      for (const char ch : e.name) zip.push_back(static_cast<std::byte>(ch));
      zip.insert(zip.end(), e.data.begin(), e.data.end());

      put_le(central, 0x02014b50, 4);
      put_le(central, 20, 2);  // made by
      put_le(central, 20, 2);  // needed
      put_le(central, 0, 2);
      put_le(central, 0, 2);
      put_le(central, 0, 2);
      put_le(central, 0x21, 2);
      put_le(central, crc, 4);
      put_le(central, e.data.size(), 4);
      put_le(central, e.data.size(), 4);
      put_le(central, e.name.size(), 2);
      put_le(central, 0, 2);  // extra
      put_le(central, 0, 2);  // comment
      put_le(central, 0, 2);  // disk
      put_le(central, 0, 2);  // internal attributes
      put_le(central, 0, 4);  // external attributes
      put_le(central, local, 4);
      for (const char ch : e.name) central.push_back(static_cast<std::byte>(ch));
    }
    const std::size_t central_at = zip.size();
    zip.insert(zip.end(), central.begin(), central.end());
    put_le(zip, 0x06054b50, 4);
    put_le(zip, 0, 2);
    put_le(zip, 0, 2);
    put_le(zip, entries_.size(), 2);
    put_le(zip, entries_.size(), 2);
    put_le(zip, central.size(), 4);
    put_le(zip, central_at, 4);
    put_le(zip, 0, 2);
    write_bytes(path, zip);
  }

 private:
  struct entry {
    std::string name;
    std::vector<std::byte> data;
  };
  std::vector<entry> entries_;
};

// What a state dict may hold besides the model's parameters.
struct export_options {
  bool masks = true;         // trf_blocks.<i>.att.mask
  bool wide_masks = false;   // ... as float64 (for a float model) or float32 (for a double one)
  bool broken_mask = false;  // trf_blocks.1.att.mask with a 0 at (2, 5)
  bool out_head_bias = false;
};

// model.state_dict() of the book's GPTModel with model's values, in state-dict order: the mirror of
// load_state_dict, written independently of it.
template <class T, sa::gpt_config Cfg>
void export_state_dict(npz_writer& npz, const sa::gpt_model<T, Cfg>& model, const export_options& options = {}) {
  constexpr std::size_t d = Cfg.emb_dim, ctx = Cfg.context_length;
  const auto vector = [&](const std::string& name, const auto& row) {
    npz.add(name, {std::remove_cvref_t<decltype(row)>::size}, row.elems);
  };
  const auto linear = [&](const std::string& name, const auto& w) {  // in x out -> nn.Linear's out x in
    using W = std::remove_cvref_t<decltype(w)>;
    constexpr std::size_t in = W::rows(), out = W::cols();
    std::vector<T> t(in * out);
    for (std::size_t o = 0; o < out; ++o)
      for (std::size_t i = 0; i < in; ++i) t[o * in + i] = w(i, o);
    npz.add(name, {out, in}, t.data());
  };
  const auto mask = [&](const std::string& name, std::size_t index) {
    using U = std::conditional_t<std::is_same_v<T, float>, double, float>;
    std::vector<T> m(ctx * ctx);
    std::vector<U> wide(ctx * ctx);
    for (std::size_t i = 0; i < ctx; ++i)
      for (std::size_t j = 0; j < ctx; ++j) {
        wide[i * ctx + j] = j > i ? U{1} : U{0};
        m[i * ctx + j] = j > i ? T{1} : T{0};
      }
    if (options.broken_mask && index == 1) {
      m[2 * ctx + 5] = T{0};
      wide[2 * ctx + 5] = U{0};
    }
    if (options.wide_masks)
      npz.add(name, {ctx, ctx}, wide.data());
    else
      npz.add(name, {ctx, ctx}, m.data());
  };

  npz.add("tok_emb.weight", {Cfg.vocab_size, d}, model.tok_emb.weight.elems);
  npz.add("pos_emb.weight", {ctx, d}, model.pos_emb.weight.elems);
  std::size_t index = 0;
  boost::hana::for_each(model.trf_blocks, [&](const auto& block) {
    const std::string p = "trf_blocks." + std::to_string(index) + ".";
    if (options.masks) mask(p + "att.mask", index);
    linear(p + "att.W_query.weight", block.att.W_query);
    if constexpr (Cfg.qkv_bias) vector(p + "att.W_query.bias", block.att.b_query);
    linear(p + "att.W_key.weight", block.att.W_key);
    if constexpr (Cfg.qkv_bias) vector(p + "att.W_key.bias", block.att.b_key);
    linear(p + "att.W_value.weight", block.att.W_value);
    if constexpr (Cfg.qkv_bias) vector(p + "att.W_value.bias", block.att.b_value);
    linear(p + "att.out_proj.weight", block.att.W_out);
    vector(p + "att.out_proj.bias", block.att.b_out);
    linear(p + "ff.layers.0.weight", block.ff.expand.weight);
    vector(p + "ff.layers.0.bias", block.ff.expand.bias);
    linear(p + "ff.layers.2.weight", block.ff.project.weight);
    vector(p + "ff.layers.2.bias", block.ff.project.bias);
    vector(p + "norm1.scale", block.norm1.scale);
    vector(p + "norm1.shift", block.norm1.shift);
    vector(p + "norm2.scale", block.norm2.scale);
    vector(p + "norm2.shift", block.norm2.shift);
    ++index;
  });
  vector("final_norm.scale", model.final_norm.scale);
  vector("final_norm.shift", model.final_norm.shift);
  linear("out_head.weight", model.out_head);
  if (options.out_head_bias) vector("out_head.bias", model.final_norm.shift);
}

// `file` is refused with `code`, naming `tensor` and each of `mentions`, and a model filled
// beforehand (torch.manual_seed(123); GPTModel(cfg)) keeps every bit.
template <class T, sa::gpt_config Cfg>
void check_refused(const std::filesystem::path& file, errc code, const std::string& tensor,
                   std::initializer_list<std::string_view> mentions) {
  INFO(file.string());
  auto model = torch_model<T, Cfg>(123);
  const auto before = bytes_of(*model);
  const auto r = sa::load_state_dict(*model, file);
  REQUIRE_FALSE(r.has_value());
  const sa::state_dict_error& e = r.error();
  INFO(e.message);
  CHECK(e.code == code);
  CHECK(e.tensor == tensor);
  CHECK_FALSE(e.model_modified);
  CHECK(contains(e.message, file.filename().string()));  // the path may be shortened from its front
  if (!tensor.empty()) CHECK(contains(e.message, "'" + tensor + "'"));
  for (const std::string_view m : mentions) CHECK_MESSAGE(contains(e.message, m), "missing: ", m);
  CHECK(bytes_of(*model) == before);
}

template <class T, sa::gpt_config Cfg>
bool loaded_values_match(const sa::gpt_model<T, Cfg>& model, const double (&scale)[Cfg.emb_dim],
                         const double (&shift)[Cfg.emb_dim], const double (&tok_first8)[8]) {
  for (std::size_t j = 0; j < Cfg.emb_dim; ++j)
    if (model.final_norm.scale.elems[j] != static_cast<T>(scale[j]) ||
        model.final_norm.shift.elems[j] != static_cast<T>(shift[j]))
      return false;
  for (std::size_t k = 0; k < 8; ++k)
    if (model.tok_emb.weight.elems[k] != static_cast<T>(tok_first8[k])) return false;
  return true;
}

// tiny_state_dict.npz with one bit flipped in the data of its first entry (tok_emb.weight) or of
// its last (out_head.weight), which end where the central directory starts.
void write_damaged_fixture(const std::filesystem::path& path, bool first) {
  auto bytes = read_bytes(fixture("tiny_state_dict.npz"));
  REQUIRE(bytes.size() > 22);
  const auto le = [&](std::size_t at, int width) {
    std::size_t v = 0;
    for (int i = width; i-- > 0;) v = (v << 8) | std::to_integer<std::size_t>(bytes[at + static_cast<std::size_t>(i)]);
    return v;
  };
  std::size_t at = 0;
  if (first) {  // local header, name, extra field, then the .npy preamble (10 bytes) and header
    const std::size_t npy = 30 + le(26, 2) + le(28, 2);
    at = npy + 10 + le(npy + 8, 2);
  } else {
    at = le(bytes.size() - 22 + 16, 4) - 1;  // the central directory's offset, in the end record
  }
  REQUIRE(at < bytes.size());
  bytes[at] ^= std::byte{0x01};
  write_bytes(path, bytes);
}

}  // namespace

TEST_CASE("load_state_dict: torch's tiny state dict gives torch's logits and ids") {
  auto model = torch_model<float, tiny>(123);  // other values first: the load must replace them all
  const auto r = sa::load_state_dict(*model, fixture("tiny_state_dict.npz"));
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(loaded_values_match(*model, ref::tiny_final_norm_scale, ref::tiny_final_norm_shift,
                            ref::tiny_tok_emb_weight_first8));
  CHECK(gpt_test::close((*model)(prompt), to_matrix<float, 4, 64>(ref::tiny_logits), 1e-6));
  CHECK(gpt_test::same_ids(sa::generate_text_simple<4>(*model, prompt), ref::tiny_generated));
}

TEST_CASE("load_state_dict: qkv biases and three heads (tiny_bias3)") {
  auto model = torch_model<float, tiny_bias3>(123);
  const auto r = sa::load_state_dict(*model, fixture("tiny_state_dict_bias3.npz").c_str());  // const char*
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(loaded_values_match(*model, ref::tiny_bias3_final_norm_scale, ref::tiny_bias3_final_norm_shift,
                            ref::tiny_bias3_tok_emb_weight_first8));
  CHECK(gpt_test::close((*model)(prompt), to_matrix<float, 4, 64>(ref::tiny_bias3_logits), 1e-6));
  CHECK(gpt_test::same_ids(sa::generate_text_simple<4>(*model, prompt), ref::tiny_bias3_generated));
}

TEST_CASE("load_state_dict: a double model reads a float64 state dict") {
  // tiny_f64_dtype.npz holds tiny_state_dict.npz's float32 values widened: the double model
  // computes with the same weights, in double, so its logits are torch's float32 ones to 1e-6.
  auto model = torch_model<double, tiny>(123);
  const auto r = sa::load_state_dict(*model, std::filesystem::path{fixture("tiny_f64_dtype.npz")});
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(loaded_values_match(*model, ref::tiny_final_norm_scale, ref::tiny_final_norm_shift,
                            ref::tiny_tok_emb_weight_first8));
  CHECK(gpt_test::close((*model)(prompt), to_matrix<double, 4, 64>(ref::tiny_logits), 1e-6));
  CHECK(gpt_test::same_ids(sa::generate_text_simple<4>(*model, prompt), ref::tiny_generated));
}

TEST_CASE("load_state_dict: broken archives are refused, naming the tensor; the model keeps every bit") {
  check_refused<float, tiny>(fixture("tiny_missing_key.npz"), errc::missing_tensor, "trf_blocks.1.norm2.shift",
                             {"found no entry"});
  check_refused<float, tiny>(fixture("tiny_wrong_shape.npz"), errc::shape_mismatch, "pos_emb.weight",
                             {"context_length x emb_dim", "shape (8, 16)", "found shape (9, 16)"});
  check_refused<float, tiny>(fixture("tiny_f64_dtype.npz"), errc::dtype_mismatch, "tok_emb.weight",
                             {"'<f4'", "found dtype '<f8'"});
  check_refused<double, tiny>(fixture("tiny_state_dict.npz"), errc::dtype_mismatch, "tok_emb.weight",
                              {"'<f8'", "found dtype '<f4'"});
  check_refused<float, tiny>(fixture("no_such_state_dict.npz"), errc::file_not_found, "", {"no such file"});
  check_refused<float, tiny>(SA_GPT_FIXTURES_DIR, errc::file_unreadable, "tok_emb.weight", {});  // a directory
}

TEST_CASE("load_state_dict: an archive of another configuration is refused, not half-used") {
  // emb_dim 18 for 16: the first tensor already differs.
  check_refused<float, tiny>(fixture("tiny_state_dict_bias3.npz"), errc::shape_mismatch, "tok_emb.weight",
                             {"vocab_size x emb_dim", "found shape (64, 18)"});
  // context_length 16 for 8.
  check_refused<float, sa::gpt_config{64, 16, 16, 2, 2, false}>(fixture("tiny_state_dict.npz"), errc::shape_mismatch,
                                                                "pos_emb.weight", {"found shape (8, 16)"});
  // qkv_bias true for false: the biases are missing.
  check_refused<float, sa::gpt_config{64, 8, 16, 2, 2, true}>(fixture("tiny_state_dict.npz"), errc::missing_tensor,
                                                              "trf_blocks.0.att.W_query.bias", {});
  // qkv_bias false for true: the biases would be ignored, so they are refused.
  check_refused<float, sa::gpt_config{64, 8, 18, 3, 2, false}>(fixture("tiny_state_dict_bias3.npz"),
                                                               errc::unexpected_tensor, "trf_blocks.0.att.W_query.bias",
                                                               {"qkv_bias = true"});
  // One block for two: the second would be ignored.
  check_refused<float, sa::gpt_config{64, 8, 16, 2, 1, false}>(fixture("tiny_state_dict.npz"), errc::unexpected_tensor,
                                                               "trf_blocks.1.att.W_query.weight", {"n_layers = 1"});
  // Three blocks for two.
  check_refused<float, sa::gpt_config{64, 8, 16, 2, 3, false}>(fixture("tiny_state_dict.npz"), errc::missing_tensor,
                                                               "trf_blocks.2.att.W_query.weight", {});
}

TEST_CASE("load_state_dict: damage in the last tensor's data is found before anything is written") {
  // Pass 1 reads every entry's data, so the CRC-32 mismatch is found before the first tensor is
  // written.
  const temp_file damaged("damaged_last.npz");
  write_damaged_fixture(damaged.path, false);
  check_refused<float, tiny>(damaged.path, errc::malformed, "out_head.weight", {"CRC-32"});
  auto model = torch_model<float, tiny>(123);
  const auto r = sa::load_state_dict(*model, damaged.path);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().npy_code == sa::npy_errc::zip_crc_mismatch);
}

TEST_CASE("load_state_dict's pass 2 alone, as if the file changed after pass 1: what model_modified says") {
  // Internals: the writing pass run on its own, which load_state_dict does only after a clean
  // pass 1. A failure there reports which tensors were written, as state_dict_error documents.
  const temp_file last("damaged_last.npz");
  write_damaged_fixture(last.path, false);
  auto model = torch_model<float, tiny>(123);
  const auto head_before = bytes_of(model->out_head);
  sa::detail::state_dict_pass pass{last.path.string(), "load_state_dict(model, ...)", std::nullopt};
  sa::detail::state_dict_loader<float> loader{&pass};
  CHECK_FALSE(sa::detail::visit_state_dict(loader, *model));
  REQUIRE(pass.failure.has_value());
  CHECK(pass.failure->tensor == "out_head.weight");
  CHECK(pass.failure->model_modified);
  CHECK(contains(pass.failure->message, "partly loaded"));
  CHECK(loaded_values_match(*model, ref::tiny_final_norm_scale, ref::tiny_final_norm_shift,
                            ref::tiny_tok_emb_weight_first8));  // written before out_head
  CHECK(bytes_of(model->out_head) == head_before);              // not written

  const temp_file first("damaged_first.npz");
  write_damaged_fixture(first.path, true);
  auto untouched = torch_model<float, tiny>(123);
  const auto before = bytes_of(*untouched);
  sa::detail::state_dict_pass pass_first{first.path.string(), "load_state_dict(model, ...)", std::nullopt};
  sa::detail::state_dict_loader<float> loader_first{&pass_first};
  CHECK_FALSE(sa::detail::visit_state_dict(loader_first, *untouched));
  REQUIRE(pass_first.failure.has_value());
  CHECK(pass_first.failure->tensor == "tok_emb.weight");
  CHECK_FALSE(pass_first.failure->model_modified);
  CHECK(contains(pass_first.failure->message, "the model is unchanged"));
  CHECK(bytes_of(*untouched) == before);
  // The whole load refuses it in pass 1.
  check_refused<float, tiny>(first.path, errc::malformed, "tok_emb.weight", {"CRC-32"});
}

TEST_CASE("load_state_dict: the causal masks are optional, of either float dtype, and checked") {
  const auto source = torch_model<float, tiny>(7);
  const auto before = bytes_of(*source);
  const auto round_trip = [&](const export_options& options) {
    npz_writer npz;
    export_state_dict(npz, *source, options);
    const temp_file file("masks.npz");
    npz.save(file.path);
    auto model = torch_model<float, tiny>(123);
    const auto r = sa::load_state_dict(*model, file.path);
    if (!r) return std::string{r.error().message};
    return bytes_of(*model) == before ? std::string{"same"} : std::string{"different"};
  };
  // Written by this test's own exporter, read back: every bit, with or without the masks.
  CHECK(round_trip({}) == "same");
  CHECK(round_trip({.masks = false}) == "same");
  CHECK(round_trip({.wide_masks = true}) == "same");

  npz_writer npz;
  export_state_dict(npz, *source, {.broken_mask = true});
  const temp_file broken("broken_mask.npz");
  npz.save(broken.path);
  check_refused<float, tiny>(broken.path, errc::mask_mismatch, "trf_blocks.1.att.mask",
                             {"triu(ones(context_length, context_length), 1)", "found 0 at (2, 5)"});

  npz_writer with_bias;
  export_state_dict(with_bias, *source, {.out_head_bias = true});
  const temp_file biased("out_head_bias.npz");
  with_bias.save(biased.path);
  check_refused<float, tiny>(biased.path, errc::unexpected_tensor, "out_head.bias", {"has no bias"});
}

TEST_CASE("load_state_dict is strict: any entry the model lacks is refused, unless strict = false") {
  const auto source = torch_model<float, tiny>(7);
  npz_writer npz;
  export_state_dict(npz, *source);
  const std::array<float, 2> extra{1.0f, 2.0f};
  npz.add("lm_head.weight", {2}, extra.data());
  const temp_file file("extra_entry.npz");
  npz.save(file.path);
  check_refused<float, tiny>(file.path, errc::unexpected_tensor, "lm_head.weight",
                             {"no such tensor", "load_options{.strict = false}"});
  auto lenient = torch_model<float, tiny>(123);
  const auto r = sa::load_state_dict(*lenient, file.path, {.strict = false});
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(bytes_of(*lenient) == bytes_of(*source));
  // The qkv biases of a qkv_bias = true archive, ignored when not strict.
  auto no_bias = torch_model<float, sa::gpt_config{64, 8, 18, 3, 2, false}>(123);
  CHECK(sa::load_state_dict(*no_bias, fixture("tiny_state_dict_bias3.npz"), {.strict = false}).has_value());
}

TEST_CASE("load_state_dict: the round trip of torch's tiny state dict, float and double") {
  auto loaded = torch_model<float, tiny>(1);
  REQUIRE(sa::load_state_dict(*loaded, fixture("tiny_state_dict.npz")).has_value());
  npz_writer npz;
  export_state_dict(npz, *loaded);
  const temp_file file("tiny_again.npz");
  npz.save(file.path);
  auto again = torch_model<float, tiny>(2);
  REQUIRE(sa::load_state_dict(*again, file.path).has_value());
  CHECK(bytes_of(*again) == bytes_of(*loaded));

  auto wide = torch_model<double, tiny_bias3>(3);
  npz_writer npz64;
  export_state_dict(npz64, *wide);
  const temp_file file64("bias3_f64.npz");
  npz64.save(file64.path);
  auto wide_again = torch_model<double, tiny_bias3>(4);
  REQUIRE(sa::load_state_dict(*wide_again, file64.path).has_value());
  CHECK(bytes_of(*wide_again) == bytes_of(*wide));
}

TEST_CASE("load_state_dict: tensors larger than the stack go straight into the model") {
  // GPT-2's vocabulary at emb_dim 64: tok_emb and out_head are 12.9 MB each, more than a default
  // 8 MiB stack, so a copy of either on the stack would crash this test (which CTest also runs on
  // a 128 KiB stack: gpt.state_dict.small_stack).
  constexpr sa::gpt_config wide_vocab{50257, 4, 64, 1, 1, false};
  auto source = std::make_unique<sa::gpt_model<float, wide_vocab>>();
  for (std::size_t k = 0; k < decltype(source->out_head)::size; ++k) {
    source->tok_emb.weight.elems[k] = static_cast<float>(k % 1009) * 0.25f;
    source->out_head.elems[k] = -static_cast<float>(k % 997) * 0.5f;
  }
  source->final_norm.scale.elems[3] = 2.0f;
  npz_writer npz;
  export_state_dict(npz, *source);
  const temp_file file("wide_vocab.npz");
  npz.save(file.path);
  auto model = std::make_unique<sa::gpt_model<float, wide_vocab>>();
  const auto r = sa::load_state_dict(*model, file.path);
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(bytes_of(*model) == bytes_of(*source));
}

TEST_CASE("state_dict_errc names") {
  CHECK(sa::to_string_view(errc::missing_tensor) == "missing_tensor");
  CHECK(sa::to_string_view(errc::mask_mismatch) == "mask_mismatch");
  CHECK(sa::to_string_view(static_cast<errc>(99)) == "unknown");
}
