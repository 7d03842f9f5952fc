#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes the weights of examples/embedded_attention.cpp, and the output torch computes with them.

* examples/weights/*.npy: a MultiHeadAttention(d_in=16, d_out=16, context_length=32, dropout=0,
  num_heads=4) in nn.Linear layout, drawn with numpy as nn.Linear draws them (uniform in
  +-1/sqrt(fan_in)): W_query.weight, W_key.weight, W_value.weight (16 x 16, out x in),
  out_proj.weight (16 x 16) and out_proj.bias (16,); the example's input (8 tokens x 16); and
  expected.npy, what the chapter's MultiHeadAttention class (copied below: causal mask,
  1/sqrt(head_dim) scaling, out_proj) computes for that input in float32 with torch 1.13.
* tests/package/consumer/weights/inputs.npy: the chapter's six-token input, which the package
  consumer embeds with static_attention_embed_weights after find_package.

static_attention_embed_weights turns each file into a constexpr matrix at build time; the .npy
files are checked in, so building needs neither python nor numpy.
Regenerate with: /usr/bin/python3 tests/reference/gen_embedded_weights.py
"""
import pathlib

import numpy as np
import torch

from gen_attention_reference import MultiHeadAttention  # the chapter's class, written once

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "examples/weights"
CONSUMER_OUT = ROOT / "tests/package/consumer/weights"

D_IN, D_OUT, HEADS, CONTEXT, TOKENS = 16, 16, 4, 32, 8


def linear_uniform(rng, shape, fan_in):
    """nn.Linear's default range, +-1/sqrt(fan_in), drawn by numpy, as float32."""
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def save(path, array):
    np.save(path, np.ascontiguousarray(array, dtype=np.float32))


def main():
    rng = np.random.default_rng(20240613)
    weights = {
        "w_query": linear_uniform(rng, (D_OUT, D_IN), D_IN),
        "w_key": linear_uniform(rng, (D_OUT, D_IN), D_IN),
        "w_value": linear_uniform(rng, (D_OUT, D_IN), D_IN),
        "out_proj_weight": linear_uniform(rng, (D_OUT, D_OUT), D_OUT),
        "out_proj_bias": linear_uniform(rng, (D_OUT,), D_OUT),
    }
    inputs = rng.uniform(0.0, 1.0, size=(TOKENS, D_IN)).astype(np.float32)

    mha = MultiHeadAttention(D_IN, D_OUT, CONTEXT, 0.0, HEADS)
    with torch.no_grad():
        mha.W_query.weight.copy_(torch.from_numpy(weights["w_query"]))
        mha.W_key.weight.copy_(torch.from_numpy(weights["w_key"]))
        mha.W_value.weight.copy_(torch.from_numpy(weights["w_value"]))
        mha.out_proj.weight.copy_(torch.from_numpy(weights["out_proj_weight"]))
        mha.out_proj.bias.copy_(torch.from_numpy(weights["out_proj_bias"]))
        mha.eval()
        expected = mha(torch.from_numpy(inputs).unsqueeze(0))[0].numpy()

    OUT.mkdir(parents=True, exist_ok=True)
    for name, array in weights.items():
        save(OUT / f"{name}.npy", array)
    save(OUT / "inputs.npy", inputs)
    save(OUT / "expected.npy", expected)

    CONSUMER_OUT.mkdir(parents=True, exist_ok=True)
    chapter_inputs = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                      [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]
    save(CONSUMER_OUT / "inputs.npy", np.array(chapter_inputs, dtype=np.float32))


if __name__ == "__main__":
    main()
