#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/print/print_rank_reference.hpp (namespace reference::print_rank): what torch 1.13
prints for 0-d, 1-d and 4-d float32 tensors (`tensor(1.)`, `tensor([0.4419, ...])`, summarised
vectors, scientific notation, a (b, heads, tokens, head_dim) tensor) and for their shapes
(`torch.Size([...])`). Values are stored as hex floats, so they round-trip exactly.
Regenerate with: /usr/bin/python3 tests/reference/gen_book_print_reference.py
"""
import pathlib

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/print/print_rank_reference.hpp"


def cases():
    g = torch.Generator().manual_seed(7)
    yield "scalar_one", torch.tensor(1.0)
    yield "scalar_value", torch.tensor(0.9544)
    yield "scalar_tiny", torch.tensor(-5.9605e-08)
    yield "scalar_big", torch.tensor(1.5e10)
    yield "scalar_negative_zero", torch.tensor(-0.0)
    yield "scalar_nan", torch.tensor(float("nan"))
    yield "vector_context", torch.tensor([0.4419, 0.6515, 0.5683])
    yield "vector_ones", torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0]) + torch.tensor([0, 1e-7, 0, 0, -1e-7, 0])
    yield "vector_whole", torch.tensor([2.0, 0.0, -3.0])
    yield "vector_wide", torch.tensor([1e-5, 3.0, 2e4])
    yield "vector_long", torch.randn(40, generator=g)
    yield "vector_summarised", torch.randn(2000, generator=g)
    yield "tensor4_heads", torch.randn(1, 2, 3, 3, generator=g)
    yield "tensor4_batch", torch.randn(2, 2, 2, 3, generator=g)
    yield "tensor4_summarised", torch.randn(2, 3, 4, 50, generator=g)


# The book's modules (ch04), enough of them for their repr: TransformerBlock and its parts.
class LayerNorm(torch.nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = torch.nn.Parameter(torch.ones(emb_dim))
        self.shift = torch.nn.Parameter(torch.zeros(emb_dim))


class GELU(torch.nn.Module):  # the book's own GELU (tanh approximation): repr GELU()
    pass


class FeedForward(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                          torch.nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))


class MultiHeadAttention(torch.nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.W_query = torch.nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = torch.nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = torch.nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = torch.nn.Linear(d_out, d_out)
        self.dropout = torch.nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))


class TransformerBlock(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"], cfg["drop_rate"],
                                      cfg["n_heads"], cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = torch.nn.Dropout(cfg["drop_rate"])


class GPTModel(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = torch.nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = torch.nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = torch.nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = torch.nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = torch.nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)


def modules():
    cfg = {"emb_dim": 8, "context_length": 6, "drop_rate": 0.25, "n_heads": 2, "qkv_bias": True}
    block = TransformerBlock(cfg)
    yield "block_8", block, sum(p.numel() for p in block.parameters())
    yield "attention_8", block.att, sum(p.numel() for p in block.att.parameters())
    yield "feed_forward_8", block.ff, sum(p.numel() for p in block.ff.parameters())
    yield "linear_5_6", torch.nn.Linear(5, 6), 36
    yield "layer_norm_8", block.norm1, sum(p.numel() for p in block.norm1.parameters())
    yield "linear_5_6_no_bias", torch.nn.Linear(5, 6, bias=False), 30
    yield "embedding_10_8", torch.nn.Embedding(10, 8), 80
    gpt = GPTModel({**cfg, "vocab_size": 10, "n_layers": 2})
    yield "gpt_tiny", gpt, sum(p.numel() for p in gpt.parameters())


def grad_cases():
    g = torch.Generator().manual_seed(9)
    x = torch.randn(6, 6, generator=g).requires_grad_()
    yield "grad_softmax", "SoftmaxBackward0", torch.softmax(x, dim=-1)
    yield "grad_short", "MulBackward0", x[:2, :2] * 2
    yield "grad_double", "MulBackward0", x[:2, :3].double() * 2


def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    lines = ["// SPDX-License-Identifier: BSL-1.0",
             "// Generated by tests/reference/gen_book_print_reference.py from torch " + torch.__version__ +
             ": do not edit.",
             "#pragma once", "", "namespace reference::print_rank {", ""]
    for name, t in cases():
        vals = ", ".join(float(v).hex() + "f" if v == v and abs(v) != float("inf") else
                         ("__builtin_nanf(\"\")" if v != v else ("-" if v < 0 else "") + "__builtin_inff()")
                         for v in t.flatten().tolist())
        lines.append(f"/// {name}: shape {list(t.shape)}.")
        lines.append(f"inline constexpr float {name}_values[] = {{{vals}}};")
        lines.append(f"inline constexpr const char* {name}_text = {cpp_string(str(t))};")
        lines.append(f"inline constexpr const char* {name}_shape = {cpp_string(str(t.shape))};")
        lines.append("")
    for name, grad_fn, t in grad_cases():
        vals = ", ".join(float(v).hex() for v in t.detach().flatten().tolist())
        lines.append(f"/// {name}: shape {list(t.shape)}, grad_fn {grad_fn}.")
        lines.append(f"inline constexpr double {name}_values[] = {{{vals}}};")
        lines.append(f"inline constexpr const char* {name}_text = {cpp_string(str(t))};")
        lines.append("")
    for name, module, count in modules():
        lines.append(f"/// print({type(module).__name__}(...)) and its parameter count.")
        lines.append(f"inline constexpr const char* {name}_repr = {cpp_string(str(module))};")
        lines.append(f"inline constexpr unsigned long {name}_parameters = {count};")
        lines.append("")
    lines += ["}  // namespace reference::print_rank", ""]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
