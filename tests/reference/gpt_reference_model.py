#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""The chapter-4 GPT of "Build a Large Language Model (From Scratch)" (Raschka), as PyTorch modules.

The reference for the C++ GPT: the modules are written to match the book's definitions exactly
(module and parameter names, creation order -- which fixes the order of the random draws under
torch.manual_seed --, and every arithmetic step of the forward passes), so that a model built
here after torch.manual_seed(seed) has the book's weights and the book's outputs.

Imported by tests/reference/gen_gpt_reference.py and tools/export_state_dict.py; not run on its own.

CPU capability: torch's normal_ (nn.Embedding's initialisation) and its vectorised kernels
depend on the CPU capability torch dispatches to. The C++ side reproduces torch 1.13's AVX2
path, so every script importing this module must set ATEN_CPU_CAPABILITY=avx2 in os.environ
*before* importing torch (torch reads it once, at its first dispatched kernel), e.g.

    import os
    os.environ["ATEN_CPU_CAPABILITY"] = "avx2"
    import gpt_reference_model as ref

build_model() calls check_cpu_capability() and refuses to build a model otherwise.
"""
import contextlib
import re

import torch
import torch.nn as nn

# The book's 124M-parameter GPT-2 configuration.
GPT_CONFIG_124M = {
    "vocab_size": 50257,
    "context_length": 1024,
    "emb_dim": 768,
    "n_heads": 12,
    "n_layers": 12,
    "drop_rate": 0.1,
    "qkv_bias": False,
}

# The tiny configurations of the C++ tests (the prompts fit their context of 8 tokens).
TINY_CONFIG = {"vocab_size": 64, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
               "drop_rate": 0.1, "qkv_bias": False}
TINY_BIAS3_CONFIG = {"vocab_size": 64, "context_length": 8, "emb_dim": 18, "n_heads": 3, "n_layers": 2,
                     "drop_rate": 0.1, "qkv_bias": True}

CONFIGS = {"tiny": TINY_CONFIG, "tiny_bias3": TINY_BIAS3_CONFIG, "gpt2-124m": GPT_CONFIG_124M}

REQUIRED_CPU_CAPABILITY = "AVX2"


# ---- CPU capability and dtype helpers ------------------------------------------------------

def cpu_capability():
    """The capability torch dispatches to, as torch reports it ("AVX2", "AVX512", "NO AVX", ...)."""
    match = re.search(r"CPU capability usage: (.+)", torch.__config__.show())
    return match.group(1).strip() if match else "unknown"


def check_cpu_capability(expected=REQUIRED_CPU_CAPABILITY):
    got = cpu_capability()
    if got != expected:
        raise RuntimeError(f"torch dispatches to {got}, the references need {expected}: set "
                           f"os.environ['ATEN_CPU_CAPABILITY'] = '{expected.lower()}' before importing torch")


@contextlib.contextmanager
def default_dtype(dtype):
    """torch.set_default_dtype(dtype) for the block, restored afterwards.

    Both the construction (the dtype of the random draws) and the forward pass (GELU's
    torch.tensor(2.0 / torch.pi) is made in the default dtype) depend on it."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


# ---- Chapter 3: multi-head attention ---------------------------------------------------------

class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        if d_out % num_heads != 0:
            raise ValueError("d_out must be a multiple of num_heads")
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        # Creation order fixes the order of the initialisation draws: query, key, value, out_proj.
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        batch, tokens, _ = x.shape

        def split_heads(t):  # (b, n, d_out) -> (b, heads, n, head_dim)
            return t.view(batch, tokens, self.num_heads, self.head_dim).transpose(1, 2)

        keys = split_heads(self.W_key(x))
        queries = split_heads(self.W_query(x))
        values = split_heads(self.W_value(x))

        scores = queries @ keys.transpose(2, 3)
        scores.masked_fill_(self.mask.bool()[:tokens, :tokens], -torch.inf)
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        weights = self.dropout(weights)

        context = (weights @ values).transpose(1, 2).contiguous().view(batch, tokens, self.d_out)
        return self.out_proj(context)


# ---- Chapter 4 -------------------------------------------------------------------------------

class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        normalized = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * normalized + self.shift


class GELU(nn.Module):
    """The tanh approximation, with sqrt(2/pi) computed as a tensor of the default dtype."""

    def forward(self, x):
        sqrt_2_over_pi = torch.sqrt(torch.tensor(2.0 / torch.pi))
        return 0.5 * x * (1 + torch.tanh(sqrt_2_over_pi * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        emb = cfg["emb_dim"]
        self.layers = nn.Sequential(nn.Linear(emb, 4 * emb), GELU(), nn.Linear(4 * emb, emb))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        # Creation order (and so draw order): att, ff, norm1, norm2, drop_shortcut.
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"],
                                      context_length=cfg["context_length"], dropout=cfg["drop_rate"],
                                      num_heads=cfg["n_heads"], qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        x = x + self.drop_shortcut(self.att(self.norm1(x)))
        x = x + self.drop_shortcut(self.ff(self.norm2(x)))
        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, idx):
        _, tokens = idx.shape
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(tokens, device=idx.device))
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


def generate_text_simple(model, idx, max_new_tokens, context_size):
    """Greedy decoding: append the argmax of the last position's softmax, max_new_tokens times,
    looking at no more than the last context_size tokens."""
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


# ---- Construction ----------------------------------------------------------------------------

def build_model(cfg, seed, dtype=torch.float32, capability=REQUIRED_CPU_CAPABILITY):
    """torch.manual_seed(seed); GPTModel(cfg) with `dtype` as the default dtype; model.eval().

    Run the model's forward passes inside default_dtype(dtype) as well (see default_dtype).
    capability=None skips the CPU-capability check (only for comparing capabilities)."""
    if capability is not None:
        check_cpu_capability(capability)
    with default_dtype(dtype):
        torch.manual_seed(seed)
        model = GPTModel(cfg)
    model.eval()
    return model


def parameter_count(model):
    return sum(p.numel() for p in model.parameters())
