// SPDX-License-Identifier: BSL-1.0
// Export -> load -> generate: the book's GPTModel weights, exported from PyTorch as an .npz of
// its state dict (tools/export_state_dict.py), loaded into a model in static storage with
// load_state_dict, then greedy decoding with a KV cache. Prints the archive and the ids: the
// prompt's, then the generated ones.
//
//   gpt_generate [state_dict.npz]    default: tests/gpt/fixtures/tiny_state_dict.npz
//
// The configuration is part of the model's type, so it is chosen at compile time: here the tiny
// one (vocab 64, context 8, emb 16, 2 heads, 2 layers); for GPT-2 small's shapes make `config`
// sa::gpt2_124m. An archive of another configuration is refused with a message naming the first
// tensor that does not fit.
#include <array>
#include <cstddef>
#include <cstdio>
#include <string_view>

#include <static_attention/io/state_dict.hpp>
#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;

#ifndef SA_GPT_FIXTURES_DIR
#define SA_GPT_FIXTURES_DIR "tests/gpt/fixtures"
#endif

namespace {

// [snippet:model]
// The book's GPT_CONFIG_124M, scaled down: vocab 64, context 8, emb 16, 2 heads, 2 layers, no qkv bias.
constexpr sa::gpt_config config{64, 8, 16, 2, 2, false};
constexpr std::array<int, 4> prompt{5, 17, 42, 63};
constexpr std::size_t max_new = 4;

// Static storage: with sa::gpt2_124m the model is 650 MB, far more than any stack.
sa::gpt_model<float, config> model;
// The KV cache holds the longest sequence a step reads: the prompt and all but the last new id.
sa::gpt_workspace<float, config, prompt.size() + max_new - 1> workspace;
// [/snippet]

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : SA_GPT_FIXTURES_DIR "/tiny_state_dict.npz";
  // [snippet:load]
  // Written in place, and only once the whole archive has been checked against the model's type.
  if (const auto loaded = sa::load_state_dict(model, path); !loaded) {
    const std::string_view code = sa::to_string_view(loaded.error().code);
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(code.size()), code.data(), loaded.error().message.c_str());
    return 1;
  }
  const auto ids = sa::generate<max_new>(model, prompt, workspace);  // an id outside the vocabulary: an error
  if (!ids) {
    std::fprintf(stderr, "%s\n", ids.error().message.c_str());
    return 1;
  }
  // [/snippet]
  std::printf("%s\nids:", path);
  for (const int id : *ids) std::printf(" %d", id);
  std::printf("\n");
  return 0;
}
