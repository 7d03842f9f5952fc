#!/usr/bin/python3
# SPDX-License-Identifier: BSL-1.0
"""PyTorch side of the GPT-2 124M (float32) decode benchmark: one markdown table to set beside
bench/bench_gpt.cpp's figures.

The model is the book's, from tests/reference/gpt_reference_model.py (imported, not copied):
build_model(GPT_CONFIG_124M, seed=123), float32, eval mode. Rows, each at every --threads count
(torch.set_num_threads), under torch.inference_mode():

1. generate_text_simple as the book writes it (the whole sequence through the model at every
   step): prompt "Hello, I am" (15496, 11, 314, 716) -> 36 tokens; tokens/s = 32 / time.
2. A KV-cached greedy decode written here on the same module weights. Per block: norm1; q, k, v
   by the block's own W_query / W_key / W_value Linear layers; k and v appended to a per-block
   cache (preallocated for the context length); scores = q @ cached keys^T, the book's causal
   mask (only needed when several tokens enter at once), / sqrt(head_dim), softmax, @ cached
   values; out_proj; shortcut; norm2; ff; shortcut. Then final_norm and out_head on the last
   position only, softmax, argmax (as generate_text_simple does).
   Its 32 new ids after "Hello, I am" are asserted equal to generate_text_simple's, at every
   thread count. Timed:
   - prefill: a 128-token prompt ((i * 7919) % 50257, the prompt of bench_gpt.cpp) through the
     caches in one pass, then the first new id: time to first token;
   - decode: after prefilling the 4-token prompt (outside the timing), 128 one-token steps
     (positions 4..131, each through all blocks, out_head and argmax): tokens/s = 128 / time.
3. The same cached decode with its Linear layers on oneDNN, where torch has it
   (torch.backends.mkldnn.is_available()). What works in torch 1.13 for a 1 x 768 input:
   - torch.utils.mkldnn.to_mkldnn(module) -> MkldnnLinear runs, but torch 1.13 keeps its weight
     in the plain layout and oneDNN's inner product reorders the whole weight into its blocked
     layout on *every call* (seen with DNNL_VERBOSE=1: a 3072x768 reorder before each
     inner product, costing several times the product; torch 1.13 has no
     mkldnn_reorder_linear_weight to prepack it): no use for decoding (the header prints one
     layer's per-call times by each way);
   - torch.jit.optimize_for_inference (script + freeze) rewrote Linear into aten::matmul with
     the transposed weight in this build (seen in the frozen graph): the same BLAS path;
   - used here: each Linear as a 1x1 convolution, weight (out, in, 1, 1) prepacked once by
     torch._C._nn.mkldnn_reorder_conv2d_weight (the prepacking torch.utils.mkldnn does for
     Conv2d) and run by torch.mkldnn_convolution on the dense (tokens, in, 1, 1) input: one
     convolution primitive (jit_1x1), no weight reorder per call. Its 32 ids are compared with
     the reference and the result is printed (not asserted: different rounding may flip a
     near-tie). oneDNN picks its own ISA (ATEN_CPU_CAPABILITY does not reach it); the header
     prints the implementation it ran; --onednn-max-isa AVX2 caps it (ONEDNN_MAX_CPU_ISA).
   Where oneDNN is missing, its rows say "not available in this torch build" and why.

Every row: one warm-up, then up to --reps timed runs (default 5), the median reported. To keep
a full run near 10 minutes on a 2-core machine with torch's reference-BLAS build
(generate_text_simple takes ~1.5 min per run there), a row stops taking runs once its timed runs
add up to --budget seconds (default 30; 0 = always --reps); the table gives the runs taken.
Warm-ups: generate_text_simple generates 1 token (a full run costs as much as a timed one); a
cached decode's warm-up is its ids check (prompt, then 31 one-token steps: every code path of
the decode); prefill warms up with one full prefill.

Memory read bandwidth: numpy sum over a 512 MiB float32 array, median of 5 (a numpy reading:
bench_gpt.cpp measures its own with vector loads), summed as a.reshape(-1, 256).sum(axis=0):
each 1 KiB row added into a 1 KiB accumulator row, so the reading is the memory's, not the
adder's. The plain a.sum() is printed too: numpy's pairwise 1-D summation is limited by its add
chains (about half the column sum's rate on this machine), so it understates the bandwidth. The
decode limit is the bytes of float32 weights one decode step reads (every block's parameters,
final_norm, out_head in full, one row of each embedding: 494.5 MB for GPT-2 124M, computed from
the model's parameters) over the column-sum bandwidth.

Environment: ATEN_CPU_CAPABILITY=avx2 is set before importing torch, as gpt_reference_model
requires (build_model refuses otherwise). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when set, are
printed and removed from *this process's* environment before numpy and torch load (they tune or
slow OpenBLAS; --keep-openblas-env keeps them); nothing outside this process is changed. The
header also names the BLAS library actually loaded (Debian's torch links libblas.so.3: the
reference BLAS unless OpenBLAS is installed as the alternative; with the reference BLAS the
OPENBLAS variables change nothing).

Usage: /usr/bin/python3 tools/dev/bench_torch_gpt.py [--threads 1,2] [--reps 5] [--budget 30]
                                                  [--onednn-max-isa ISA] [--keep-openblas-env]
Progress goes to stderr; the table to stdout.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
HELLO = (15496, 11, 314, 716)  # "Hello, I am"
SIMPLE_NEW = 32
DECODE_NEW = 128
PREFILL_LEN = 128
PREFILL_PROMPT = tuple((i * 7919) % 50257 for i in range(PREFILL_LEN))  # as bench/bench_gpt.cpp
BANDWIDTH_BYTES = 512 << 20
BANDWIDTH_REPS = 5


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", default="1,2", help="comma-separated torch thread counts (default 1,2)")
    p.add_argument("--reps", type=int, default=5, help="timed runs per row (default 5); median reported")
    p.add_argument("--budget", type=float, default=30.0,
                   help="stop a row's timed runs once they add up to this many seconds (default 30; 0: no limit)")
    p.add_argument("--onednn-max-isa", default=None,
                   help="cap oneDNN's ISA (sets ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA), e.g. AVX2")
    p.add_argument("--keep-openblas-env", action="store_true",
                   help="do not remove OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE from this process's environment")
    opts = p.parse_args()
    opts.threads = [int(t) for t in opts.threads.split(",") if t.strip()]
    if not opts.threads or min(opts.threads) < 1 or opts.reps < 1:
        p.error("--threads needs positive counts and --reps at least 1")
    return opts


OPTS = parse_args()

# ---- Process environment, before numpy and torch load ----------------------------------------
OPENBLAS_SEEN = {name: os.environ.get(name) for name in OPENBLAS_VARS}
if not OPTS.keep_openblas_env:
    for name in OPENBLAS_VARS:
        os.environ.pop(name, None)
os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # the project's convention (see gpt_reference_model)
if OPTS.onednn_max_isa:
    os.environ["ONEDNN_MAX_CPU_ISA"] = OPTS.onednn_max_isa
    os.environ["DNNL_MAX_CPU_ISA"] = OPTS.onednn_max_isa

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import gpt_reference_model as ref  # noqa: E402

T_START = time.perf_counter()


def log(msg):
    print(f"[{time.perf_counter() - T_START:7.1f} s] {msg}", file=sys.stderr, flush=True)


def loaded_libraries(keys=("blas", "lapack", "dnnl", "mkl", "gomp")):
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if path.startswith("/") and any(k in os.path.basename(path).lower() for k in keys):
                libs.add(os.path.realpath(path))
    return sorted(libs)


# ---- Memory bandwidth and the decode limit ------------------------------------------------------

def numpy_read_bandwidth():
    """Bytes/s of numpy float32 sums over 512 MiB, median of BANDWIDTH_REPS after one warm-up each:
    (column sum over rows of 256 floats, plain 1-D a.sum())."""
    a = np.ones(BANDWIDTH_BYTES // 4, dtype=np.float32)
    rows = a.reshape(-1, 256)
    rates = []
    for f in (lambda: rows.sum(axis=0), lambda: a.sum()):
        f()
        times = []
        for _ in range(BANDWIDTH_REPS):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        rates.append(BANDWIDTH_BYTES / statistics.median(times))
    return tuple(rates)


def decode_bytes_per_token(model):
    """The weights one decode step reads: every block, final_norm, out_head in full, and one row
    of each embedding table."""
    def size(params):
        return sum(p.numel() * p.element_size() for p in params)
    tok, pos = model.tok_emb.weight, model.pos_emb.weight
    return (size(model.trf_blocks.parameters()) + size(model.final_norm.parameters())
            + size(model.out_head.parameters())
            + tok.shape[1] * tok.element_size() + pos.shape[1] * pos.element_size())


# ---- Linear layers on oneDNN ---------------------------------------------------------------

ONEDNN_CONV_ARGS = ([0, 0], [1, 1], [1, 1], 1)  # padding, stride, dilation, groups


class OneDNNLinear:
    """y = x W^T + b as a oneDNN 1x1 convolution with the weight prepacked once."""

    def __init__(self, linear):
        w = linear.weight.detach()
        self.out_features, self.in_features = w.shape
        self.weight = torch._C._nn.mkldnn_reorder_conv2d_weight(
            w.reshape(self.out_features, self.in_features, 1, 1).contiguous().to_mkldnn(), *ONEDNN_CONV_ARGS)
        self.bias = None if linear.bias is None else linear.bias.detach().clone()

    def __call__(self, x):
        lead = x.shape[:-1]
        y = torch.mkldnn_convolution(x.reshape(-1, self.in_features, 1, 1), self.weight, self.bias,
                                     *ONEDNN_CONV_ARGS)
        return y.view(*lead, self.out_features)


def onednn_status():
    """(usable, reason)."""
    if not torch.backends.mkldnn.is_available():
        return False, "torch.backends.mkldnn.is_available() is False (built without USE_MKLDNN)"
    if not hasattr(torch._C._nn, "mkldnn_reorder_conv2d_weight") or not hasattr(torch, "mkldnn_convolution"):
        return False, "this torch has no mkldnn_reorder_conv2d_weight / mkldnn_convolution"
    try:
        lin = nn.Linear(8, 16)
        x = torch.randn(1, 8)
        with torch.inference_mode():
            err = (OneDNNLinear(lin)(x) - lin(x)).abs().max().item()
        if not err < 1e-4:
            return False, f"the prepacked 1x1 convolution disagrees with nn.Linear (max error {err:g})"
    except RuntimeError as e:
        return False, f"oneDNN call failed: {e}"
    return True, ""


ONEDNN_PROBE = """
import torch
w = torch._C._nn.mkldnn_reorder_conv2d_weight(torch.randn(64, 32, 1, 1).to_mkldnn(), [0, 0], [1, 1], [1, 1], 1)
torch.mkldnn_convolution(torch.randn(1, 32, 1, 1), w, None, [0, 0], [1, 1], [1, 1], 1)
"""


def onednn_implementation():
    """The convolution implementation oneDNN runs here (from its verbose output, in a child)."""
    env = dict(os.environ, DNNL_VERBOSE="1", ONEDNN_VERBOSE="1")
    try:
        out = subprocess.run([sys.executable, "-c", ONEDNN_PROBE], env=env, capture_output=True,
                             text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    for line in out.splitlines():
        fields = line.split(",")
        if "exec" in fields and "convolution" in fields:
            return fields[fields.index("convolution") + 1]
    return "unknown"


def linear_call_times(model, reps=20):
    """Seconds per call of the first block's ff.layers[0] (768 -> 3072) on a 1 x 768 input:
    nn.Linear, to_mkldnn's MkldnnLinear, the prepacked 1x1 convolution."""
    import copy
    import torch.utils.mkldnn as mkldnn_utils
    lin = model.trf_blocks[0].ff.layers[0]
    x = torch.randn(1, lin.in_features)
    ways = {"nn.Linear": lin, "to_mkldnn MkldnnLinear": mkldnn_utils.to_mkldnn(copy.deepcopy(lin)),
            "prepacked 1x1 conv": OneDNNLinear(lin)}
    result = {}
    for name, f in ways.items():
        f(x)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f(x)
            times.append(time.perf_counter() - t0)
        result[name] = statistics.median(times)
    return result


