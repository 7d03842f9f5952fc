#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Exports the book's GPTModel (tests/reference/gpt_reference_model.py) as a safetensors file, in
either of the two key sets load_safetensors reads (include/static_attention/io/safetensors.hpp).

  --names book  the state dict as it is: what safetensors.torch.save_file(model.state_dict(), path)
                writes (tok_emb.weight, trf_blocks.0.att.W_query.weight, ..., the causal masks).
  --names hf    Hugging Face's GPT-2 names (wte.weight, h.0.attn.c_attn.weight, ...): Conv1D weights
                in x out (nn.Linear's transposed), query|key|value fused into c_attn, optionally under
                "transformer." (--prefix), with the mask buffers h.<i>.attn.bias and
                h.<i>.attn.masked_bias (--hf-buffers), and lm_head.weight unless --tied (then the
                head must equal tok_emb, as in GPT-2: use --tie to make it so before exporting).

The file is written by hand, as the format specifies (https://github.com/huggingface/safetensors):
an 8-byte little-endian header length, the JSON header (padded with spaces to a multiple of 8),
then each tensor's little-endian bytes, contiguous, in header order. The safetensors package is
not needed (it is not in Debian here). --dtype converts the weights first (F32, F16, BF16, F64).

    /usr/bin/python3 tools/export_gpt_weights.py --config tiny --seed 123 --names book tiny.safetensors
    /usr/bin/python3 tools/export_gpt_weights.py --config tiny_bias3 --seed 123 --names hf --prefix gpt.safetensors

As a library: book_tensors(model), hf_tensors(model, ...), save_safetensors(path, tensors, metadata).
Like every reference script, this sets ATEN_CPU_CAPABILITY=avx2 before importing torch.
"""
import os

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # before torch is imported; see gpt_reference_model.py

import argparse
import json
import pathlib
import struct
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "reference"))
import gpt_reference_model as ref  # noqa: E402

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
          torch.bool: "BOOL", torch.uint8: "U8"}


def tensor_bytes(t):
    """The little-endian bytes of a contiguous tensor (bfloat16 through its int16 view)."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    data = t.numpy().astype(t.numpy().dtype.newbyteorder("<"), copy=False).tobytes()
    return data


def save_safetensors(path, tensors, metadata=None):
    """Writes {name: tensor} in the given order as a safetensors file."""
    header, blobs, at = {}, [], 0
    if metadata:
        header["__metadata__"] = dict(metadata)
    for name, t in tensors.items():
        data = tensor_bytes(t)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        blobs.append(data)
        at += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def book_tensors(model, dtype=None):
    """model.state_dict(), as safetensors.torch.save_file writes it (masks included)."""
    sd = model.state_dict()
    return {k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v) for k, v in sd.items()}


def hf_tensors(model, dtype=None, prefix="", tied=False, buffers=False):
    """The state dict under Hugging Face's GPT-2 names and layouts."""
    sd = {k: v.detach() for k, v in model.state_dict().items()}
    p = prefix
    out = {p + "wte.weight": sd["tok_emb.weight"], p + "wpe.weight": sd["pos_emb.weight"]}
    ctx = sd["pos_emb.weight"].shape[0]
    for i in range(len(model.trf_blocks)):
        b, h = f"trf_blocks.{i}.", f"{p}h.{i}."
        out[h + "ln_1.weight"] = sd[b + "norm1.scale"]
        out[h + "ln_1.bias"] = sd[b + "norm1.shift"]
        if buffers:
            out[h + "attn.bias"] = torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx)
            out[h + "attn.masked_bias"] = torch.tensor(-1e4)
        qkv = [sd[b + f"att.{w}.weight"].t() for w in ("W_query", "W_key", "W_value")]
        out[h + "attn.c_attn.weight"] = torch.cat(qkv, dim=1)
        if b + "att.W_query.bias" in sd:
            out[h + "attn.c_attn.bias"] = torch.cat([sd[b + f"att.{w}.bias"] for w in ("W_query", "W_key", "W_value")])
        out[h + "attn.c_proj.weight"] = sd[b + "att.out_proj.weight"].t()
        out[h + "attn.c_proj.bias"] = sd[b + "att.out_proj.bias"]
        out[h + "ln_2.weight"] = sd[b + "norm2.scale"]
        out[h + "ln_2.bias"] = sd[b + "norm2.shift"]
        out[h + "mlp.c_fc.weight"] = sd[b + "ff.layers.0.weight"].t()
        out[h + "mlp.c_fc.bias"] = sd[b + "ff.layers.0.bias"]
        out[h + "mlp.c_proj.weight"] = sd[b + "ff.layers.2.weight"].t()
        out[h + "mlp.c_proj.bias"] = sd[b + "ff.layers.2.bias"]
    out[p + "ln_f.weight"] = sd["final_norm.scale"]
    out[p + "ln_f.bias"] = sd["final_norm.shift"]
    if tied:
        assert torch.equal(sd["out_head.weight"], sd["tok_emb.weight"]), "--tied needs out_head == tok_emb (--tie)"
    else:
        out["lm_head.weight"] = sd["out_head.weight"]
    return {k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v).contiguous() for k, v in out.items()}


def round_weights(model, dtype):
    """Rounds every floating parameter to `dtype` and back, in place: the model the file holds."""
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point():
                t.copy_(t.to(dtype).to(t.dtype))


def tie_head(model):
    """out_head.weight = tok_emb.weight (values copied), as GPT-2 ties them."""
    with torch.no_grad():
        model.out_head.weight.copy_(model.tok_emb.weight)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=pathlib.Path, help="output .safetensors")
    parser.add_argument("--config", choices=sorted(ref.CONFIGS), default="tiny")
    parser.add_argument("--seed", type=int, required=True, help="torch.manual_seed before GPTModel(cfg)")
    parser.add_argument("--names", choices=("book", "hf"), default="book")
    parser.add_argument("--dtype", choices=("F32", "F16", "BF16", "F64"), default="F32")
    parser.add_argument("--prefix", action="store_true", help="hf: the 'transformer.' prefix")
    parser.add_argument("--tie", action="store_true", help="set out_head = tok_emb first")
    parser.add_argument("--tied", action="store_true", help="hf: leave lm_head.weight out (needs --tie)")
    parser.add_argument("--hf-buffers", action="store_true", help="hf: write attn.bias and attn.masked_bias")
    args = parser.parse_args(argv)
    dtype = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64}[args.dtype]
    model = ref.build_model(ref.CONFIGS[args.config], args.seed)
    if args.tie:
        tie_head(model)
    if args.names == "book":
        tensors = book_tensors(model, dtype)
    else:
        tensors = hf_tensors(model, dtype, "transformer." if args.prefix else "", args.tied, args.hf_buffers)
    save_safetensors(args.path, tensors, {"format": "pt"})
    print(f"{args.path}: {len(tensors)} tensors, {args.path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
