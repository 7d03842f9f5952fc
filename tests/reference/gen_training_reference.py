#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/reference/training_reference.hpp (namespace reference::training): what torch 1.13
(CPU, no MKL: Debian's python3-torch) draws and computes in training mode, and the chapter-4
model variants, as fixtures for tests/training/ and tests/attention/dropout_test.cpp:

* nn.Dropout masks and values after torch.manual_seed, on float and double tensors of rank 2
  and 3 (a batch is drawn whole, in row-major order);
* CausalAttention and MultiHeadAttention (chapter 3) in training mode on a batch;
* TransformerBlock and GPTModel (chapter 4, tiny configurations) in training mode on a batch;
* nn.Linear(..., bias=False): its draws, and where it leaves the generator;
* a GPTModel without blocks, and one whose out_head shares tok_emb's weight (weight tying).

Values are hex-float literals so they round-trip exactly.
Regenerate with: /usr/bin/python3 tests/reference/gen_training_reference.py
"""
import os
import pathlib
import sys

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # before torch: see gpt_reference_model.py

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gpt_reference_model as ref  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/reference/training_reference.hpp"

CHAPTER_X = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]


class CausalAttention(nn.Module):
    """Chapter 3's CausalAttention."""

    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


def hexes(t):
    return [float(v).hex() for v in t.detach().flatten().tolist()]


def array(lines, name, values, ctype="double"):
    lines.append(f"inline constexpr {ctype} {name}[] = {{")
    for k in range(0, len(values), 4):
        lines.append("    " + ", ".join(values[k:k + 4]) + ",")
    lines.append("};")


def ints(lines, name, values):
    lines.append(f"inline constexpr int {name}[] = {{" + ", ".join(str(int(v)) for v in values) + "};")


def main():
    lines = []
    # Dropout on tensors: (name, seed, p, shape, dtype, input).
    torch.manual_seed(0)
    inputs3 = torch.rand(2, 3, 5) * 4 - 2
    cases = [
        ("ones6x6_p05", 123, 0.5, torch.ones(6, 6)),
        ("ones6x6_p03_seed99", 99, 0.3, torch.ones(6, 6)),
        ("rank3_p01", 7, 0.1, inputs3.clone()),
        ("rank3_p07", 2024, 0.7, inputs3.clone()),
        ("double4x4_p02", 5, 0.2, torch.ones(4, 4, dtype=torch.float64) * 3),
    ]
    lines.append("// nn.Dropout(p)(x) after torch.manual_seed(seed): the input, the output, and the")
    lines.append("// generator's next 32-bit draw after the call (torch.randint(2**32, ()) is not used:")
    lines.append("// torch.rand(1) of a fresh float tensor is its low 24 bits times 2^-24).")
    for name, seed, p, x in cases:
        torch.manual_seed(seed)
        y = nn.Dropout(p)(x)
        after = torch.rand(1).item()
        lines.append(f"// {name}: seed {seed}, p = {p}, shape {tuple(x.shape)}, {x.dtype}")
        array(lines, f"dropout_{name}_in", hexes(x))
        array(lines, f"dropout_{name}_out", hexes(y))
        lines.append(f"inline constexpr double dropout_{name}_rand_after = {float(after).hex()};")
    # p = 0 and p = 1 draw nothing.
    torch.manual_seed(3)
    nn.Dropout(0.0)(torch.ones(4, 4))
    nn.Dropout(1.0)(torch.ones(4, 4))
    lines.append("// torch.manual_seed(3); Dropout(0.0) and Dropout(1.0) of ones(4, 4); torch.rand(1)")
    lines.append(f"inline constexpr double dropout_p0_p1_rand_after = {torch.rand(1).item().hex()};")

    x = torch.tensor(CHAPTER_X)
    batch = torch.stack((x, x), dim=0)
    # CausalAttention(3, 2, 6, 0.5) and MultiHeadAttention(3, 4, 6, 0.5, heads 2), training mode.
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, 6, 0.5)
    lines.append("// torch.manual_seed(123); ca = CausalAttention(3, 2, 6, 0.5); ca(batch), batch the")
    lines.append("// chapter's inputs twice (2 x 6 x 3), in training mode")
    array(lines, "causal_batch_out", hexes(ca(batch)))
    torch.manual_seed(123)
    mha = ref.MultiHeadAttention(3, 4, 6, 0.5, num_heads=2)
    lines.append("// torch.manual_seed(123); MultiHeadAttention(3, 4, 6, 0.5, num_heads=2)(batch), training mode")
    array(lines, "mha_batch_out", hexes(mha(batch)))

    # TransformerBlock of a tiny configuration, training mode, on a batch of 2 x 5 x 16.
    cfg = dict(ref.TINY_CONFIG, drop_rate=0.3)
    torch.manual_seed(123)
    block = ref.TransformerBlock(cfg)
    xb = torch.rand(2, 5, 16)
    yb = block(xb)
    lines.append("// torch.manual_seed(123); block = TransformerBlock(tiny, drop_rate 0.3); x = torch.rand(2, 5, 16);")
    lines.append("// block(x), training mode")
    array(lines, "block_batch_out", hexes(yb))

    # GPTModel (tiny, drop_rate 0.1) in training mode on a batch, straight after construction.
    ids = torch.tensor([[1, 5, 9, 62, 7], [3, 3, 40, 0, 63]])
    ints(lines, "gpt_batch_ids", ids.flatten().tolist())
    torch.manual_seed(123)
    model = ref.GPTModel(ref.TINY_CONFIG)
    lines.append("// torch.manual_seed(123); model = GPTModel(tiny); model(ids), training mode")
    array(lines, "gpt_train_batch_out", hexes(model(ids)))
    model.eval()
    lines.append("// the same model in evaluation mode")
    array(lines, "gpt_eval_batch_out", hexes(model(ids)))

    # nn.Linear(5, 3, bias=False): its weight and the next draw.
    torch.manual_seed(123)
    lin = nn.Linear(5, 3, bias=False)
    after = torch.rand(1).item()
    lines.append("// torch.manual_seed(123); nn.Linear(5, 3, bias=False).weight (3 x 5); torch.rand(1)")
    array(lines, "linear_no_bias_weight", hexes(lin.weight))
    lines.append(f"inline constexpr double linear_no_bias_rand_after = {float(after).hex()};")
    xin = torch.tensor([[0.5, -1.0, 2.0, 0.25, -0.75]])
    lines.append("// lin([[0.5, -1.0, 2.0, 0.25, -0.75]])")
    array(lines, "linear_no_bias_out", hexes(lin(xin)))

    # A GPT without blocks, and one with tied weights, in evaluation mode.
    torch.manual_seed(123)
    blockless = ref.GPTModel(dict(ref.TINY_CONFIG, n_layers=0))
    blockless.eval()
    after = torch.rand(1).item()
    lines.append("// torch.manual_seed(123); GPTModel(tiny with n_layers 0); eval; then torch.rand(1); model(ids)")
    lines.append(f"inline constexpr double gpt_blockless_rand_after = {float(after).hex()};")
    array(lines, "gpt_blockless_eval_out", hexes(blockless(ids)))
    lines.append(f"inline constexpr long gpt_blockless_parameter_count = {ref.parameter_count(blockless)};")
    torch.manual_seed(123)
    tied = ref.GPTModel(ref.TINY_CONFIG)
    tied.out_head.weight = tied.tok_emb.weight
    tied.eval()
    after = torch.rand(1).item()
    lines.append("// torch.manual_seed(123); model = GPTModel(tiny); model.out_head.weight = model.tok_emb.weight;")
    lines.append("// eval; torch.rand(1); model(ids); sum(p.numel() for p in model.parameters())")
    lines.append(f"inline constexpr double gpt_tied_rand_after = {float(after).hex()};")
    array(lines, "gpt_tied_eval_out", hexes(tied(ids)))
    lines.append(f"inline constexpr long gpt_tied_parameter_count = {ref.parameter_count(tied)};")
    generated = ref.generate_text_simple(tied, torch.tensor([[5, 17, 42]]), 4, 8)
    lines.append("// generate_text_simple(tied, [[5, 17, 42]], max_new_tokens=4, context_size=8)")
    ints(lines, "gpt_tied_generated", generated.flatten().tolist())
    tied.train()
    torch.manual_seed(5)
    lines.append("// tied.train(); torch.manual_seed(5); tied(ids)")
    array(lines, "gpt_tied_train_out", hexes(tied(ids)))

    header = [
        "// SPDX-License-Identifier: BSL-1.0",
        "// Generated by tests/reference/gen_training_reference.py with torch "
        f"{torch.__version__} (CPU, MKL {'on' if torch.backends.mkl.is_available() else 'off'}); do not edit.",
        "#pragma once",
        "",
        "namespace reference::training {",
        "",
    ]
    OUT.write_text("\n".join(header + lines + ["", "}  // namespace reference::training", ""]))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
