// SPDX-License-Identifier: BSL-1.0
// Chapter 5's loaders: the train and validation losses of the untrained GPT-2 124M (context
// 256, seed 123) over the-verdict.txt, split as the chapter splits it, encoded by the library's
// tokenizer, cut into GPTDatasetV1's windows (max_length = stride = 256), batched in twos (the
// train batches in the order torch's shuffling draws after torch.manual_seed(123)) and averaged
// as calc_loss_loader averages them. Against torch 1.13 on the CPU (ch05_reference.hpp) and the
// notebook's printed losses (computed on "mps"). About 20 forward passes of 256 tokens: a long test.
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/io/tokenizer_files.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/loss.hpp>

#include <doctest/doctest.h>

#include "ch05_reference.hpp"
#include "ch05_support.hpp"

namespace sa = static_attention;
namespace ref = reference::ch05;

namespace {

constexpr std::size_t context = ch05::gpt2_124m_256.context_length;
constexpr std::size_t vocab = ch05::gpt2_124m_256.vocab_size;
using window = std::array<int, context>;

std::string read_text(const char* name) {
  std::ifstream in(std::string(SA_CH05_DATA_DIR) + "/" + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const sa::loaded_gpt2_tokenizer& tokenizer() {
  static const auto tok = sa::load_gpt2_tokenizer(SA_GPT2_VOCAB_DIR "/encoder.json", SA_GPT2_VOCAB_DIR "/vocab.bpe");
  if (!tok) std::fprintf(stderr, "%s\n", tok.error().message.c_str());
  REQUIRE(tok);
  return *tok;
}

std::vector<int> encode(const std::string& text) {
  std::vector<int> ids(text.size() + 1);
  const auto n = tokenizer().encode(text, ids);
  REQUIRE(n);
  ids.resize(*n);
  return ids;
}

// GPTDatasetV1: for i in range(0, len(ids) - max_length, stride), ids[i : i + max_length] and the
// same shifted by one.
struct windows {
  std::vector<window> inputs, targets;
};
windows cut(const std::vector<int>& ids) {
  windows w;
  for (std::size_t i = 0; i + context < ids.size(); i += context) {
    window in{}, out{};
    for (std::size_t k = 0; k < context; ++k) {
      in[k] = ids[i + k];
      out[k] = ids[i + k + 1];
    }
    w.inputs.push_back(in);
    w.targets.push_back(out);
  }
  return w;
}

// The order DataLoader(shuffle=True) yields after torch.manual_seed(seed), in torch 1.13: the
// loader's iterator first draws its workers' base seed, torch.empty((), dtype=torch.int64).random_()
// (one random64() of the global generator, modulo 2^63); at the first batch its RandomSampler
// seeds a fresh generator with a second such draw, then torch.randperm(n) swaps position i with
// i + random() % (n - i).
std::vector<std::size_t> shuffled(std::size_t n, std::uint64_t seed) {
  sa::torch_generator global{seed};
  (void)global.random64();  // _BaseDataLoaderIter's _base_seed
  sa::torch_generator gen{global.random64() % (std::uint64_t{1} << 63)};
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = 0; i + 1 < n; ++i) std::swap(order[i], order[i + gen.random() % (n - i)]);
  return order;
}

// calc_loss_batch on two windows: logits of each (hidden states through the workspace, then
// out_head into static storage: 2 x 256 x 50257 floats is 103 MB), the loss over all 512 tokens.
float batch_loss(const windows& w, std::size_t first, std::size_t second) {
  static sa::gpt_workspace<float, ch05::gpt2_124m_256, context> ws;
  static sa::matrix<float, context, vocab> item;
  static sa::tensor<float, 2, context, vocab> logits;
  sa::matrix<int, 2, context> targets;
  const std::size_t picks[2] = {first, second};
  for (std::size_t b = 0; b < 2; ++b) {
    ws.clear();
    const auto h = ch05::model().hidden(w.inputs[picks[b]], ws);
    REQUIRE(h);
    sa::matmul_into(item, *h, ch05::model().out_head);
    std::copy(item.elems, item.elems + context * vocab, logits.elems + b * context * vocab);
    for (std::size_t k = 0; k < context; ++k) targets(b, k) = w.targets[picks[b]][k];
  }
  const auto loss = sa::cross_entropy(logits, targets);
  REQUIRE(loss);
  return *loss;
}

// A double as Python prints it: the shortest digits that read back to it.
std::string repr(double value) {
  char digits[64];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  return {digits, end};
}

}  // namespace

TEST_CASE("ch05 loaders: the texts encode to tiktoken's ids and cut into the notebook's windows") {
  const auto train = encode(read_text("verdict_train.txt"));
  const auto val = encode(read_text("verdict_val.txt"));
  CHECK(train == std::vector<int>(std::begin(ref::train_ids), std::end(ref::train_ids)));
  CHECK(val == std::vector<int>(std::begin(ref::val_ids), std::end(ref::val_ids)));
  CHECK(encode(read_text("verdict_train.txt") + read_text("verdict_val.txt")).size() ==
        static_cast<std::size_t>(ref::notebook_tokens));
  const auto tw = cut(train);
  const auto vw = cut(val);
  CHECK(tw.inputs.size() / 2 * 2 * context == static_cast<std::size_t>(ref::notebook_train_tokens));  // drop_last
  CHECK(vw.inputs.size() * context == static_cast<std::size_t>(ref::notebook_val_tokens));
  const auto order = shuffled(tw.inputs.size(), 123);
  CHECK(order == std::vector<std::size_t>(std::begin(ref::train_order), std::end(ref::train_order)));
}

TEST_CASE("ch05 loaders: train_loss and val_loss, against torch 1.13 (CPU) and the notebook (mps)") {
  const auto tw = cut(encode(read_text("verdict_train.txt")));
  const auto vw = cut(encode(read_text("verdict_val.txt")));
  const auto order = shuffled(tw.inputs.size(), 123);
  const std::size_t train_batches = tw.inputs.size() / 2;  // drop_last=True
  double total = 0;
  int same_bits = 0;
  for (std::size_t b = 0; b < train_batches; ++b) {
    const float loss = batch_loss(tw, order[2 * b], order[2 * b + 1]);
    CAPTURE(b);
    same_bits += loss == static_cast<float>(ref::train_batch_losses[b]);
    CHECK(std::abs(loss - ref::train_batch_losses[b]) <= 2.5e-7 * ref::train_batch_losses[b]);  // 2 ulps
    total += loss;  // Python's float: a double sum of the batches' float losses
  }
  const double train_loss = total / static_cast<double>(train_batches);
  REQUIRE(vw.inputs.size() == 2);  // one batch of two; drop_last=False keeps a partial one if any
  const double val_loss = batch_loss(vw, 0, 1);
  MESSAGE("train_loss ", repr(train_loss), " (torch 1.13: ", repr(ref::train_loss),
          ", notebook: ", repr(ref::notebook_train_loss), "); val_loss ", repr(val_loss),
          " (torch 1.13: ", repr(ref::val_loss), ", notebook: ", repr(ref::notebook_val_loss), "); ", same_bits, " of ",
          train_batches, " train batch losses are torch 1.13's bits");
  // torch 1.13 on the CPU: within two float ulps of a batch loss (measured: the validation loss
  // is its bits, the train loss 1e-8 relative off, one of nine batches an ulp off). The notebook
  // ran on mps, whose kernels add in other orders: within 1e-6 relative (measured: 5e-8).
  CHECK(std::abs(train_loss - ref::train_loss) <= 2.5e-7 * ref::train_loss);
  CHECK(std::abs(val_loss - ref::val_loss) <= 2.5e-7 * ref::val_loss);
  CHECK(std::abs(train_loss - ref::notebook_train_loss) <= 1e-6 * ref::notebook_train_loss);
  CHECK(std::abs(val_loss - ref::notebook_val_loss) <= 1e-6 * ref::notebook_val_loss);
}
