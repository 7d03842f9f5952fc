#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes the chapter-4 GPT references, with torch 1.13 (CPU) and the book's modules
(tests/reference/gpt_reference_model.py) as the independent reference:

* tests/reference/gpt_reference.hpp (namespace reference::gpt):
  - three tiny GPTModels (tiny, tiny_bias3, tiny_f64) built after torch.manual_seed(123): their
    eval logits for the prompt {5, 17, 42, 63}, their generate_text_simple ids (4 and 8 new
    tokens, the latter exercising the context crop), parameter counts and initial-weight samples;
  - LayerNorm, GELU, FeedForward and TransformerBlock outputs on inputs given in the header, in
    float32 and float64;
  - the book's GPT-2 124M model (float32, seed 123): a sample of the eval logits for the book's
    batch, the argmax per position, the ids generated for "Hello, I am", weight samples.
* tests/gpt/fixtures/ (the C++ load_state_dict tests): tiny_state_dict.npz and
  tiny_state_dict_bias3.npz (state dicts written by tools/export_state_dict.py, seed 456, the
  LayerNorm parameters overwritten with torch.rand-based values), broken variants
  tiny_missing_key.npz, tiny_wrong_shape.npz, tiny_f64_dtype.npz, and
  tiny_state_dict_reference.hpp (namespace reference::gpt_state_dict) with the logits and ids of
  the two loadable models.

The script sets ATEN_CPU_CAPABILITY=avx2 before importing torch: torch's normal_ (the
nn.Embedding initialisation) and its vectorised kernels depend on the CPU capability, and the
C++ side reproduces torch 1.13's AVX2 path. Threads are limited to one so reductions do not
depend on the machine's core count.

Values are hex-float literals so they round-trip exactly; ids are ints.
Regenerate with: /usr/bin/python3 tests/reference/gen_gpt_reference.py
  (--skip-124m leaves the GPT-2 124M section out of a quick trial run and does not write the header;
   --compare-capabilities only reports whether the initial weights and logits depend on the CPU
   capability torch dispatches to, by building the models in one subprocess per capability.)
