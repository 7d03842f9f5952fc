// SPDX-License-Identifier: BSL-1.0
// The chapter "Implementing a GPT model from scratch to generate text", step by step. Every
// tensor is computed by the compiler from the chapter's seeds and checked with static_assert;
// the shapes of GPT-2 124M are checked in the types. Run with --gpt2 to also build the 124M
// model at run time (about 650 MB, a few seconds) and continue "Hello, I am" as the book does.
#include <array>
#include <cstring>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/io/tokenizer_files.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

// --- 4.2 Normalizing activations with layer normalization -------------------------------------
// torch.manual_seed(123); batch_example = torch.randn(2, 5);
// layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU()); out = layer(batch_example)
constexpr auto batch_example = [] {
  sa::torch_generator gen{123};
  return sa::normal<float, 2, 5>(gen);
}();
// [snippet:relu_layer]
constexpr auto out = [] {
  sa::torch_generator gen{123};
  (void)sa::normal<float, 2, 5>(gen);  // the draws of batch_example come first
  sa::linear_layer<float, 5, 6> layer{};
  sa::init_like_torch(layer, gen);
  return sa::relu(layer(batch_example));
}();
// The book prints tensor([[0.2260, 0.3470, 0.0000, 0.2216, 0.0000, 0.0000],
//                         [0.2133, 0.2394, 0.0000, 0.5198, 0.3297, 0.0000]])
static_assert(sa::approx_equal(out,
                               sa::matrix<float, 2, 6>{{0.2260f, 0.3470f, 0.0f, 0.2216f, 0.0f, 0.0f},
                                                       {0.2133f, 0.2394f, 0.0f, 0.5198f, 0.3297f, 0.0f}},
                               5e-5f));
// [/snippet]

// Mean and (biased) variance of each row, as x.mean(dim=-1) and x.var(dim=-1, unbiased=False).
template <class T, std::size_t R, std::size_t C>
constexpr std::pair<sa::matrix<T, R, 1>, sa::matrix<T, R, 1>> mean_var(const sa::matrix<T, R, C>& x) {
  const auto mean = sa::sum(x) / static_cast<T>(C);
  sa::matrix<T, R, 1> var;
  for (std::size_t i = 0; i < R; ++i) {
    T acc{};
    for (std::size_t j = 0; j < C; ++j) acc += (x(i, j) - mean(i, 0)) * (x(i, j) - mean(i, 0));
    var(i, 0) = acc / static_cast<T>(C);
  }
  return {mean, var};
}

// [snippet:layer_norm]
// ln = LayerNorm(emb_dim=5): scale ones, shift zeros (init_like_torch).
constexpr auto out_ln = [] {
  sa::layer_norm<float, 5> ln{};
  sa::torch_generator unused{0};
  sa::init_like_torch(ln, unused);
  return ln(batch_example);
}();
// Mean 0 and variance 1 per row, proven by the compiler.
static_assert(sa::approx_equal(mean_var(out_ln).first, sa::zeros<float, 2, 1>(), 1e-6f));
static_assert(sa::approx_equal(mean_var(out_ln).second, sa::ones<float, 2, 1>(), 1e-4f));
// [/snippet]

// --- 4.3 A feed forward network with GELU activations -------------------------------------------
// [snippet:gelu]
constexpr sa::matrix<float, 1, 5> gelu_x{{-3.0f, -1.0f, 0.0f, 1.0f, 3.0f}};
// GELU is smooth and lets small negative values through; ReLU cuts them to 0.
static_assert(sa::gelu(gelu_x)(0, 1) < 0.0f && sa::relu(gelu_x)(0, 1) == 0.0f);
static_assert(sa::approx_equal(sa::gelu(gelu_x), sa::matrix<float, 1, 5>{{-0.0036f, -0.1588f, 0.0f, 0.8412f, 2.9964f}},
                               5e-5f));
// [/snippet]

// [snippet:feed_forward]
// FeedForward(GPT_CONFIG_124M) keeps the shape: (2, 3, 768) -> (2, 3, 768), checked in the types.
using ffn_124m = sa::feed_forward<float, 768, 4 * 768>;
static_assert(std::is_same_v<decltype(std::declval<const ffn_124m&>()(std::declval<sa::tensor<float, 2, 3, 768>>())),
                             sa::tensor<float, 2, 3, 768>>);
// [/snippet]

// --- 4.4 Adding shortcut connections -----------------------------------------------------------
// A block whose layers add nothing still passes its input on: the shortcut keeps x flowing
// (and, in training, the gradient).
// [snippet:shortcut]
constexpr auto shortcut_passes_input = [] {
  const sa::transformer_block<float, 4, 2, 8> block{};  // every weight zero
  const sa::matrix<float, 2, 4> x{{1, 2, 3, 4}, {5, 6, 7, 8}};
  return block(x) == x;
}();
static_assert(shortcut_passes_input);
// [/snippet]