# ---- The KV-cached decode --------------------------------------------------------------------

class CachedGPT:
    """Greedy decoding with a per-block K/V cache on the weights of a ref.GPTModel.

    linears: None (the modules' own nn.Linear) or a dict {nn.Linear: callable}."""

    def __init__(self, model, linears=None):
        self.model = model
        self.linears = linears
        self.context = model.pos_emb.weight.shape[0]
        att = model.trf_blocks[0].att
        self.heads, self.head_dim = att.num_heads, att.head_dim
        shape = (1, self.heads, self.context, self.head_dim)
        dtype = model.tok_emb.weight.dtype
        self.keys = [torch.empty(shape, dtype=dtype) for _ in model.trf_blocks]
        self.values = [torch.empty(shape, dtype=dtype) for _ in model.trf_blocks]
        self.length = 0

    def lin(self, module):
        return module if self.linears is None else self.linears[module]

    def clear(self):
        self.length = 0

    def _block(self, i, blk, x, pos):
        att = blk.att
        n = x.shape[1]
        end = pos + n

        def split_heads(t):  # (1, n, d_out) -> (1, heads, n, head_dim)
            return t.view(1, n, self.heads, self.head_dim).transpose(1, 2)

        h = blk.norm1(x)
        q = split_heads(self.lin(att.W_query)(h))
        self.keys[i][:, :, pos:end].copy_(split_heads(self.lin(att.W_key)(h)))
        self.values[i][:, :, pos:end].copy_(split_heads(self.lin(att.W_value)(h)))
        keys = self.keys[i][:, :, :end]
        values = self.values[i][:, :, :end]
        scores = q @ keys.transpose(2, 3)  # (1, heads, n, end)
        if n > 1:  # query row r (position pos + r) sees keys 0..pos + r
            mask = torch.triu(torch.ones(n, end, dtype=torch.bool), diagonal=pos + 1)
            scores.masked_fill_(mask, -torch.inf)
        weights = torch.softmax(scores / self.head_dim ** 0.5, dim=-1)
        context = (weights @ values).transpose(1, 2).contiguous().view(1, n, att.d_out)
        x = x + self.lin(att.out_proj)(context)
        h = blk.norm2(x)
        for layer in blk.ff.layers:
            h = self.lin(layer)(h) if isinstance(layer, nn.Linear) else layer(h)
        return x + h

    def feed(self, ids):
        """Runs ids (a sequence of ints) through the caches; returns the next greedy id."""
        m = self.model
        n, pos = len(ids), self.length
        if pos + n > self.context:
            raise ValueError("context length exceeded")
        idx = torch.tensor([ids], dtype=torch.long)
        x = m.tok_emb(idx) + m.pos_emb(torch.arange(pos, pos + n))
        for i, blk in enumerate(m.trf_blocks):
            x = self._block(i, blk, x, pos)
        self.length = pos + n
        logits = self.lin(m.out_head)(m.final_norm(x[:, -1:, :]))[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        return int(torch.argmax(probas, dim=-1))

    def generate(self, prompt, new_tokens):
        self.clear()
        out = [self.feed(list(prompt))]
        while len(out) < new_tokens:
            out.append(self.feed([out[-1]]))
        return out


# ---- Timing ----------------------------------------------------------------------------------

def measure(run, warmup, reps, budget):
    """warmup() (unless None: done by the caller), then run() (returning seconds) up to reps
    times, fewer once the timed runs add up to budget seconds (budget 0: always reps).
    Returns (median seconds, runs)."""
    if warmup is not None:
        warmup()
    times = []
    while len(times) < reps:
        times.append(run())
        if budget > 0 and sum(times) >= budget:
            break
    return statistics.median(times), len(times)


def time_simple(model, new_tokens, context, check):
    idx = torch.tensor([HELLO], dtype=torch.long)
    t0 = time.perf_counter()
    out = ref.generate_text_simple(model, idx, max_new_tokens=new_tokens, context_size=context)
    elapsed = time.perf_counter() - t0
    check(out[0, len(HELLO):].tolist())
    return elapsed


def time_prefill(dec):
    t0 = time.perf_counter()
    dec.clear()
    dec.feed(list(PREFILL_PROMPT))
    return time.perf_counter() - t0


def time_decode(dec, steps):
    dec.clear()
    nxt = dec.feed(list(HELLO))  # the prompt, outside the timing
    t0 = time.perf_counter()
    for _ in range(steps):
        nxt = dec.feed([nxt])
    return time.perf_counter() - t0


# ---- Main ------------------------------------------------------------------------------------

def fmt_time(s):
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.1f} ms"


