#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes the attention references, with torch 1.13 (CPU) as the independent reference:

* tests/reference/chapter_reference.hpp (namespace reference::chapter): the numbers of the chapter
  "Coding attention mechanisms" (Raschka, Build a Large Language Model (From Scratch), ch. 3),
  computed in float32 on the chapter's six-token input with the chapter's own module classes
  (copied below) and seeds.
* tests/reference/attention_reference.hpp (namespace reference::attention): randomized cases
  of simplified attention, self-attention, causal attention and multi-head attention, computed by
  the same classes in float64 and in float32.

Values are hex-float literals so they round-trip exactly.
Regenerate with: /usr/bin/python3 tests/reference/gen_attention_reference.py
"""
import pathlib

import numpy as np
import torch
import torch.nn as nn

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHAPTER_OUT = ROOT / "tests/reference/chapter_reference.hpp"
ATTENTION_OUT = ROOT / "tests/reference/attention_reference.hpp"

# The chapter's input: six tokens ("Your journey starts with one step") of three features.
CHAPTER_X = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
             [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]

# Randomized cases: (batch, tokens, d_in, d_out, heads), d_out % heads == 0.
CASES = [(1, 1, 1, 1, 1), (1, 6, 3, 2, 1), (2, 5, 7, 6, 3), (3, 13, 5, 8, 4),
         (2, 17, 11, 4, 2), (1, 33, 1, 5, 5), (4, 9, 16, 24, 8), (4, 64, 64, 64, 8)]


# ---- The chapter's classes, as the chapter defines them ------------------------------------

class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(-2, -1)  # .T in the chapter (2-D input only)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = attn_weights @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


# ---- Output helpers ---------------------------------------------------------------------------

def hexf(v):
    """Shortest exact hex literal: float.hex() without the mantissa's trailing zeros."""
    h = float(v).hex()
    if "." in h:
        mant, exp = h.split("p")
        mant = mant.rstrip("0").rstrip(".")
        h = f"{mant}p{exp}"
    return h


def values_of(t):
    if isinstance(t, torch.Tensor):
        t = t.detach().to(torch.float64).numpy()
    return np.asarray(t, dtype=np.float64).ravel()


def arr(name, t, prefix="inline constexpr", comment=None):
    body = ", ".join(hexf(v) for v in values_of(t))
    line = f"{prefix} double {name}[] = {{{body}}};\n"
    return (f"// {comment}\n" if comment else "") + line


def check_close(got, printed, name):
    got = values_of(got)[:len(printed)]
    assert np.allclose(got, printed, atol=5e-5), f"{name}: {got} vs the chapter's {printed}"


# ---- chapter_reference.hpp ----------------------------------------------------------------

