#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/book/expected/<id>.torch1.13.txt: what torch 1.13 (CPU) prints for the notebook
cells whose stored output (torch 2.x) it does not reproduce. The code is the cells' own, from
chapter 4's notebook (ch04.ipynb, cells 22 to 35, cell 16: DummyGPTModel in training mode, and
cells 55 and 57: the shortcut demo's gradients). tests/book/notebook_test.cpp compares against
these files where they exist; docs/book-outputs.md lists both texts.
Regenerate with: /usr/bin/python3 tests/reference/gen_book_torch113.py
"""
import contextlib
import io
import os
import pathlib

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # before torch: nn.Embedding's normal_ (gpt_reference_model.py)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/book/expected"


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


def cells():
    torch.manual_seed(123)
    batch_example = torch.randn(2, 5)
    layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())
    out = layer(batch_example)
    mean = out.mean(dim=-1, keepdim=True)
    var = out.var(dim=-1, keepdim=True)
    out_norm = (out - mean) / torch.sqrt(var)
    mean = out_norm.mean(dim=-1, keepdim=True)
    var = out_norm.var(dim=-1, keepdim=True)
    with capture("ch04_c028"):
        print("Normalized layer outputs:\n", out_norm)
        print("Mean:\n", mean)
        print("Variance:\n", var)
    torch.set_printoptions(sci_mode=False)
    with capture("ch04_c030"):
        print("Mean:\n", mean)
        print("Variance:\n", var)
    ln = LayerNorm(emb_dim=5)
    out_ln = ln(batch_example)
    mean = out_ln.mean(dim=-1, keepdim=True)
    var = out_ln.var(dim=-1, unbiased=False, keepdim=True)
    with capture("ch04_c035"):
        print("Mean:\n", mean)
        print("Variance:\n", var)
    torch.set_printoptions(profile="default")


class DummyGPTModel(nn.Module):
    """Chapter 4's placeholder GPT: its blocks and final norm are identities without parameters."""

    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        _, seq_len = in_idx.shape
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        return self.out_head(self.drop_emb(x))


def dummy_gpt_cell():
    cfg = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
           "drop_rate": 0.1, "qkv_bias": False}
    batch = torch.tensor([[6109, 3626, 6100, 345], [6109, 1110, 6622, 257]])  # the tokenizer's ids
    torch.manual_seed(123)
    model = DummyGPTModel(cfg)
    logits = model(batch)
    with capture("ch04_c016"):
        print("Output shape:", logits.shape)
        print(logits)


class GELU(nn.Module):
    """The book's GELU: the tanh approximation."""

    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class ExampleDeepNeuralNetwork(nn.Module):
    """Chapter 4's shortcut demo: Linear + GELU layers, x added back where the shapes match."""

    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(i, o), GELU())
                                     for i, o in zip(layer_sizes[:-1], layer_sizes[1:])])

    def forward(self, x):
        for layer in self.layers:
            out = layer(x)
            x = x + out if self.use_shortcut and x.shape == out.shape else out
        return x


def gradient_cells():
    sample_input = torch.tensor([[1., 0., -1.]])
    for cell_id, use_shortcut in (("ch04_c055", False), ("ch04_c057", True)):
        torch.manual_seed(123)
        model = ExampleDeepNeuralNetwork([3, 3, 3, 3, 3, 1], use_shortcut)
        loss = nn.MSELoss()(model(sample_input), torch.tensor([[0.]]))
        loss.backward()
        with capture(cell_id):
            for name, param in model.named_parameters():
                if "weight" in name:
                    print(f"{name} has gradient mean of {param.grad.abs().mean().item()}")


@contextlib.contextmanager
def capture(cell_id):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        yield
    path = OUT / f"{cell_id}.torch1.13.txt"
    path.write_text(buffer.getvalue())
    print(f"wrote {path}")


if __name__ == "__main__":
    cells()
    dummy_gpt_cell()
    gradient_cells()