"""
import os
import sys

if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--probe":
    # Child of --compare-capabilities: the capability under test, before torch is imported.
    if sys.argv[2] == "unset":
        os.environ.pop("ATEN_CPU_CAPABILITY", None)
    else:
        os.environ["ATEN_CPU_CAPABILITY"] = sys.argv[2]
else:
    os.environ["ATEN_CPU_CAPABILITY"] = "avx2"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gpt_reference_model as ref  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
GPT_OUT = ROOT / "tests/reference/gpt_reference.hpp"
FIXTURES = ROOT / "tests/gpt/fixtures"
STATE_DICT_REFERENCE_OUT = FIXTURES / "tiny_state_dict_reference.hpp"

PROMPT = [5, 17, 42, 63]
TINY_MODELS = [  # (name, cfg, seed, dtype)
    ("tiny", ref.TINY_CONFIG, 123, torch.float32),
    ("tiny_bias3", ref.TINY_BIAS3_CONFIG, 123, torch.float32),
    ("tiny_f64", ref.TINY_CONFIG, 123, torch.float64),
]
BOOK_BATCH = [[6109, 3626, 6100, 345],    # "Every effort moves you"
              [6109, 1110, 6622, 257]]    # "Every day holds a"
HELLO = [15496, 11, 314, 716]             # "Hello, I am"
BOOK_HELLO_GENERATED = [15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]
BOOK_PARAMETER_COUNT = 163_009_536
STATE_DICT_SEED = 456


# ---- Output helpers (as in tests/reference/gen_attention_reference.py) -------------------------------

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


def wrap(items, indent="    ", width=100):
    """Comma-separated items, several to a line."""
    lines, line = [], indent
    for k, item in enumerate(items):
        piece = item + ("," if k + 1 < len(items) else "")
        if len(line) + len(piece) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def arr(name, t, comment=None):
    body = wrap([hexf(v) for v in values_of(t)])
    return (f"// {comment}\n" if comment else "") + f"inline constexpr double {name}[] = {{\n{body}}};\n"


def ints(name, values, comment=None):
    if isinstance(values, torch.Tensor):
        values = values.reshape(-1).tolist()
    body = wrap([str(int(v)) for v in np.asarray(values).ravel()])
    return (f"// {comment}\n" if comment else "") + f"inline constexpr int {name}[] = {{\n{body}}};\n"


def first8(t):
    return t.detach().reshape(-1)[:8]


def last8(t):
    return t.detach().reshape(-1)[-8:]


def ident(key):
    return key.replace(".", "_")


# ---- Tiny models ---------------------------------------------------------------------------

def prompt_tensor():
    return torch.tensor([PROMPT])


def run_tiny(cfg, seed, dtype):
    """Logits (N x vocab), 4-new and 8-new generations, count, weight samples of one tiny model."""
    model = ref.build_model(cfg, seed, dtype)
    with ref.default_dtype(dtype), torch.no_grad():
        logits = model(prompt_tensor())[0]
        assert logits.dtype == dtype
        generated = ref.generate_text_simple(model, prompt_tensor(), 4, cfg["context_length"])[0]
        generated_long = ref.generate_text_simple(model, prompt_tensor(), 8, cfg["context_length"])[0]
    assert generated_long[:len(generated)].tolist() == generated.tolist()
    return model, logits, generated, generated_long


def weight_samples(prefix, model, ff=True):
    sd = model.state_dict()
    out = []
    keys = ["tok_emb.weight", "pos_emb.weight", "trf_blocks.0.att.W_query.weight"]
    if ff:
        keys.append("trf_blocks.0.ff.layers.0.weight")
    keys.append("out_head.weight")
    for key in keys:
        out.append(arr(f"{prefix}_{ident(key)}_first8", first8(sd[key])))
    out.append(arr(f"{prefix}_out_head_weight_last8", last8(sd["out_head.weight"])))
    return out


def config_lines(name, cfg, seed, dtype):
    bias = "true" if cfg["qkv_bias"] else "false"
    return (f"inline constexpr std::size_t {name}_vocab_size = {cfg['vocab_size']}, "
            f"{name}_context_length = {cfg['context_length']}, {name}_emb_dim = {cfg['emb_dim']},\n"
            f"                             {name}_n_heads = {cfg['n_heads']}, "
            f"{name}_n_layers = {cfg['n_layers']};\n"
            f"inline constexpr bool {name}_qkv_bias = {bias};\n"
            f"inline constexpr unsigned {name}_seed = {seed};\n")


def tiny_section():
    out = ["\n// ==== Tiny models ====================================================================\n",
           "//\n// GPTModel(cfg) built after torch.manual_seed(<name>_seed) with the default dtype set to\n",
           "// float32 (tiny, tiny_bias3) or float64 (tiny_f64: every initial draw made in double), then\n",
           "// model.eval(); drop_rate 0.1 (inactive in eval mode). Per model:\n",
           "//   <name>_logits               tokens x vocab_size, row-major: model(prompt)[0], computed in\n",
           "//                               the model's dtype (float32 results widened to double)\n",
           "//   <name>_generated            prompt + 4 ids: generate_text_simple(model, prompt,\n",
           "//                               max_new_tokens=4, context_size=context_length)\n",
           "//   <name>_generated_long       prompt + 8 ids, max_new_tokens=8 (the last steps see only the\n",
           "//                               last 8 tokens: the context crop)\n",
           "//   <name>_parameter_count      sum of p.numel() over model.parameters() (buffers excluded)\n",
           "//   <name>_<key>_first8         the first 8 values of state_dict()[key], flattened row-major\n",
           "//   <name>_out_head_weight_last8  the last 8 values of out_head.weight\n",
           "// Keys: tok_emb.weight (vocab x emb), pos_emb.weight (ctx x emb), trf_blocks.0.att.W_query.weight\n",
           "// (emb x emb), trf_blocks.0.ff.layers.0.weight (4 emb x emb), out_head.weight (vocab x emb).\n\n",
           f"inline constexpr std::size_t tokens = {len(PROMPT)};\n",
           ints("prompt", PROMPT, "The prompt of every tiny model: one sequence of 4 token ids.")]
    summary = {}
    for name, cfg, seed, dtype in TINY_MODELS:
        model, logits, generated, generated_long = run_tiny(cfg, seed, dtype)
        count = ref.parameter_count(model)
        dname = "float64" if dtype == torch.float64 else "float32"
        out.append(f"\n// ---- {name}: vocab {cfg['vocab_size']}, ctx {cfg['context_length']}, emb {cfg['emb_dim']}, "
                   f"heads {cfg['n_heads']}, layers {cfg['n_layers']}, qkv_bias {cfg['qkv_bias']}, "
                   f"seed {seed}, {dname}\n")
        out.append(config_lines(name, cfg, seed, dtype))
        out.append(f"inline constexpr std::size_t {name}_parameter_count = {count};\n")
        out.append(arr(f"{name}_logits", logits))
        out.append(ints(f"{name}_generated", generated))
        out.append(ints(f"{name}_generated_long", generated_long))
        out += weight_samples(name, model)
        summary[name] = (count, generated.tolist(), generated_long.tolist())
    return out, summary


# ---- Layer references ------------------------------------------------------------------------

def f32_array(a):
    """numpy draws rounded to float32 (kept as float64), so float32 and float64 runs share inputs."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def layers_section():
    rng = np.random.default_rng(20240404)
    ln_x = f32_array(rng.normal(0.5, 2.0, (3, 5)))
    ln_scale = f32_array(rng.uniform(0.5, 1.5, 5))
    ln_shift = f32_array(rng.uniform(-0.5, 0.5, 5))
    gelu_x = f32_array(np.concatenate([np.linspace(-6.0, 6.0, 41), [-20.0, -1e-3, 0.0, 1e-3, 20.0]]))
    ff_x = f32_array(rng.normal(0.0, 1.0, (3, 8)))
    block_x = f32_array(rng.normal(0.0, 1.0, (3, 8)))
    ff_cfg = {"emb_dim": 8}
    block_cfg = {"vocab_size": 0, "context_length": 4, "emb_dim": 8, "n_heads": 2, "n_layers": 1,
                 "drop_rate": 0.1, "qkv_bias": False}

    results = {}
    for suffix, dtype in (("f32", torch.float32), ("f64", torch.float64)):
        with ref.default_dtype(dtype), torch.no_grad():
            as_t = lambda a: torch.tensor(a, dtype=dtype)  # noqa: E731
            ln = ref.LayerNorm(5)
            r = {"layer_norm_out": ln(as_t(ln_x))}
            ln.scale.copy_(as_t(ln_scale))
            ln.shift.copy_(as_t(ln_shift))
            r["layer_norm_affine_out"] = ln(as_t(ln_x))
            r["gelu_out"] = ref.GELU()(as_t(gelu_x))

            torch.manual_seed(7)
            ff = ref.FeedForward(ff_cfg)
            r["feed_forward_out"] = ff(as_t(ff_x))
            r["feed_forward_params"] = ff.state_dict()

            torch.manual_seed(9)
            block = ref.TransformerBlock(block_cfg)
            block.eval()
            r["transformer_block_out"] = block(as_t(block_x).unsqueeze(0))[0]
            r["transformer_block_params"] = {k: v for k, v in block.state_dict().items() if not k.endswith("mask")}
        for key, value in r.items():
            if isinstance(value, torch.Tensor):
                assert value.dtype == dtype, (key, value.dtype)
        results[suffix] = r

    out = ["\n// ==== Layers =========================================================================\n",
           "//\n// Inputs drawn by numpy (np.random.default_rng(20240404), in the order ln_x, ln_scale, ln_shift,\n",
           "// feed_forward_x, transformer_block_x) and rounded to float32, so that the float32 (_f32) and\n",
           "// float64 (_f64) computations start from the same numbers. Each module is run by torch in the\n",
           "// named dtype, with torch.set_default_dtype set to it (which also makes GELU's\n",
           "// sqrt(2 / pi) a tensor of that dtype); float32 results are widened to double. Row-major.\n\n",
           "// LayerNorm(5) (eps 1e-5, biased variance over the last dim) on the 3 x 5 input layer_norm_x:\n",
           "// layer_norm_out_* with scale = ones, shift = zeros; layer_norm_affine_out_* with\n",
           "// scale = layer_norm_scale, shift = layer_norm_shift. Outputs 3 x 5.\n",
           arr("layer_norm_x", ln_x), arr("layer_norm_scale", ln_scale), arr("layer_norm_shift", ln_shift)]
    for s in ("f32", "f64"):
        out += [arr(f"layer_norm_out_{s}", results[s]["layer_norm_out"]),
                arr(f"layer_norm_affine_out_{s}", results[s]["layer_norm_affine_out"])]

    out += ["\n// GELU (the book's tanh approximation) on gelu_x: np.linspace(-6, 6, 41), then -20, -1e-3, 0,\n",
            "// 1e-3, 20 (46 values, each rounded to float32). Outputs 46 values.\n",
            arr("gelu_x", gelu_x)]
    for s in ("f32", "f64"):
        out.append(arr(f"gelu_out_{s}", results[s]["gelu_out"]))

    out += ["\n// FeedForward({emb_dim: 8}) (Linear(8, 32), GELU, Linear(32, 8)) created after\n",
            "// torch.manual_seed(7) with the default dtype float32 (_f32) or float64 (_f64: the initial\n",
            "// draws are made in double, which consume the generator differently, so the f64 weights are\n",
            "// unrelated to the f32 ones), applied to the 3 x 8 input feed_forward_x.\n",
            "// Parameters as named in its state_dict (layers.0.weight 32 x 8, layers.0.bias 32,\n",
            "// layers.2.weight 8 x 32, layers.2.bias 8), and the 3 x 8 output.\n",
            arr("feed_forward_x", ff_x)]
    for s in ("f32", "f64"):
        for key, value in results[s]["feed_forward_params"].items():
            out.append(arr(f"feed_forward_{s}_{ident(key)}", value))
        out.append(arr(f"feed_forward_out_{s}", results[s]["feed_forward_out"]))

    out += ["\n// TransformerBlock({emb_dim: 8, n_heads: 2, context_length: 4, drop_rate: 0.1,\n",
            "// qkv_bias: False}) created after torch.manual_seed(9) with the default dtype float32 (_f32)\n",
            "// or float64 (_f64, again with weights of its own), eval mode, applied to the 3 x 8 input\n",
            "// transformer_block_x as a batch of one sequence of 3 tokens (the causal mask cropped to\n",
            "// 3 x 3). Parameters as named in its state_dict (att.W_query/W_key/W_value.weight 8 x 8,\n",
            "// att.out_proj.weight 8 x 8 and .bias 8, ff.layers.0/2 as above, norm1/norm2 .scale/.shift 8;\n",
            "// the mask buffer is left out), and the 3 x 8 output.\n",
            arr("transformer_block_x", block_x)]
    for s in ("f32", "f64"):
        for key, value in results[s]["transformer_block_params"].items():
            out.append(arr(f"transformer_block_{s}_{ident(key)}", value))
        out.append(arr(f"transformer_block_out_{s}", results[s]["transformer_block_out"]))
    return out


