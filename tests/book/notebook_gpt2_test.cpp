// SPDX-License-Identifier: BSL-1.0
// The book's notebook cells that build GPT-2 124M (chapter 4 and its tests.py), digit for digit,
// through the public API, as notebook_test.cpp does for the others: DummyGPTModel and GPTModel in
// training mode on the book's batch (seed 123, drop_rate 0.1), and generate_text_simple on
// "Hello, I am" with the untrained model in evaluation mode. A separate test because it
// initialises 163 M parameters (built with -O2 in every configuration; a few seconds).
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <sstream>
#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/nn/dropout.hpp>
#include <static_attention/nn/gpt.hpp>
#include <string>

#include "notebook_support.hpp"

namespace {

namespace sa = static_attention;
using namespace book;

// batch = torch.stack([torch.tensor(tokenizer.encode("Every effort moves you")),
//                      torch.tensor(tokenizer.encode("Every day holds a"))])
sa::matrix<std::int64_t, 2, 4> book_batch() {
  const auto a = encode<4>("Every effort moves you");
  const auto b = encode<4>("Every day holds a");
  sa::matrix<std::int64_t, 2, 4> ids;
  for (std::size_t k = 0; k < 4; ++k) ids(0, k) = a[k], ids(1, k) = b[k];
  return ids;
}

// class DummyGPTModel: tok_emb, pos_emb, drop_emb, DummyTransformerBlocks and DummyLayerNorm
// (identities, no parameters), out_head = nn.Linear(emb_dim, vocab_size, bias=False). Its
// parameters are a GPTModel's without blocks: the same draws, in the same order.
inline constexpr sa::gpt_config dummy_cfg{50257, 1024, 768, 12, 0, false};

// torch.manual_seed(123); model = DummyGPTModel(GPT_CONFIG_124M); logits = model(batch)
// print("Output shape:", logits.shape); print(logits)
// forward: out_head(final_norm(trf_blocks(drop_emb(tok_embeds + pos_embeds)))), the blocks and
// the norm identities; in training mode (the model was not put in eval()).
std::string ch04_c016() {
  auto model = std::make_unique<sa::gpt_model<float, dummy_cfg>>();  // 312 MB: on the heap
  sa::torch_generator gen{123};
  sa::init_like_torch(*model, gen);
  const auto x = sa::dropout(model->embed(book_batch()), 0.1f, gen);  // drop_emb, p = drop_rate
  const auto logits = std::make_unique<sa::tensor<float, 2, 4, 50257>>(model->head(x));
  py_out out;
  out.print("Output shape:", sa::shape_of(*logits));
  out.print(grad(*logits, "UnsafeViewBackward0"));
  return out.os.str();
}

using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

// torch.manual_seed(123); model = GPTModel(GPT_CONFIG_124M): made once, on the heap (650 MB);
// `after_init` is the generator right after, for the training-mode forward pass that follows.
struct seeded_gpt2 {
  std::unique_ptr<gpt2> model = std::make_unique<gpt2>();
  sa::torch_generator after_init{123};
  seeded_gpt2() {
    sa::init_like_torch(*model, after_init);
    model->set_drop_rate(0.1f);  // GPT_CONFIG_124M["drop_rate"]
  }
};
seeded_gpt2& seeded() {
  static seeded_gpt2 m;
  return m;
}

// out = model(batch); print("Input batch:\n", batch); print("\nOutput shape:", out.shape); print(out)
std::string ch04_c072() {
  const auto batch = book_batch();
  sa::torch_generator gen = seeded().after_init;
  const auto logits = std::make_unique<sa::tensor<float, 2, 4, 50257>>((*seeded().model)(batch, gen));
  py_out out;
  out.print("Input batch:\n", batch);
  out.print("\nOutput shape:", sa::shape_of(*logits));
  out.print(grad(*logits, "UnsafeViewBackward0"));
  return out.os.str();
}

// model.eval(); out = generate_text_simple(model, encoded_tensor, max_new_tokens, context_size=1024)
template <std::size_t MaxNew>
std::array<std::int64_t, 4 + MaxNew> generated() {
  static sa::gpt_workspace<float, sa::gpt2_124m, 4 + MaxNew> workspace;  // 72 KiB a token
  const auto ids = sa::generate<MaxNew>(*seeded().model, encode<4>("Hello, I am"), workspace);
  REQUIRE(ids.has_value());
  return *ids;
}
template <std::size_t N>
std::string decoded(const std::array<std::int64_t, N>& ids) {
  std::array<char, 1024> text{};
  const auto n = tokenizer().decode(ids, std::span<char>(text));
  REQUIRE(n.has_value());
  return std::string(text.data(), *n);
}
template <std::size_t N>
std::string output_and_length(const std::array<std::int64_t, N>& ids) {
  sa::matrix<std::int64_t, 1, N> out_tensor;  // torch.cat((idx, idx_next), dim=1): 1 x N
  for (std::size_t k = 0; k < N; ++k) out_tensor(0, k) = ids[k];
  py_out out;
  out.print("Output:", out_tensor);
  out.print("Output length:", N);
  return out.os.str();
}

// max_new_tokens=6: print("Output:", out); print("Output length:", len(out[0]))
std::string ch04_c091() { return output_and_length(generated<6>()); }
// decoded_text = tokenizer.decode(out.squeeze(0).tolist()); print(decoded_text)
std::string ch04_c093() { return decoded(generated<6>()) + "\n"; }
// tests.py runs gpt.py's main(): max_new_tokens=10; its "Output:" and "Output length:" lines
std::string tests_ids() { return output_and_length(generated<10>()); }
// ... and its "Input text:", "Encoded input text:" and "Output text:" lines
std::string tests_text() {
  const auto encoded = encode<4>("Hello, I am");
  std::string list = "[";
  for (std::size_t k = 0; k < encoded.size(); ++k) list += (k ? ", " : "") + std::to_string(encoded[k]);
  list += "]";
  py_out out;
  out.print("Input text:", "Hello, I am");
  out.print("Encoded input text:", list);
  out.print("Output text:", decoded(generated<10>()));
  return out.os.str();
}

constexpr cell cells[] = {
    {"ch04_c016", ch04_c016}, {"ch04_c072", ch04_c072}, {"ch04_c091", ch04_c091},
    {"ch04_c093", ch04_c093}, {"tests_ids", tests_ids}, {"tests_text", tests_text},
};

TEST_CASE("the notebooks' GPT-2 124M outputs, digit for digit (torch 1.13's where torch versions differ)") {
  compare_cells(cells);
}

}  // namespace
