#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""int8 weights in: a float multi-head attention (.npz, or a directory of .npy) and calibration
inputs (.npy) to a header holding its quantized form as a constexpr
static_attention::quantized_multi_head_attention, the int8 sibling of tools/embed_weights.cpp.

    quantize_weights.py --model examples/weights --calibration calib.npy --heads 4 \
        --context-length 32 --namespace my_model --name attention --output my_model/attention_int8.hpp

The model's arrays, in nn.Linear layout as torch's state_dict holds them:
    w_query, w_key, w_value   d_out x d_in
    out_proj_weight           d_out x d_out
    out_proj_bias             d_out
    b_query, b_key, b_value   d_out (optional: qkv_bias=True)
Calibration: float32, B x N x d_in (or N x d_in).

It computes what static_attention::quantize(model, calibration) computes at compile time, with
the same float32 and double operations in the same order (min/max calibration, TFLM's choice of
scales and zero points, QuantizeMultiplier), so the header equals the constexpr result. The
calibration's matrix products are computed both ways the library's kernels can sum (each product
rounded; one fused multiply-add a step, where the target has FMA); where the two give other
scales, the header holds both and the including build takes its own. The one
function whose last bit may differ is exp in the calibration's float softmax, which moves the
context range only when its extreme is a softmax-weighted mix (tests/quantize checks equality on
its fixtures). The header holds integers and float scales only: no float weights, no quantize()
cost at compile time.
"""
import argparse
import math
import os
import sys

import numpy as np

F32 = np.float32


def round_away(x):
    t = math.trunc(x)
    frac = x - float(t)
    if frac >= 0.5:
        return t + 1
    if frac <= -0.5:
        return t - 1
    return t


def clamp(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)


def choose_params(lo, hi):
    lo = min(lo, 0.0)
    hi = max(hi, 0.0)
    if hi - lo < 1e-30:
        return (F32(1.0), 0)
    scale = F32((hi - lo) / 255.0)
    z = round_away(-128.0 - lo / float(scale))
    return (scale, clamp(z, -128, 127))


def quantize_multiplier(real):
    if real == 0.0:
        return (0, 0)
    if not (2.0**-31 <= real < 2.0**30):
        sys.exit(f"quantize_weights: multiplier {real!r} out of range [2^-31, 2^30) (see docs/quantization.md)")
    shift = 0
    m = real
    while m < 0.5:
        m *= 2.0
        shift -= 1
    while m >= 1.0:
        m /= 2.0
        shift += 1
    q = round_away(m * 2.0**31)
    if q == 2**31:
        q //= 2
        shift += 1
    return (q, shift)


def quantize_linear(w_xw, bias, input_params):
    """w_xw: In x Out float32 (x @ W layout). Returns (codes Out x In, int32 biases, channel scales)."""
    n_in, n_out = w_xw.shape
    codes = np.zeros((n_out, n_in), dtype=np.int64)
    biases = []
    scales = []
    in_scale, in_zero = input_params
    for j in range(n_out):
        col = [float(w_xw[k, j]) for k in range(n_in)]
        peak = max(abs(v) for v in col)
        s = peak / 127 if peak > 0.0 else 1.0
        scales.append(s)
        total = 0
        for k, v in enumerate(col):
            c = clamp(round_away(v / s), -127, 127)
            codes[j, k] = c
            total += c
        real_bias = float(bias[j]) if bias is not None else 0.0
        bias_code = real_bias / (float(in_scale) * s)
        if not abs(bias_code) < 2.0**30:
            sys.exit(f"quantize_weights: bias code {bias_code!r} out of range (|.| < 2^30)")
        biases.append(round_away(bias_code) - in_zero * total)
    return codes, biases, scales


def requantizer(input_params, channel_scales, output_params):
    ms = [quantize_multiplier(float(input_params[0]) * s / float(output_params[0])) for s in channel_scales]
    return [m for m, _ in ms], [s for _, s in ms], output_params[1]


def fma_f32(a, b, c):
    """fma(a, b, c) in float32, rounded once, element-wise: a * b is exact in double (24-bit
    significands), the sum is rounded to odd in double (a two-sum gives its error), and rounding
    that to float32 is the correctly rounded sum (Boldo and Melquiond's rounding to odd)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    t = s - p
    err = (p - (s - t)) + (c - t)
    toward = np.nextafter(s, np.where(err > 0, np.inf, -np.inf))
    odd = (s.view(np.int64) & 1) == 1
    s = np.where((err != 0) & ~odd, toward, s)
    return s.astype(F32)


def matmul_f32(a, b, fused):
    """a (N x K) @ b (K x C) in float32, summed k = 0, 1, ... from 0: each product rounded, or
    (fused) each step one fused multiply-add, as the library's matrix kernels compute it."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=F32)
    for k in range(a.shape[1]):
        if fused:
            acc = fma_f32(np.broadcast_to(a[:, k : k + 1], acc.shape), np.broadcast_to(b[k : k + 1, :], acc.shape), acc)
        else:
            acc = acc + a[:, k : k + 1] * b[k : k + 1, :]
    return acc


def calibrate(model, calibration, heads, fused):
    d_out = model["w_query_xw"].shape[1]
    head_dim = d_out // heads
    scale = F32(math.sqrt(float(head_dim)))
    ranges = {name: [0.0, 0.0] for name in ("input", "query", "key", "value", "context")}

    def observe(name, m):
        r = ranges[name]
        r[0] = min(r[0], float(np.min(m)))
        r[1] = max(r[1], float(np.max(m)))

    for x in calibration:
        observe("input", x)
        proj = {}
        for name, key in (("query", "w_query_xw"), ("key", "w_key_xw"), ("value", "w_value_xw")):
            y = matmul_f32(x, model[key], fused)
            bias = model.get("b_" + name)
            if bias is not None:
                y = y + bias[None, :]
            proj[name] = y
            observe(name, y)
        n = x.shape[0]
        context = np.zeros((n, d_out), dtype=F32)
        for h in range(heads):
            cols = slice(h * head_dim, (h + 1) * head_dim)
            q, k, v = proj["query"][:, cols], proj["key"][:, cols], proj["value"][:, cols]
            scores = matmul_f32(q, k.T, fused)
            weights = np.zeros((n, n), dtype=F32)
            for i in range(n):
                row = scores[i, : i + 1] / scale
                e = np.exp(row - np.max(row)).astype(F32)
                total = F32(0)
                for val in e:
                    total = F32(total + val)
                weights[i, : i + 1] = e / total
            context[:, cols] = matmul_f32(weights, v, fused)
        observe("context", context)
    return ranges


def quantize(model, ranges, heads):
    d_out = model["w_query_xw"].shape[1]
    head_dim = d_out // heads
    p = {name: choose_params(*ranges[name]) for name in ranges}
    q = {"params": p, "input_inverse_scale": F32(1.0 / float(p["input"][0]))}
    for name in ("query", "key", "value"):
        codes, biases, scales = quantize_linear(model[f"w_{name}_xw"], model.get("b_" + name), p["input"])
        q[f"W_{name}"] = (codes, biases)
        q[f"{name}_requant"] = requantizer(p["input"], scales, p[name])
    sq, sk, sv, sc = (float(p[n][0]) for n in ("query", "key", "value", "context"))
    q["score_multiplier"] = quantize_multiplier(sq * sk * 1.4426950408889634 / math.sqrt(float(head_dim)) * 2.0**16)
    q["context_multiplier"] = quantize_multiplier(sv * 2.0**-15 / sc)
    codes, biases, scales = quantize_linear(model["out_proj_xw"], model["out_proj_bias"], p["context"])
    q["W_out"] = (codes, biases)
    q["output_scale"] = [F32(sc * s) for s in scales]
    return q


def load_model(path):
    names = ("w_query", "w_key", "w_value", "out_proj_weight", "out_proj_bias", "b_query", "b_key", "b_value")
    arrays = {}
    if os.path.isdir(path):
        for n in names:
            f = os.path.join(path, n + ".npy")
            if os.path.exists(f):
                arrays[n] = np.load(f)
    else:
        with np.load(path) as z:
            arrays = {n: z[n] for n in names if n in z.files}
    for n in names[:5]:
        if n not in arrays:
            sys.exit(f"quantize_weights: {path} has no {n}")
    model = {}
    for n, a in arrays.items():
        if a.dtype != np.float32:
            sys.exit(f"quantize_weights: {n} is {a.dtype}, not float32")
    d_out, d_in = arrays["w_query"].shape
    for n in ("w_key", "w_value"):
        if arrays[n].shape != (d_out, d_in):
            sys.exit(f"quantize_weights: {n} is {arrays[n].shape}, w_query {arrays['w_query'].shape}")
    if arrays["out_proj_weight"].shape != (d_out, d_out) or arrays["out_proj_bias"].reshape(-1).shape != (d_out,):
        sys.exit("quantize_weights: out_proj_weight must be d_out x d_out and out_proj_bias d_out")
    model["w_query_xw"] = np.ascontiguousarray(arrays["w_query"].T)
    model["w_key_xw"] = np.ascontiguousarray(arrays["w_key"].T)
    model["w_value_xw"] = np.ascontiguousarray(arrays["w_value"].T)
    model["out_proj_xw"] = np.ascontiguousarray(arrays["out_proj_weight"].T)
    model["out_proj_bias"] = arrays["out_proj_bias"].reshape(-1)
    bias_names = [n for n in ("b_query", "b_key", "b_value") if n in arrays]
    if bias_names and len(bias_names) != 3:
        sys.exit("quantize_weights: give all of b_query, b_key, b_value or none")
    for n in bias_names:
        model[n] = arrays[n].reshape(-1)
    return model, d_in, d_out


def f32_literal(x):
    v = float(x)
    if v == 0.0:
        return "0.0f"
    return v.hex() + "f"


def int_list(values, indent):
    values = [int(v) for v in values]
    lines = []
    for i in range(0, len(values), 16):
        lines.append(", ".join(str(v) for v in values[i : i + 16]))
    return ("\n" + indent).join(line + ("," if i + 1 < len(lines) else "") for i, line in enumerate(lines))


def flat(ctype, rows, cols, values, indent):
    return (
        f"::std::bit_cast<::static_attention::matrix<::std::{ctype}, {rows}, {cols}>>(::std::array<::std::{ctype}, "
        f"{rows * cols}>{{{{\n{indent}    {int_list(values, indent + '    ')}}}}})"
    )


def write_header(out, qs, d_in, d_out, heads, context, namespace, name, sources):
    """qs: the model as the unfused and as the fused kernels calibrate it. Where the two differ
    the header holds both, and the including build picks its own (kernels_fuse<float>): the
    header equals quantize() in either build."""
    t = f"::static_attention::quantized_multi_head_attention<{d_in}, {d_out}, {heads}{', ' + str(context) if context else ''}>"
    ind = "    "

    def params(p):
        return f"{{{f32_literal(p[0])}, {p[1]}}}"

    def linear(codes, biases, n_in, n_out):
        return (
            f"{{{flat('int8_t', n_out, n_in, codes.reshape(-1), ind + '  ')},\n{ind}  "
            f"{flat('int32_t', 1, n_out, biases, ind + '  ')}}}"
        )

    def requant(r):
        mults, shifts, zero = r
        return (
            f"{{{flat('int32_t', 1, d_out, mults, ind + '  ')},\n{ind}  "
            f"{flat('int8_t', 1, d_out, shifts, ind + '  ')}, {zero}}}"
        )

    def initializer(q):
        p = q["params"]
        fields = [
            (".input", params(p["input"])),
            (".input_inverse_scale", f32_literal(q["input_inverse_scale"])),
            (".query", params(p["query"])),
            (".key", params(p["key"])),
            (".value", params(p["value"])),
            (".context", params(p["context"])),
            (".W_query", linear(*q["W_query"], d_in, d_out)),
            (".W_key", linear(*q["W_key"], d_in, d_out)),
            (".W_value", linear(*q["W_value"], d_in, d_out)),
            (".query_requant", requant(q["query_requant"])),
            (".key_requant", requant(q["key_requant"])),
            (".value_requant", requant(q["value_requant"])),
            (".score_multiplier", "{%d, %d}" % q["score_multiplier"]),
            (".context_multiplier", "{%d, %d}" % q["context_multiplier"]),
            (".W_out", linear(*q["W_out"], d_out, d_out)),
            (".output_scale", "{{" + ", ".join(f32_literal(s) for s in q["output_scale"]) + "}}"),
        ]
        return "{\n" + ",\n".join(f"{ind}{k} = {v}" for k, v in fields) + "}"

    unfused, fused = (initializer(q) for q in qs)
    out.write("// Generated by static_attention's tools/quantize_weights.py; do not edit.\n")
    out.write(f"// From {sources}.\n#pragma once\n\n#include <array>\n#include <bit>\n#include <cstdint>\n\n")
    out.write("#include <static_attention/quant.hpp>\n\n")
    out.write(f"namespace {namespace} {{\n\n")
    doc = (f"/// int8 multi-head attention, d_in {d_in}, d_out {d_out}, {heads} heads: "
           "static_attention::quantize(model, calibration), computed ahead of time.\n")
    if unfused == fused:
        out.write(doc)
        out.write(f"inline constexpr {t} {name}{unfused};\n\n")
    else:
        out.write("// The calibration's float sums moved a scale: as unfused and as fused matrix kernels compute them.\n")
        out.write(f"namespace {name}_arithmetic {{\n")
        out.write(f"inline constexpr {t} unfused{unfused};\n")
        out.write(f"inline constexpr {t} fused{fused};\n")
        out.write(f"}}  // namespace {name}_arithmetic\n\n")
        out.write(doc.replace(".\n", ", in this build's kernel arithmetic.\n"))
        out.write(f"inline constexpr const {t}& {name} =\n{ind}::static_attention::detail::kernels_fuse<float> "
                  f"? {name}_arithmetic::fused : {name}_arithmetic::unfused;\n\n")
    out.write(f"}}  // namespace {namespace}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help=".npz file or directory of .npy files (nn.Linear layout)")
    ap.add_argument("--calibration", required=True, help=".npy of float32 calibration inputs, B x N x d_in")
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--context-length", type=int, default=0, help="0: no limit")
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    model, d_in, d_out = load_model(args.model)
    if args.heads <= 0 or d_out % args.heads != 0:
        sys.exit(f"quantize_weights: d_out {d_out} is not a multiple of --heads {args.heads}")
    calibration = np.load(args.calibration)
    if calibration.dtype != np.float32:
        sys.exit(f"quantize_weights: calibration is {calibration.dtype}, not float32")
    if calibration.ndim == 2:
        calibration = calibration[None]
    if calibration.ndim != 3 or calibration.shape[2] != d_in:
        sys.exit(f"quantize_weights: calibration is {calibration.shape}, not B x N x {d_in}")
    if args.context_length and calibration.shape[1] > args.context_length:
        sys.exit("quantize_weights: calibration sequences are longer than --context-length")
    qs = [quantize(model, calibrate(model, calibration, args.heads, fused), args.heads) for fused in (False, True)]
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as out:
        write_header(out, qs, d_in, d_out, args.heads, args.context_length, args.namespace, args.name,
                     f"{os.path.basename(os.path.normpath(args.model))} and {os.path.basename(args.calibration)}")


if __name__ == "__main__":
    main()
