#!/usr/bin/python3
# SPDX-License-Identifier: BSL-1.0
"""Runs bench_kernels and prints the tables of docs/performance.md (python3 standard library).

Every benchmark runs --reps repetitions, randomly interleaved (so a burst of load on a shared
machine hits every contender alike); the tables show the median GFLOP/s of the repetitions and
ratios of medians to Eigen measured in the same run.

Usage: /usr/bin/python3 bench/report.py <build-dir>/bench/bench_kernels [--reps 15] [--min-time 0.1]
       /usr/bin/python3 bench/report.py --json saved.json   (re-print a saved run)
"""
import argparse
import json
import re
import statistics
import subprocess
import sys


def run(binary, reps, min_time, out):
    cmd = [binary, f"--benchmark_repetitions={reps}", "--benchmark_enable_random_interleaving=true",
           f"--benchmark_min_time={min_time}", "--benchmark_format=json", f"--benchmark_out={out}",
           "--benchmark_out_format=json"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def medians(data, counter="FLOPS"):
    samples = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or counter not in b:
            continue
        samples.setdefault(b["run_name"], []).append(b[counter] / 1e9)
    return {name: statistics.median(v) for name, v in samples.items()}, {n: len(v) for n, v in samples.items()}


def parse(name):
    m = re.match(r"(\w+)<(.*)>", name)
    return m.group(1), [a.strip() for a in m.group(2).split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary", nargs="?")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--json", help="read a saved --benchmark_out file instead of running")
    p.add_argument("--out", default="/tmp/bench_kernels.json")
    opts = p.parse_args()
    data = json.load(open(opts.json)) if opts.json else run(opts.binary, opts.reps, opts.min_time, opts.out)
    med, counts = medians(data)
    ctx = data["context"]
    print(f"# {ctx.get('host_name', '')} {ctx.get('num_cpus')} CPUs @ {ctx.get('mhz_per_cpu')} MHz, "
          f"{ctx.get('library_build_type', '')} benchmark library; load {ctx.get('load_avg')}; "
          f"{max(counts.values())} repetitions, medians")
    peak = {t: med.get(f"fma_peak<{t}>") for t in ("float", "double")}
    print(f"\nFMA peak: float {peak['float']:.1f} GFLOP/s, double {peak['double']:.1f} GFLOP/s\n")

    print("| matmul | type | static_attention | Eigen 3.4 | naive loop | sa / Eigen | % of FMA peak (sa) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    def size_key(name):
        kind, args = parse(name)
        dims = [int(a) for a in args[1:] if a.isdigit()]
        square = len(set(dims[:3])) == 1
        volume = dims[0] * dims[1] * dims[2] if len(dims) > 2 else 0
        return (args[0] != "float", not square, volume)

    for name in sorted(med, key=size_key):
        kind, args = parse(name)
        if kind != "matmul_sa":
            continue
        t, r, k, c = args
        rest = ", ".join(args)
        sa, eg, nv = med[name], med.get(f"matmul_eigen<{rest}>"), med.get(f"matmul_naive<{rest}>")
        print(f"| {r}×{k} · {k}×{c} | {t} | {sa:.1f} | {eg:.1f} | {nv:.1f} | **{sa / eg:.2f}×** | "
              f"{100 * sa / peak[t]:.0f}% |")

    gbs, _ = medians(data, "BYTES")
    read_bw, copy_bw = gbs.get("bench::read_bandwidth"), gbs.get("bench::copy_bandwidth")
    if read_bw:
        print(f"\nMemory: read {read_bw:.1f} GB/s, copy {copy_bw:.1f} GB/s (bytes read + written)\n")
        print("| transformer product (float) | static_attention GFLOP/s | Eigen 3.4 | naive loop | sa / Eigen | "
              "% of FMA peak (sa) | weights GB/s (sa) | % of read bandwidth |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        def transformer_key(name):
            _, args = parse(name)
            return (int(args[2]) * int(args[3]), int(args[1]))
        for name in sorted((n for n in med if n.startswith("transformer_sa<")), key=transformer_key):
            _, args = parse(name)
            t, r, k, c = args
            rest = ", ".join(args)
            sa, eg, nv = med[name], med.get(f"transformer_eigen<{rest}>"), med.get(f"transformer_naive<{rest}>")
            nv_text = f"{nv:.1f}" if nv else "—"
            print(f"| {r}×{k} · {k}×{c} | {sa:.1f} | {eg:.1f} | {nv_text} | **{sa / eg:.2f}×** | "
                  f"{100 * sa / peak[t]:.0f}% | {gbs[name]:.1f} | {100 * gbs[name] / read_bw:.0f}% |")

    print("\n| forward pass | type | N × d_in → d_out (heads) | static_attention | Eigen 3.4 | sa / Eigen |")
    print("|---|---|---|---:|---:|---:|")
    def attention_key(name):
        kind, args = parse(name)
        return (args[0] != "float", kind, int(args[1]) if len(args) > 1 else 0)

    for name in sorted(med, key=attention_key):
        kind, args = parse(name)
        if kind not in ("self_attention_sa", "multi_head_sa"):
            continue
        rest = ", ".join(args)
        eg = med.get(f"{kind.replace('_sa', '_eigen')}<{rest}>")
        sa = med[name]
        label = "self-attention" if kind == "self_attention_sa" else "multi-head (causal)"
        shape = f"{args[1]} × {args[2]} → {args[3]}" + (f" ({args[4]} heads)" if len(args) > 4 else "")
        print(f"| {label} | {args[0]} | {shape} | {sa:.2f} | {eg:.2f} | **{sa / eg:.2f}×** |")


if __name__ == "__main__":
    sys.exit(main())
