#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/sampling/sampling_reference.hpp (namespace reference::sampling): the book's
chapter-5 sampling run by torch 1.13 on the CPU, as the C++ sampling.hpp must reproduce it.

* Draws: one row of logits, torch.randn(1, V) from a generator seeded with `logit_seed`, times
  `scale` (a power of two); then torch.manual_seed(seed) and three successive draws of the
  book's step (top-k, temperature, softmax, multinomial, or the argmax) from that one row.
  Vocabulary sizes 5, 8, 13, 64, 100, 1000 and 50257; temperatures 0, 0.5, 1, 1.4, 5; top-k
  none, 1, 3, 25, 50 (where <= V).
* Generations: the book's generate() (copied below from ch05's gpt_generate.py, batch 1) on the
  tiny GPTs of the C++ tests (float32 and float64, torch.manual_seed(123)), prompt
  {5, 17, 42, 63}, 4 and 10 new tokens (the latter past the context of 8), every temperature and
  top-k above and two seeds, plus eos_id cases; and on GPT-2 124M (float32, seed 123) for
  "Hello, I am".

torch dispatches to its AVX2 kernels (ATEN_CPU_CAPABILITY=avx2, set before importing torch), on
one thread. Regenerate with
    /usr/bin/python3 tests/reference/gen_sampling_reference.py [--skip-124m] [--draws-per-v N]
                                                               [--out PATH]
"""
import argparse
import os
import sys

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
for candidate in (HERE, os.path.join(HERE, "..", "..", "tools")):  # the model module's old and new homes
    if os.path.exists(os.path.join(candidate, "gpt_reference_model.py")):
        sys.path.insert(0, candidate)
        break
import gpt_reference_model as ref  # noqa: E402

TEMPERATURES = [0.0, 0.5, 1.0, 1.4, 5.0]
TOP_KS = [None, 1, 3, 25, 50]
VOCABS = [5, 8, 13, 64, 100, 1000, 50257]
SCALES = [0.5, 1.0, 2.0, 4.0, 8.0]


def book_step(logits, temperature, top_k):
    """The body of the book's generate loop after `logits = logits[:, -1, :]`."""
    if top_k is not None:
        top_logits, _ = torch.topk(logits, top_k)
        min_val = top_logits[:, -1]
        logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
    if temperature > 0.0:
        logits = logits / temperature
        probs = torch.softmax(logits, dim=-1)
        return torch.multinomial(probs, num_samples=1)
    return torch.argmax(logits, dim=-1, keepdim=True)


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    """The book's generate (ch05), batch 1."""
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        idx_next = book_step(logits, temperature, top_k)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def cxx_double(x):
    return float(x).hex()