def chapter():
    x = torch.tensor(CHAPTER_X, dtype=torch.float32)
    batch = torch.stack((x, x), dim=0)
    out = ["// Generated by tests/reference/gen_attention_reference.py from torch 1.13 (float32); do not edit.\n",
           "// Regenerate with: /usr/bin/python3 tests/reference/gen_attention_reference.py\n",
           "//\n// The chapter \"Coding attention mechanisms\" (Raschka, LLMs from scratch, ch. 3), step by\n",
           "// step: float32 results widened to double, row-major. Batched results are 2 x 6 x d, the\n",
           "// chapter's batch = torch.stack((x, x)). Weights of nn.Linear are d_out x d_in.\n",
           "#pragma once\n\n#include <cstddef>\n\nnamespace reference::chapter {\n\n",
           "inline constexpr std::size_t tokens = 6, d_in = 3, d_out = 2, batch = 2, context_length = 6,\n",
           "                             num_heads = 2;\n\n"]
    out.append(arr("x", x, comment="The input: 6 tokens x 3 features (as float32)."))

    # 3.3.1-3.3.2: simplified self-attention without trainable weights.
    with torch.no_grad():
        attn_scores = x @ x.T
        attn_weights = torch.softmax(attn_scores, dim=-1)
        context_vecs = attn_weights @ x
    check_close(context_vecs[1], [0.4419, 0.6515, 0.5683], "simplified context_vecs[1]")
    out.append("\n// Simplified self-attention: scores = x x^T (6 x 6), softmax over rows, context = weights x.\n")
    out += [arr("simplified_attn_scores", attn_scores), arr("simplified_attn_weights", attn_weights),
            arr("simplified_context_vecs", context_vecs)]

    # 3.4.2: SelfAttention_v1 with torch.rand weights.
    torch.manual_seed(123)
    v1 = SelfAttention_v1(3, 2)
    with torch.no_grad():
        keys, queries, values = x @ v1.W_key, x @ v1.W_query, x @ v1.W_value
        v1_scores = queries @ keys.T
        v1_weights = torch.softmax(v1_scores / keys.shape[-1]**0.5, dim=-1)
        v1_out = v1(x)
    check_close(v1.W_query, [0.2961, 0.5166, 0.2517, 0.6886, 0.0740, 0.8665], "v1 W_query")
    check_close(v1_out, [0.2996, 0.8053, 0.3061, 0.8210], "v1 output")
    out.append("\n// SelfAttention_v1 after torch.manual_seed(123): W_query, W_key, W_value = torch.rand(3, 2)\n"
               "// in that order (d_in x d_out); scores = (x Wq)(x Wk)^T, weights = softmax(scores / sqrt(2)),\n"
               "// context = weights (x Wv).\n")
    out += [arr("v1_w_query", v1.W_query), arr("v1_w_key", v1.W_key), arr("v1_w_value", v1.W_value),
            arr("v1_attn_scores", v1_scores), arr("v1_attn_weights", v1_weights), arr("v1_context", v1_out)]

    # 3.4.2: SelfAttention_v2 with nn.Linear weights.
    torch.manual_seed(789)
    v2 = SelfAttention_v2(3, 2)
    with torch.no_grad():
        queries, keys, values = v2.W_query(x), v2.W_key(x), v2.W_value(x)
        v2_scores = queries @ keys.T
        v2_weights = torch.softmax(v2_scores / keys.shape[-1]**0.5, dim=-1)
        v2_out = v2(x)
    check_close(v2_out, [-0.0739, 0.0713, -0.0748, 0.0703], "v2 output")
    out.append("\n// SelfAttention_v2 after torch.manual_seed(789): query, key, value = nn.Linear(3, 2,\n"
               "// bias=False) in that order (weights 2 x 3); weights = softmax(q k^T / sqrt(2)).\n")
    out += [arr("v2_w_query", v2.W_query.weight), arr("v2_w_key", v2.W_key.weight),
            arr("v2_w_value", v2.W_value.weight), arr("v2_attn_scores", v2_scores),
            arr("v2_attn_weights", v2_weights), arr("v2_context", v2_out)]

    # 3.5.1: causal masks on the v2 scores.
    with torch.no_grad():
        context_length = v2_scores.shape[0]
        mask_simple = torch.tril(torch.ones(context_length, context_length))
        masked_simple = v2_weights * mask_simple
        row_sums = masked_simple.sum(dim=-1, keepdim=True)
        masked_simple_norm = masked_simple / row_sums
        mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
        masked = v2_scores.masked_fill(mask.bool(), -torch.inf)
        causal_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
        causal_context = causal_weights @ values
        simple_context = masked_simple_norm @ values
    check_close(masked_simple_norm[1], [0.5517, 0.4483], "simple mask row 1")
    check_close(causal_weights[1], [0.5517, 0.4483], "causal weights row 1")
    out.append("\n// Causal attention with the v2 weights. The -inf route: scores above the diagonal set to\n"
               "// -inf before softmax. The chapter's simple route: softmax, zero above the diagonal, divide\n"
               "// each row by its sum. Both give the same weights up to rounding.\n")
    out += [arr("causal_attn_weights", causal_weights), arr("causal_context", causal_context),
            arr("simple_mask_attn_weights", masked_simple_norm), arr("simple_mask_context", simple_context)]

    # 3.5.3: the CausalAttention module on the batch.
    torch.manual_seed(123)
    ca = CausalAttention(3, 2, batch.shape[1], 0.0)
    with torch.no_grad():
        ca_out = ca(batch)
    check_close(ca_out, [-0.4519, 0.2216, -0.5874, 0.0058], "CausalAttention output")
    out.append("\n// CausalAttention(3, 2, context_length=6, dropout=0.0) after torch.manual_seed(123), on the\n"
               "// batch; output 2 x 6 x 2.\n")
    out += [arr("causal_module_w_query", ca.W_query.weight), arr("causal_module_w_key", ca.W_key.weight),
            arr("causal_module_w_value", ca.W_value.weight), arr("causal_module_context", ca_out)]

    # 3.6.1: MultiHeadAttentionWrapper.
    torch.manual_seed(123)
    wrapper = MultiHeadAttentionWrapper(3, 2, batch.shape[1], 0.0, num_heads=2)
    with torch.no_grad():
        wrapper_out = wrapper(batch)
    check_close(wrapper_out, [-0.4519, 0.2216, 0.4772, 0.1063], "MultiHeadAttentionWrapper output")
    out.append("\n// MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2) after torch.manual_seed(123): two\n"
               "// CausalAttention heads, initialised head 0 then head 1; output 2 x 6 x 4 (heads side by side).\n")
    for h, head in enumerate(wrapper.heads):
        out += [arr(f"wrapper_head{h}_w_query", head.W_query.weight), arr(f"wrapper_head{h}_w_key", head.W_key.weight),
                arr(f"wrapper_head{h}_w_value", head.W_value.weight)]
    out.append(arr("wrapper_context", wrapper_out))

    # 3.6.2: MultiHeadAttention.
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 2, batch.shape[1], 0.0, num_heads=2)
    with torch.no_grad():
        mha_out = mha(batch)
    check_close(mha_out, [0.3190, 0.4858, 0.2943, 0.3897], "MultiHeadAttention output")
    out.append("\n// MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) after torch.manual_seed(123): W_query,\n"
               "// W_key, W_value (2 x 3), then out_proj (weight 2 x 2, bias 2); head_dim = 1; output 2 x 6 x 2.\n")
    out += [arr("mha_w_query", mha.W_query.weight), arr("mha_w_key", mha.W_key.weight),
            arr("mha_w_value", mha.W_value.weight), arr("mha_out_proj_weight", mha.out_proj.weight),
            arr("mha_out_proj_bias", mha.out_proj.bias), arr("mha_context", mha_out)]
    out.append("\n}  // namespace reference::chapter\n")
    CHAPTER_OUT.write_text("".join(out))


