#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Exports the state dict of the book's GPTModel (tests/reference/gpt_reference_model.py) as an .npz file.

The archive is exactly what

    np.savez(path, **{k: v.numpy() for k, v in model.state_dict().items()})

writes (uncompressed; one entry "<key>.npy" per state-dict key, in state-dict order, including
the causal-mask buffers trf_blocks.<i>.att.mask). The output is reproducible byte for byte:
np.savez adds its entries with ZipFile.open(name, "w"), which stamps them 1980-01-01 00:00.

Command line (a named configuration, optionally overridden field by field):

    /usr/bin/python3 tools/export_state_dict.py --config tiny --seed 456 out.npz
    /usr/bin/python3 tools/export_state_dict.py --config tiny --emb-dim 32 --n-heads 4 --seed 1 out.npz
    /usr/bin/python3 tools/export_state_dict.py --config gpt2-124m --seed 123 gpt2.npz   # ~650 MB

The model is torch.manual_seed(seed); GPTModel(cfg) in float32 (or --dtype float64: built after
torch.set_default_dtype(torch.float64)). As a library: export_state_dict(model, path) and
export_model(cfg, seed, path). Like every reference script, this sets ATEN_CPU_CAPABILITY=avx2
before importing torch (torch's normal_ differs between CPU capabilities; the C++ side
reproduces the AVX2 path).
"""
import os

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # before torch is imported; see the docstring

import argparse
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "reference"))
import gpt_reference_model as ref  # noqa: E402


def save_npz(path, arrays):
    """np.savez(path, **arrays). path should end in .npz (np.savez appends it otherwise)."""
    np.savez(path, **arrays)


def state_dict_arrays(model):
    return {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


def export_state_dict(model, path):
    """Writes model.state_dict() to path as an uncompressed .npz (see the module docstring)."""
    save_npz(path, state_dict_arrays(model))


def export_model(cfg, seed, path, dtype=torch.float32):
    """Builds the book's GPTModel(cfg) after torch.manual_seed(seed) and exports its state dict."""
    model = ref.build_model(cfg, seed, dtype)
    export_state_dict(model, path)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=pathlib.Path, help="output .npz")
    parser.add_argument("--config", choices=sorted(ref.CONFIGS), default="tiny",
                        help="base configuration (default: tiny)")
    parser.add_argument("--seed", type=int, required=True, help="torch.manual_seed before GPTModel(cfg)")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    for field, kind in (("vocab_size", int), ("context_length", int), ("emb_dim", int), ("n_heads", int),
                        ("n_layers", int), ("drop_rate", float)):
        parser.add_argument("--" + field.replace("_", "-"), type=kind, help=f"override cfg['{field}']")
    parser.add_argument("--qkv-bias", choices=("true", "false"), help="override cfg['qkv_bias']")
    args = parser.parse_args(argv)

    cfg = dict(ref.CONFIGS[args.config])
    for field in ("vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate"):
        if getattr(args, field) is not None:
            cfg[field] = getattr(args, field)
    if args.qkv_bias is not None:
        cfg["qkv_bias"] = args.qkv_bias == "true"

    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    model = export_model(cfg, args.seed, args.path, dtype)
    print(f"{args.path}: {cfg}, seed {args.seed}, {args.dtype}, {ref.parameter_count(model)} parameters, "
          f"{len(model.state_dict())} arrays, {args.path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