# ---- GPT-2 124M ------------------------------------------------------------------------------

def sample_index(vocab):
    idx = set(range(16)) | set(range(0, vocab, 997)) | set(range(vocab - 16, vocab))
    return sorted(idx)


def gpt124m_section():
    cfg = ref.GPT_CONFIG_124M
    t0 = time.perf_counter()
    model = ref.build_model(cfg, 123, torch.float32)
    t_init = time.perf_counter() - t0
    count = ref.parameter_count(model)
    assert count == BOOK_PARAMETER_COUNT, f"parameter count {count}, the book's {BOOK_PARAMETER_COUNT}"

    t0 = time.perf_counter()
    with torch.no_grad():
        logits = model(torch.tensor(BOOK_BATCH))  # 2 x 4 x 50257
    t_forward = time.perf_counter() - t0
    index = sample_index(cfg["vocab_size"])
    rows = logits.reshape(-1, cfg["vocab_size"])
    sample = rows[:, index]
    argmax = torch.argmax(rows, dim=-1)
    row_sums = [math.fsum(values_of(row)) for row in rows]

    t0 = time.perf_counter()
    generated = ref.generate_text_simple(model, torch.tensor([HELLO]), 6, cfg["context_length"])[0].tolist()
    t_generate = time.perf_counter() - t0
    matched = generated == BOOK_HELLO_GENERATED
    if not matched:
        print(f"WARNING: 124M generation {generated} differs from the book's {BOOK_HELLO_GENERATED}")
    assert matched, "the 124M generation differs from the book's"

    out = ["\n// ==== GPT-2 124M =====================================================================\n",
           "//\n// The book's GPT_CONFIG_124M (vocab 50257, ctx 1024, emb 768, 12 heads, 12 layers, drop_rate 0.1,\n",
           "// qkv_bias False) built after torch.manual_seed(123) in float32, model.eval().\n",
           config_lines("gpt124m", cfg, 123, torch.float32),
           f"inline constexpr std::size_t gpt124m_parameter_count = {count};  // the book's 163,009,536\n",
           ints("gpt124m_batch", BOOK_BATCH,
                "The book's batch, 2 x 4: \"Every effort moves you\", \"Every day holds a\"."),
           f"inline constexpr std::size_t gpt124m_sample_count = {len(index)};\n",
           ints("gpt124m_sample_index", index,
                "Vocabulary indices sampled from the logits: 0..15, every 997th index (0, 997, ..., 49850),\n"
                "// 50241..50256; sorted, without repeats."),
           arr("gpt124m_logits_sample", sample,
               "model(gpt124m_batch) at the sampled indices: 8 x gpt124m_sample_count, row p = batch p / 4,\n"
               "// position p % 4 (float32 results widened to double)."),
           ints("gpt124m_argmax", argmax,
                "argmax over the whole vocabulary of each of the 8 rows of logits (same row order)."),
           arr("gpt124m_logits_row_sum", row_sums,
               "The sum of all 50257 float32 logits of each row, correctly rounded to double (math.fsum)."),
           ints("gpt124m_hello_prompt", HELLO, "\"Hello, I am\"."),
           ints("gpt124m_generated", generated,
                "generate_text_simple(model, hello_prompt, max_new_tokens=6, context_size=1024): the book's\n"
                "// 15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267.")]
    out += weight_samples("gpt124m", model, ff=False)
    timings = {"124m_init": t_init, "124m_forward_batch": t_forward, "124m_generate6": t_generate}
    return out, {"count": count, "generated": generated, "matched": matched,
                 "argmax": argmax.tolist(), "sample_count": len(index)}, timings