# ---- attention_reference.hpp --------------------------------------------------------------

def load_linear(lin, weight, bias=None):
    with torch.no_grad():
        lin.weight.copy_(weight)
        if bias is not None:
            lin.bias.copy_(bias)


def run_case(x, wq, wk, wv, w_out, b_out, heads, dtype):
    """simplified, self_attention, causal, mha for one precision; inputs are float64 tensors."""
    x, wq, wk, wv, w_out, b_out = (t.to(dtype) for t in (x, wq, wk, wv, w_out, b_out))
    b, n, d_in = x.shape
    d_out = wq.shape[0]
    with torch.no_grad():
        simplified = torch.softmax(x @ x.transpose(1, 2), dim=-1) @ x
        sa = SelfAttention_v2(d_in, d_out).to(dtype)
        ca = CausalAttention(d_in, d_out, n, 0.0).to(dtype)
        mha = MultiHeadAttention(d_in, d_out, n, 0.0, num_heads=heads).to(dtype)
        for module in (sa, ca, mha):
            load_linear(module.W_query, wq)
            load_linear(module.W_key, wk)
            load_linear(module.W_value, wv)
        load_linear(mha.out_proj, w_out, b_out)
        return {"simplified": simplified, "self_attention": sa(x), "causal": ca(x), "mha": mha(x)}


