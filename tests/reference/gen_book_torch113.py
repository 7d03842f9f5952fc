#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/book/expected/<id>.torch1.13.txt: what torch 1.13 (CPU) prints for the notebook
cells whose stored output (torch 2.x) it does not reproduce. The code is the cells' own, from
chapter 4's notebook (ch04.ipynb, cells 22 to 35). tests/book/notebook_test.cpp compares against
these files where they exist; docs/book-outputs.md lists both texts.
Regenerate with: /usr/bin/python3 tests/reference/gen_book_torch113.py
"""
import contextlib
import io
import pathlib

import torch
import torch.nn as nn

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