# ---- State-dict fixtures ---------------------------------------------------------------------

def state_dict_model(cfg):
    """The fixture model: seed 456, then every LayerNorm's scale and shift overwritten, in module
    order, with scale = 0.5 + torch.rand(emb) and shift = torch.rand(emb) - 0.5 (draws continuing
    from the generator state GPTModel's initialisation left)."""
    model = ref.build_model(cfg, STATE_DICT_SEED, torch.float32)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, ref.LayerNorm):
                module.scale.copy_(0.5 + torch.rand(module.scale.shape))
                module.shift.copy_(torch.rand(module.shift.shape) - 0.5)
    return model


def state_dict_fixtures():
    import export_state_dict as export  # sets ATEN_CPU_CAPABILITY=avx2 again: harmless here

    FIXTURES.mkdir(parents=True, exist_ok=True)
    out = ["// Generated by tests/reference/gen_gpt_reference.py from torch 1.13 (float32); do not edit.\n",
           "// Regenerate with: /usr/bin/python3 tests/reference/gen_gpt_reference.py\n",
           "//\n// References for the state dicts in this directory, written by tools/export_state_dict.py\n",
           "// (np.savez of model.state_dict(), float32, including the trf_blocks.<i>.att.mask buffers):\n",
           "//   tiny_state_dict.npz        the tiny config (vocab 64, ctx 8, emb 16, 2 heads, 2 layers,\n",
           "//                              qkv_bias False)\n",
           "//   tiny_state_dict_bias3.npz  the tiny_bias3 config (vocab 64, ctx 8, emb 18, 3 heads,\n",
           "//                              2 layers, qkv_bias True)\n",
           f"// each GPTModel(cfg) built after torch.manual_seed({STATE_DICT_SEED}), then every LayerNorm's scale\n",
           "// and shift (trf_blocks.0.norm1, .norm2, trf_blocks.1.norm1, .norm2, final_norm, in that order)\n",
           "// overwritten with scale = 0.5 + torch.rand(emb), shift = torch.rand(emb) - 0.5, the draws\n",
           "// continuing the generator; so the loaded values, not the defaults, decide the results.\n",
           "// Per model, in eval mode:\n",
           "//   <name>_logits     4 x 64, row-major: model(prompt)[0] (float32 widened to double)\n",
           "//   <name>_generated  prompt + 4 ids: generate_text_simple(max_new_tokens=4, context_size=8)\n",
           "//   <name>_final_norm_scale / _shift, <name>_tok_emb_weight_first8: loaded-value spot checks\n",
           "// Broken variants of tiny_state_dict.npz for the error tests:\n",
           "//   tiny_missing_key.npz   without trf_blocks.1.norm2.shift\n",
           "//   tiny_wrong_shape.npz   pos_emb.weight 9 x 16 (a ninth row, torch.rand - 0.5, appended)\n",
           "//   tiny_f64_dtype.npz     every array float64 (the float32 values, widened)\n",
           "#pragma once\n\n#include <cstddef>\n\nnamespace reference::gpt_state_dict {\n\n",
           ints("prompt", PROMPT)]
    summary = {}
    tiny_arrays = None
    for name, cfg, file in (("tiny", ref.TINY_CONFIG, "tiny_state_dict.npz"),
                            ("tiny_bias3", ref.TINY_BIAS3_CONFIG, "tiny_state_dict_bias3.npz")):
        model = state_dict_model(cfg)
        if name == "tiny":
            extra_row = torch.rand(1, cfg["emb_dim"]) - 0.5  # drawn right after the LayerNorm values
        export.export_state_dict(model, FIXTURES / file)
        with torch.no_grad():
            logits = model(prompt_tensor())[0]
            generated = ref.generate_text_simple(model, prompt_tensor(), 4, cfg["context_length"])[0]
        # The file holds exactly the model's tensors.
        loaded = np.load(FIXTURES / file)
        assert list(loaded.keys()) == list(model.state_dict().keys())
        for key, value in model.state_dict().items():
            assert loaded[key].dtype == np.float32 and np.array_equal(loaded[key], value.numpy()), key
        sd = model.state_dict()
        out += [f"\n// ---- {name}: {file}, {ref.parameter_count(model)} parameters\n",
                arr(f"{name}_logits", logits), ints(f"{name}_generated", generated),
                arr(f"{name}_final_norm_scale", sd["final_norm.scale"]),
                arr(f"{name}_final_norm_shift", sd["final_norm.shift"]),
                arr(f"{name}_tok_emb_weight_first8", first8(sd["tok_emb.weight"]))]
        summary[name] = {"file": file, "parameters": ref.parameter_count(model), "generated": generated.tolist()}
        if name == "tiny":
            tiny_arrays = export.state_dict_arrays(model)

    missing = {k: v for k, v in tiny_arrays.items() if k != "trf_blocks.1.norm2.shift"}
    assert len(missing) == len(tiny_arrays) - 1
    export.save_npz(FIXTURES / "tiny_missing_key.npz", missing)
    wrong = dict(tiny_arrays)
    wrong["pos_emb.weight"] = np.concatenate([tiny_arrays["pos_emb.weight"], extra_row.numpy()], axis=0)
    assert wrong["pos_emb.weight"].shape == (9, 16) and wrong["pos_emb.weight"].dtype == np.float32
    export.save_npz(FIXTURES / "tiny_wrong_shape.npz", wrong)
    export.save_npz(FIXTURES / "tiny_f64_dtype.npz", {k: v.astype(np.float64) for k, v in tiny_arrays.items()})

    out.append("\n}  // namespace reference::gpt_state_dict\n")
    STATE_DICT_REFERENCE_OUT.write_text("".join(out))
    return summary


