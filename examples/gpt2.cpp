// SPDX-License-Identifier: BSL-1.0
// gpt2: text in, text out, as the book's chapter 5 runs GPT-2 124M.
//
//   gpt2 --weights model.safetensors --vocab DIR --prompt "Every effort moves you"
//        --max-new-tokens 25 --temperature 1.4 --top-k 25 --seed 123   (one line)
//
// The prompt is encoded with OpenAI's vocabulary (DIR/encoder.json, DIR/vocab.bpe; by default the
// copy in third_party/gpt2-vocab), run through the model once, and the new tokens are sampled one
// at a time against the KV cache and printed as they come, whole UTF-8 characters only. Without
// --weights the model is the book's untrained GPT-2 from torch.manual_seed(123); --weights reads
// Hugging Face's model.safetensors (with its q, k, v biases) or the book's names. The sampler
// draws as torch.manual_seed(seed) then torch.multinomial do, so the ids are torch's.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <static_attention/io/safetensors.hpp>
#include <static_attention/io/tokenizer_files.hpp>
#include <static_attention/static_attention.hpp>
#include <static_attention/text.hpp>

namespace sa = static_attention;

namespace {

// The book's GPT_CONFIG_124M (no q, k, v biases), chapter 5's with a context of 256, and
// OpenAI's GPT-2 small as Hugging Face stores it (with the biases).
constexpr sa::gpt_config book_124m = sa::gpt2_124m;
constexpr sa::gpt_config book_124m_256{50257, 256, 768, 12, 12, false};
constexpr sa::gpt_config openai_124m = sa::gpt2_small;

struct options {
  std::string weights;
  std::string vocab = STATIC_ATTENTION_EXAMPLES_DIR "/../third_party/gpt2-vocab";
  std::string prompt = "Every effort moves you";
  std::size_t max_new = 25;
  std::size_t context_length = 1024;
  sa::sampling sampling{.temperature = 0, .top_k = 0, .eos_id = {}};
  std::uint64_t seed = 123;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "gpt2: %s\nusage: gpt2 [--weights FILE.safetensors] [--vocab DIR] [--prompt TEXT] "
               "[--max-new-tokens N] [--temperature T] [--top-k K] [--seed S] [--eos-id ID] "
               "[--context-length 1024|256]\n",
               why);
  return 2;
}

// The options, or nothing (and a message) for a bad command line.
std::optional<options> parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return usage("every option takes a value"), std::nullopt;
    const char* value = argv[++i];
    char* end = nullptr;
    if (flag == "--weights")
      o.weights = value;
    else if (flag == "--vocab")
      o.vocab = value;
    else if (flag == "--prompt")
      o.prompt = value;
    else if (flag == "--max-new-tokens")
      o.max_new = static_cast<std::size_t>(std::strtoull(value, &end, 10));
    else if (flag == "--temperature")
      o.sampling.temperature = std::strtod(value, &end);
    else if (flag == "--top-k")
      o.sampling.top_k = static_cast<std::size_t>(std::strtoull(value, &end, 10));
    else if (flag == "--seed")
      o.seed = static_cast<std::uint64_t>(std::strtoull(value, &end, 10));
    else if (flag == "--eos-id")
      o.sampling.eos_id = std::strtoll(value, &end, 10);
    else if (flag == "--context-length")
      o.context_length = static_cast<std::size_t>(std::strtoull(value, &end, 10));
    else
      return usage("unknown option"), std::nullopt;
    if (end != nullptr && *end != '\0') return usage("not a number"), std::nullopt;
  }
  if (o.context_length != 1024 && o.context_length != 256)
    return usage("--context-length is 1024 or 256"), std::nullopt;
  return o;
}

// Prints the bytes of one new token, holding back an incomplete UTF-8 character.
void print_token(sa::gpt2_stream_decoder& stream, int id) {
  char text[sa::gpt2_stream_decoder::max_output_per_token];
  if (const auto n = stream.push(id, std::span<char>(text))) std::fwrite(text, 1, *n, stdout);
  std::fflush(stdout);
}

template <sa::gpt_config Cfg>
int run(const options& o, const sa::gpt2_tokenizer& tokenizer) {
  static sa::gpt_model<float, Cfg> model;  // 650 MB, in .bss
  if (!o.weights.empty()) {
    if (const auto loaded = sa::load_safetensors(model, o.weights); !loaded)
      return std::fprintf(stderr, "gpt2: %s\n", loaded.error().message.c_str()), 1;
  } else {
    sa::torch_generator init{123};
    sa::init_like_torch(model, init);
  }
  // [snippet:encode]
  std::vector<int> ids(Cfg.context_length);
  const auto prompt = tokenizer.encode(o.prompt, std::span<int>(ids));
  if (!prompt) return std::fprintf(stderr, "gpt2: %s\n", prompt.error().message.c_str()), 1;
  // [/snippet]
  if (*prompt == 0) return usage("the prompt is empty");
  const std::size_t room = Cfg.context_length - *prompt;  // the prompt and the new ids fit the context
  const std::size_t max_new = o.max_new < room ? o.max_new : room;
  static sa::gpt_workspace<float, Cfg, Cfg.context_length> workspace;
  sa::torch_generator gen{o.seed};
  std::fwrite(o.prompt.data(), 1, o.prompt.size(), stdout);
  // [snippet:loop]
  auto h = model.prefill(std::span<const int>(ids.data(), *prompt), workspace);
  if (!h) return std::fprintf(stderr, "gpt2: %s\n", h.error().message.c_str()), 1;
  sa::gpt2_stream_decoder stream(tokenizer);
  const auto start = std::chrono::steady_clock::now();
  std::size_t made = 0;
  for (; made < max_new; ++made) {
    const int id = static_cast<int>(sa::sample_id(model.head(*h), o.sampling, gen));
    if (o.sampling.eos_id && id == *o.sampling.eos_id) break;  // the book: stop before appending it
    print_token(stream, id);
    if (made + 1 < max_new) h = model.hidden(std::array<int, 1>{id}, workspace);
  }
  // [/snippet]
  char rest[16];
  if (const auto n = stream.finish(std::span<char>(rest))) std::fwrite(rest, 1, *n, stdout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n");
  std::fflush(stdout);
  std::fprintf(stderr, "%zu tokens in %.3f s: %.1f tokens/s\n", made, seconds,
               seconds > 0 ? static_cast<double>(made) / seconds : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto o = parse(argc, argv);
  if (!o) return 2;
  // [snippet:vocab]
  const auto tokenizer = sa::load_gpt2_tokenizer(o->vocab + "/encoder.json", o->vocab + "/vocab.bpe");
  if (!tokenizer) return std::fprintf(stderr, "gpt2: %s\n", tokenizer.error().message.c_str()), 1;
  // [/snippet]
  if (!o->weights.empty()) return run<openai_124m>(*o, *tokenizer);
  if (o->context_length == 256) return run<book_124m_256>(*o, *tokenizer);
  return run<book_124m>(*o, *tokenizer);
}