// --- 4.5 The transformer block, 4.6 the GPT model ------------------------------------------------
using block_124m = sa::transformer_block<float, 768, 12, 1024>;
static_assert(std::is_same_v<decltype(std::declval<const block_124m&>()(std::declval<sa::tensor<float, 2, 4, 768>>())),
                             sa::tensor<float, 2, 4, 768>>);

// [snippet:parameters]
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;
// "Total number of parameters: 163,009,536"
static_assert(gpt2::parameter_count == 163'009'536);
// "Number of trainable parameters considering weight tying: 124,412,160"
static_assert(gpt2::parameter_count - 50257 * 768 == 124'412'160);
// Exercise 4.1: the feed-forward and attention modules of one block.
static_assert(4 * 768 * 768 + 4 * 768 + 4 * 768 * 768 + 768 == 4'722'432);  // FeedForward
static_assert(4 * 768 * 768 + 768 == 2'360'064);                            // MultiHeadAttention
// "Total size of the model: 621.83 MB" (4 bytes per float32 parameter).
constexpr double size_mb = gpt2::parameter_count * 4.0 / (1024 * 1024);
static_assert(size_mb > 621.82 && size_mb < 621.84);
// [/snippet]

// --- 4.7 Generating text -------------------------------------------------------------------
// A GPT small enough for the compiler: initialised as torch.manual_seed(123); GPTModel(cfg),
// then generate_text_simple continues a 4-token prompt by 4 tokens, all at compile time.
// [snippet:generate]
inline constexpr sa::gpt_config tiny{
    .vocab_size = 64, .context_length = 8, .emb_dim = 16, .n_heads = 2, .n_layers = 2, .qkv_bias = false};
constexpr auto tiny_model = [] {
  sa::gpt_model<float, tiny> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}();
constexpr std::array<int, 4> prompt{5, 17, 42, 63};
constexpr auto generated = sa::generate_text_simple<4>(tiny_model, prompt);
static_assert(generated.size() == 8 && generated[0] == 5 && generated[3] == 63);
// [/snippet]

int main(int argc, char** argv) {
  const std::string vocab_dir = STATIC_ATTENTION_EXAMPLES_DIR "/../third_party/gpt2-vocab";
  std::cout << "batch_example:\n" << batch_example << "\n\n";
  std::cout << "layer(batch_example):\n" << out << "\n\n";
  const auto [mean, var] = mean_var(out);
  std::cout << "Mean:\n" << mean << "\nVariance:\n" << var << "\n\n";
  const auto [mean_ln, var_ln] = mean_var(out_ln);
  std::cout << "After LayerNorm\nMean:\n" << mean_ln << "\nVariance:\n" << var_ln << "\n\n";
  std::cout << "gelu(" << gelu_x << ") =\n" << sa::gelu(gelu_x) << "\n\n";
  std::cout << "Total number of parameters: " << gpt2::parameter_count << "\n";
  std::cout << "Number of trainable parameters considering weight tying: " << gpt2::parameter_count - 50257 * 768
            << "\n";
  std::cout << "Total size of the model: " << size_mb << " MB\n\n";
  std::cout << "tiny GPT, generated at compile time:";
  for (int id : generated) std::cout << ' ' << id;
  std::cout << "\n";

  if (argc > 1 && std::strcmp(argv[1], "--gpt2") == 0) {
    // [snippet:gpt2]
    static gpt2 model;  // zero-initialised, in .bss
    sa::torch_generator gen{123};
    sa::init_like_torch(model, gen);
    const std::array<int, 4> hello{15496, 11, 314, 716};  // "Hello, I am"
    const auto ids = sa::generate_text_simple<6>(model, hello);
    std::cout << "GPT-2 124M, \"Hello, I am\":";
    for (int id : ids) std::cout << ' ' << id;
    std::cout << "\n";
    // The ids as text, with OpenAI's vocabulary (third_party/gpt2-vocab/).
    const auto tokenizer = sa::load_gpt2_tokenizer(vocab_dir + "/encoder.json", vocab_dir + "/vocab.bpe");
    if (!tokenizer) return std::cerr << tokenizer.error().message << '\n', 1;
    std::array<char, 256> text{};
    const auto length = tokenizer->decode(std::span<const int>(ids), std::span<char>(text));
    if (!length) return std::cerr << length.error().message << '\n', 1;
    std::cout << "Output text: " << std::string_view(text.data(), *length) << "\n";
    // [/snippet]
  }
}