def draw_cases(vocab, count):
    """`count` draw cases for one vocabulary size, cycling through the settings."""
    settings = [(t, k) for t in TEMPERATURES for k in TOP_KS if k is None or k <= vocab]
    cases = []
    for i in range(count):
        temperature, top_k = settings[i % len(settings)]
        logit_seed = 1000 + 7 * i + vocab
        scale = SCALES[(i // len(settings)) % len(SCALES)]
        seed = 123 if i < len(settings) else 10_000 + 13 * i + vocab
        g = torch.Generator().manual_seed(logit_seed)
        logits = torch.randn(1, vocab, generator=g) * scale
        torch.manual_seed(seed)
        ids = [int(book_step(logits, temperature, top_k).item()) for _ in range(3)]
        cases.append((logit_seed, scale, temperature, top_k or 0, seed, ids))
    return cases


def generation_cases(model, cfg, dtype, prompt, seeds):
    cases = []
    with ref.default_dtype(dtype):
        for max_new in (4, 10):
            for seed in seeds:
                for temperature in TEMPERATURES[1:]:
                    for top_k in TOP_KS:
                        torch.manual_seed(seed)
                        out = generate(model, torch.tensor([prompt]), max_new, cfg["context_length"], temperature, top_k)
                        ids = out[0].tolist()
                        cases.append((temperature, top_k or 0, seed, -1, max_new, ids))
                        if seed == seeds[0] and len(ids) >= len(prompt) + 3:
                            eos = ids[len(prompt) + 2]  # stops before the third new id (or sooner)
                            torch.manual_seed(seed)
                            out = generate(model, torch.tensor([prompt]), max_new, cfg["context_length"], temperature,
                                           top_k, eos_id=eos)
                            cases.append((temperature, top_k or 0, seed, eos, max_new, out[0].tolist()))
    return cases


def emit_draws(lines, vocab, cases):
    lines.append(f"inline constexpr draw_case draws_v{vocab}[] = {{")
    for logit_seed, scale, t, k, seed, ids in cases:
        lines.append(f"    {{{logit_seed}, {cxx_double(scale)}, {cxx_double(t)}, {k}, {seed}, "
                     f"{{{ids[0]}, {ids[1]}, {ids[2]}}}}},")
    lines.append("};")


def emit_generations(lines, name, cases, width):
    lines.append(f"inline constexpr generation_case {name}[] = {{")
    for t, k, seed, eos, max_new, ids in cases:
        padded = ids + [0] * (width - len(ids))
        lines.append(f"    {{{cxx_double(t)}, {k}, {seed}, {eos}, {max_new}, {len(ids)}, "
                     f"{{{', '.join(map(str, padded))}}}}},")
    lines.append("};")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-124m", action="store_true")
    parser.add_argument("--draws-per-v", type=int, default=150)
    parser.add_argument("--out", default=os.path.join(HERE, "..", "sampling", "sampling_reference.hpp"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    ref.check_cpu_capability()

    lines = ["// SPDX-License-Identifier: BSL-1.0",
             "// Generated by tests/reference/gen_sampling_reference.py (torch " + torch.__version__ +
             ", CPU, AVX2, one thread): do not edit.",
             "#pragma once", "#include <cstddef>", "#include <cstdint>", "",
             "namespace reference::sampling {", "",
             "// torch.randn(1, V) from a generator seeded with logit_seed, times scale; then",
             "// torch.manual_seed(seed) and three draws of the book's step on that row.",
             "struct draw_case {", "  std::uint64_t logit_seed;", "  double scale;", "  double temperature;",
             "  std::size_t top_k;", "  std::uint64_t seed;", "  int ids[3];", "};", "",
             "// The book's generate: torch.manual_seed(seed), then max_new tokens (eos_id -1: none);",
             "// ids[0, length) are the prompt and the new ids.",
             "struct generation_case {", "  double temperature;", "  std::size_t top_k;", "  std::uint64_t seed;",
             "  std::int64_t eos_id;", "  std::size_t max_new;", "  std::size_t length;", "  int ids[14];", "};", ""]
    for vocab in VOCABS:
        count = args.draws_per_v if vocab < 50257 else max(25, args.draws_per_v // 10)
        emit_draws(lines, vocab, draw_cases(vocab, count))
        lines.append("")

    prompt = [5, 17, 42, 63]
    tiny = ref.build_model(ref.TINY_CONFIG, 123)
    emit_generations(lines, "tiny_generations", generation_cases(tiny, ref.TINY_CONFIG, torch.float32, prompt,
                                                                 [123, 7]), 14)
    lines.append("")
    tiny64 = ref.build_model(ref.TINY_CONFIG, 123, dtype=torch.float64)
    emit_generations(lines, "tiny_f64_generations", generation_cases(tiny64, ref.TINY_CONFIG, torch.float64, prompt,
                                                                     [123]), 14)
    lines.append("")
    if not args.skip_124m:
        gpt2 = ref.build_model(ref.GPT_CONFIG_124M, 123)
        hello = [15496, 11, 314, 716]
        cases = []
        for t, k, seed in [(1.4, 25, 123), (1.0, None, 123), (0.5, 50, 7)]:
            torch.manual_seed(seed)
            out = generate(gpt2, torch.tensor([hello]), 8, 1024, t, k)
            cases.append((t, k or 0, seed, -1, 8, out[0].tolist()))
        emit_generations(lines, "gpt124m_generations", cases, 14)
        lines.append("")
    lines.append("}  // namespace reference::sampling")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", os.path.abspath(args.out))


if __name__ == "__main__":
    main()