# ---- CPU capability comparison ---------------------------------------------------------------

def digest(t):
    return hashlib.sha256(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:16]


def probe():
    """Run in a child: digests of the initial weights and outputs under the current capability."""
    torch.set_num_threads(1)
    report = {"capability": ref.cpu_capability()}
    for name, cfg, seed, dtype in TINY_MODELS + [("gpt124m", ref.GPT_CONFIG_124M, 123, torch.float32)]:
        model = ref.build_model(cfg, seed, dtype, capability=None)
        prompt = torch.tensor(BOOK_BATCH if name == "gpt124m" else [PROMPT])
        with ref.default_dtype(dtype), torch.no_grad():
            logits = model(prompt)
        rows = logits.reshape(-1, cfg["vocab_size"])
        if name == "gpt124m":
            rows = rows[:, sample_index(cfg["vocab_size"])]
        report[name] = {"weights": {k: digest(v) for k, v in model.state_dict().items()},
                        "logits": digest(logits), "logits_sample": values_of(rows).tolist()}
        del model
    print(json.dumps(report))


def compare_capabilities():
    here = pathlib.Path(__file__).resolve()
    reports = {}
    for cap in ("avx2", "unset", "avx512", "default"):
        t0 = time.perf_counter()
        child = subprocess.run([sys.executable, str(here), "--probe", cap], check=True, capture_output=True, text=True)
        reports[cap] = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"ATEN_CPU_CAPABILITY={cap}: torch dispatches to {reports[cap]['capability']} "
              f"({time.perf_counter() - t0:.1f} s)")
    base = reports["avx2"]
    for cap in ("unset", "avx512", "default"):
        for name in base:
            if name == "capability":
                continue
            differing = [k for k, v in base[name]["weights"].items() if reports[cap][name]["weights"][k] != v]
            same_logits = base[name]["logits"] == reports[cap][name]["logits"]
            gap = np.abs(np.array(base[name]["logits_sample"]) - np.array(reports[cap][name]["logits_sample"])).max()
            listed = ", ".join(differing[:4]) + (", ..." if len(differing) > 4 else "")
            print(f"  {cap} vs avx2, {name}: {len(differing)} of {len(base[name]['weights'])} state-dict "
                  f"tensors differ{' (' + listed + ')' if differing else ''}; logits "
                  f"{'identical' if same_logits else f'differ (max |diff| {gap:.3g} on the sample)'}")


