// SPDX-License-Identifier: BSL-1.0
// GPT-2's tokenizer at run time: encode (text -> ids) and decode (ids -> text) throughput on
// English (the-verdict.txt, the book's short story, 20 kB, repeated to 1 MB) and on the
// multilingual reference corpus of tests/text (scripts, emoji, code, white space), in bytes of
// text per second (Google Benchmark's bytes_per_second). The vocabulary is read from
// third_party/gpt2-vocab/ (run from the repository, or set SA_GPT2_VOCAB_DIR).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <static_attention/io/tokenizer_files.hpp>

#include "../tests/text/tokenizer_reference.hpp"

namespace sa = static_attention;

namespace {

std::string vocab_dir() {
  const char* dir = std::getenv("SA_GPT2_VOCAB_DIR");
  return dir != nullptr ? dir : SA_BENCH_SOURCE_DIR "/third_party/gpt2-vocab";
}

const sa::loaded_gpt2_tokenizer& tokenizer() {
  static const auto tok = sa::load_gpt2_tokenizer(vocab_dir() + "/encoder.json", vocab_dir() + "/vocab.bpe");
  if (!tok) {
    std::fprintf(stderr, "%s\n", tok.error().message.c_str());
    std::exit(1);
  }
  return *tok;
}

// the-verdict.txt, repeated to about 1 MB.
const std::string& english() {
  static const std::string text = [] {
    std::ifstream in(SA_BENCH_SOURCE_DIR "/tests/text/data/the-verdict.txt", std::ios::binary);
    const std::string one{std::istreambuf_iterator<char>(in), {}};
    if (one.empty()) {
      std::fprintf(stderr, "cannot read tests/text/data/the-verdict.txt\n");
      std::exit(1);
    }
    std::string all;
    while (all.size() < (std::size_t{1} << 20)) all += one;
    return all;
  }();
  return text;
}

// Every text of the reference corpus but the-verdict, one after another.
const std::string& multilingual() {
  static const std::string text = [] {
    std::string all;
    for (const auto& c : tokenizer_reference::cases)
      if (c.name != "the_verdict") all += c.text;
    return all;
  }();
  return text;
}

void encode(benchmark::State& state, const std::string& text) {
  const auto& tok = tokenizer();
  std::vector<int> ids(text.size() + 1);
  std::size_t n = 0;
  for (auto _ : state) {
    const auto r = tok.encode(text, ids);
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    n = *r;
    benchmark::DoNotOptimize(ids.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  state.counters["tokens"] = static_cast<double>(n);
}

void bm_encode_english(benchmark::State& state) { encode(state, english()); }
void bm_encode_multilingual(benchmark::State& state) { encode(state, multilingual()); }

void bm_decode_english(benchmark::State& state) {
  const auto& tok = tokenizer();
  const std::string& text = english();
  std::vector<int> ids(text.size() + 1);
  const std::size_t n = *tok.encode(text, ids);
  std::string out(text.size(), '\0');
  for (auto _ : state) {
    const auto r = tok.decode(std::span<const int>(ids.data(), n), out);
    benchmark::DoNotOptimize(out.data());
    if (!r) state.SkipWithError(r.error().message.c_str());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

void bm_load(benchmark::State& state) {
  for (auto _ : state) {
    auto tok = sa::load_gpt2_tokenizer(vocab_dir() + "/encoder.json", vocab_dir() + "/vocab.bpe");
    benchmark::DoNotOptimize(tok);
  }
}

}  // namespace

BENCHMARK(bm_encode_english)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_encode_multilingual)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_decode_english)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_load)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