def attention():
    rng = np.random.default_rng(20261130)
    out = ["// Generated by tests/reference/gen_attention_reference.py from torch 1.13; do not edit.\n",
           "// Regenerate with: /usr/bin/python3 tests/reference/gen_attention_reference.py\n",
           "//\n// Randomized attention cases. Each case_k holds the shapes, the inputs (x uniform in [0, 1);\n",
           "// weights uniform in +-1/sqrt(fan_in) like nn.Linear, d_out x d_in / d_out x d_out) and\n",
           "// torch's results, row-major:\n",
           "//   simplified      B x N x d_in   softmax(x x^T) x per batch item\n",
           "//   self_attention  B x N x d_out  softmax(Q K^T / sqrt(d_out)) V, Q = x wq^T, K = x wk^T, V = x wv^T\n",
           "//   causal          B x N x d_out  the same with the causal mask (-inf above the diagonal)\n",
           "//   mha             B x N x d_out  the chapter's MultiHeadAttention: head_dim = d_out / heads,\n",
           "//                                  causal mask, scale 1/sqrt(head_dim), out_proj = w_out, b_out\n",
           "// computed by torch in float64 (plain names) and in float32 (suffix _f32, float32 results\n",
           "// widened to double). The inputs are drawn as float32 values, so the float64 and float32\n",
           "// computations start from the same numbers: x_f32 and the other *_f32 inputs are the same\n",
           "// arrays as x, wq, ... (references), kept so that float tests read *_f32 throughout.\n",
           "#pragma once\n\n#include <cstddef>\n\n#include <boost/hana/tuple.hpp>\n#include <boost/hana/type.hpp>\n\n",
           "namespace reference::attention {\n"]
    report = []
    for k, (bsz, n, d_in, d_out, heads) in enumerate(CASES):
        assert d_out % heads == 0
        f32 = lambda a: torch.from_numpy(a.astype(np.float32).astype(np.float64))
        x = f32(rng.uniform(0.0, 1.0, (bsz, n, d_in)))
        bound_in, bound_out = 1 / np.sqrt(d_in), 1 / np.sqrt(d_out)
        wq, wk, wv = (f32(rng.uniform(-bound_in, bound_in, (d_out, d_in))) for _ in range(3))
        w_out = f32(rng.uniform(-bound_out, bound_out, (d_out, d_out)))
        b_out = f32(rng.uniform(-bound_out, bound_out, (d_out,)))
        r64 = run_case(x, wq, wk, wv, w_out, b_out, heads, torch.float64)
        r32 = run_case(x, wq, wk, wv, w_out, b_out, heads, torch.float32)
        member = "  static constexpr"
        out.append(f"\n/// B={bsz}, N={n}, d_in={d_in}, d_out={d_out}, heads={heads}.\n"
                   f"struct case_{k} {{\n"
                   f"  static constexpr std::size_t batch = {bsz}, tokens = {n}, d_in = {d_in}, d_out = {d_out},\n"
                   f"                               heads = {heads};\n")
        inputs = {"x": x, "wq": wq, "wk": wk, "wv": wv, "w_out": w_out, "b_out": b_out}
        for name, t in inputs.items():
            out.append(arr(name, t, prefix=member))
        for name in inputs:
            out.append(f"  static constexpr const auto& {name}_f32 = {name};\n")
        for name in ("simplified", "self_attention", "causal", "mha"):
            out.append(arr(name, r64[name], prefix=member))
        for name in ("simplified", "self_attention", "causal", "mha"):
            out.append(arr(f"{name}_f32", r32[name], prefix=member))
        out.append("};\n")
        diffs = {name: float((r32[name].to(torch.float64) - r64[name]).abs().max()) for name in r64}
        report.append((k, (bsz, n, d_in, d_out, heads), diffs))
    names = ", ".join(f"case_{k}" for k in range(len(CASES)))
    out.append(f"\n/// Every case, for hana::for_each.\ninline constexpr auto cases = boost::hana::tuple_t<{names}>;\n")
    out.append("\n}  // namespace reference::attention\n")
    ATTENTION_OUT.write_text("".join(out))
    print("max |float32 - float64| per case:")
    for k, shape, diffs in report:
        print(f"  case_{k} {shape}: " + ", ".join(f"{name} {d:.3g}" for name, d in diffs.items()))


def main():
    chapter()
    attention()
    for path in (CHAPTER_OUT, ATTENTION_OUT):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