# ---- Main ------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-124m", action="store_true", help="trial run: leave out GPT-2 124M, write no header")
    parser.add_argument("--compare-capabilities", action="store_true",
                        help="only compare weights/logits across CPU capabilities (subprocesses)")
    args = parser.parse_args()
    if args.compare_capabilities:
        compare_capabilities()
        return
    torch.set_num_threads(1)
    ref.check_cpu_capability()

    timings = {}
    t0 = time.perf_counter()
    header = ["// Generated by tests/reference/gen_gpt_reference.py from torch 1.13 (CPU, ATEN_CPU_CAPABILITY=avx2); do not edit.\n",
              "// Regenerate with: /usr/bin/python3 tests/reference/gen_gpt_reference.py\n",
              "//\n// The chapter-4 GPT of \"Build a Large Language Model (From Scratch)\" (Raschka), with the book's\n",
              "// modules (tests/reference/gpt_reference_model.py): tiny models, single layers, and the 124M model.\n",
              "// nn.Linear weights are d_out x d_in. Ids are ints; values are hex floats (float32 values\n",
              "// exactly, widened to double).\n",
              "#pragma once\n\n#include <cstddef>\n\nnamespace reference::gpt {\n"]
    tiny, tiny_summary = tiny_section()
    timings["tiny_models"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    layers = layers_section()
    timings["layers"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    sd_summary = state_dict_fixtures()
    timings["state_dict_fixtures"] = time.perf_counter() - t0

    for name, (count, gen, gen_long) in tiny_summary.items():
        print(f"{name}: {count} parameters, generated {gen}, long {gen_long}")
    for name, s in sd_summary.items():
        print(f"state dict {name}: {s}")
    if args.skip_124m:
        print("--skip-124m: header not written")
    else:
        gpt, gpt_summary, gpt_timings = gpt124m_section()
        timings.update(gpt_timings)
        GPT_OUT.write_text("".join(header + tiny + layers + gpt + ["\n}  // namespace reference::gpt\n"]))
        print(f"gpt124m: {gpt_summary}")
    for key, seconds in timings.items():
        print(f"  {key}: {seconds:.2f} s")
    for path in [GPT_OUT, STATE_DICT_REFERENCE_OUT] + sorted(FIXTURES.glob("*.npz")):
        if path.exists():
            print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        probe()
    else:
        main()