def main():
    load_start = os.getloadavg()
    cfg = ref.GPT_CONFIG_124M
    log(f"torch {torch.__version__}, CPU capability {ref.cpu_capability()}; building GPT-2 124M (seed 123)")
    model = ref.build_model(cfg, seed=123, dtype=torch.float32)
    bytes_per_token = decode_bytes_per_token(model)

    log("memory read bandwidth (numpy sum over 512 MiB float32)")
    torch.set_num_threads(1)
    bandwidth, bandwidth_1d = numpy_read_bandwidth()
    limit_tps = bandwidth / bytes_per_token

    onednn_ok, onednn_reason = onednn_status()
    onednn_impl = onednn_implementation() if onednn_ok else None

    rows = []  # (measurement, path, threads, runs, time text, tokens/s, % of limit)
    reference_ids = []
    checks = []  # (threads, path, ids equal?)

    def check_simple(ids):
        if not reference_ids:
            reference_ids.extend(ids)
        assert ids == reference_ids, f"generate_text_simple changed its output: {ids} vs {reference_ids}"

    with torch.inference_mode(), ref.default_dtype(torch.float32):
        decoders = {"nn.Linear (torch's BLAS)": CachedGPT(model)}
        if onednn_ok:
            log("prepacking the Linear weights for oneDNN")
            linears = {m: OneDNNLinear(m) for m in model.modules() if isinstance(m, nn.Linear)}
            decoders["oneDNN (prepacked 1x1 conv)"] = CachedGPT(model, linears)
            call_times = linear_call_times(model)

        for threads in OPTS.threads:
            torch.set_num_threads(threads)
            log(f"{threads} thread(s): generate_text_simple, 4 -> {len(HELLO) + SIMPLE_NEW} tokens")
            ctx = cfg["context_length"]
            t, runs = measure(lambda: time_simple(model, SIMPLE_NEW, ctx, check_simple),
                              lambda: ref.generate_text_simple(model, torch.tensor([HELLO]), 1, ctx),
                              OPTS.reps, OPTS.budget)
            rows.append(("generate_text_simple (book: whole sequence each step), 4 -> 36 tokens",
                         "nn.Linear (torch's BLAS)", threads, runs, fmt_time(t), SIMPLE_NEW / t, None))

            for path, dec in decoders.items():
                log(f"{threads} thread(s), {path}: ids check (the decode's warm-up)")
                ids = dec.generate(HELLO, SIMPLE_NEW)
                same = ids == reference_ids
                checks.append((threads, path, same, ids))
                if dec.linears is None:
                    assert same, f"KV-cached ids {ids} != generate_text_simple's {reference_ids}"

                log(f"{threads} thread(s), {path}: prefill {PREFILL_LEN}")
                t, runs = measure(lambda: time_prefill(dec), lambda: time_prefill(dec), OPTS.reps, OPTS.budget)
                rows.append((f"KV cache: prefill {PREFILL_LEN}-token prompt (time to first token; prompt tokens/s)",
                             path, threads, runs, fmt_time(t), PREFILL_LEN / t, None))

                log(f"{threads} thread(s), {path}: decode {DECODE_NEW}")
                t, runs = measure(lambda: time_decode(dec, DECODE_NEW), None, OPTS.reps, OPTS.budget)
                tps = DECODE_NEW / t
                rows.append((f"KV cache: decode {DECODE_NEW} new tokens after 4-token prompt (time per token)",
                             path, threads, runs, fmt_time(t / DECODE_NEW), tps, tps / limit_tps))

            if not onednn_ok:
                for what in ("prefill", "decode"):
                    rows.append((f"KV cache: {what}", "oneDNN", threads, 0,
                                 "not available in this torch build", None, None))

    rows.append((f"decode limit: {bytes_per_token / 1e6:.1f} MB/token / {bandwidth / 1e9:.2f} GB/s (numpy read)",
                 "memory bound", "-", BANDWIDTH_REPS, fmt_time(1 / limit_tps), limit_tps, 1.0))
    load_end = os.getloadavg()
    elapsed = time.perf_counter() - T_START

    # ---- Report ----
    print(f"# GPT-2 124M float32 decode, PyTorch {torch.__version__} (CPU capability {ref.cpu_capability()}), "
          f"{os.cpu_count()} CPUs")
    print()
    print(f"- load average: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at start, "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at end; run took {elapsed:.0f} s")
    print(f"- libraries loaded: {', '.join(loaded_libraries()) or 'none found'}")
    ob = ", ".join(f"{k}={v if v is not None else '(unset)'}" for k, v in OPENBLAS_SEEN.items())
    removed = "kept (--keep-openblas-env)" if OPTS.keep_openblas_env else "removed from this process's environment"
    openblas_loaded = any("openblas" in os.path.basename(p) for p in loaded_libraries())
    print(f"- {ob}: {removed}" + ("" if openblas_loaded else "; no OpenBLAS is loaded here, so they change nothing"))
    print(f"- memory read bandwidth: {bandwidth / 1e9:.2f} GB/s (numpy float32 sum over 512 MiB as "
          f"a.reshape(-1, 256).sum(axis=0), median of {BANDWIDTH_REPS}; a numpy reading: bench_gpt.cpp "
          f"measures its own); plain 1-D a.sum(): {bandwidth_1d / 1e9:.2f} GB/s (pairwise summation, "
          f"bound by its adds)")
    print(f"- bytes a decode step reads: {bytes_per_token:,} ({bytes_per_token / 1e6:.1f} MB: the blocks, "
          f"final_norm, out_head, one row of each embedding) -> decode limit {limit_tps:.1f} tokens/s")
    if onednn_ok:
        isa = f"; ONEDNN_MAX_CPU_ISA={OPTS.onednn_max_isa}" if OPTS.onednn_max_isa else ""
        print(f"- oneDNN path: each nn.Linear as a 1x1 convolution, weight prepacked once by "
              f"torch._C._nn.mkldnn_reorder_conv2d_weight, run by torch.mkldnn_convolution "
              f"(oneDNN implementation: {onednn_impl}{isa})")
        print("- one 768 -> 3072 Linear on a 1 x 768 input (1 thread, median of 20): "
              + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in call_times.items())
              + " (to_mkldnn's MkldnnLinear reorders its weight on every call in torch 1.13)")
    else:
        print(f"- oneDNN: not available in this torch build: {onednn_reason}")
    for threads, path, same, ids in checks:
        verdict = "identical to generate_text_simple's (asserted)" if same else f"DIFFERENT: {ids}"
        if same and path.startswith("oneDNN"):
            verdict = "identical to generate_text_simple's"
        print(f"- ids check, {threads} thread(s), {path}: 32 new ids {verdict}")
    print(f"- reference ids (generate_text_simple, 'Hello, I am' + 32): {reference_ids}")
    budget = f"at most {OPTS.reps}, fewer once a row's timed runs pass {OPTS.budget:g} s" if OPTS.budget > 0 \
        else f"{OPTS.reps}"
    print(f"- each row: one warm-up (generate_text_simple: 1 token; decode: the ids check; prefill: one "
          f"prefill), then {budget}; medians")
    print()
    print("| measurement | linear layers | threads | runs | median time | tokens/s | % of decode limit |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for what, path, threads, runs, t, tps, frac in rows:
        tps_text = "-" if tps is None else f"{tps:.2f}" if tps < 10 else f"{tps:.1f}"
        frac_text = "-" if frac is None else f"{100 * frac:.1f}%"
        print(f"| {what} | {path} | {threads} | {runs} | {t} | {tps_text} | {frac_text} |")


if __name__ == "__main__":
    main()
