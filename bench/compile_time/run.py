#!/usr/bin/python3
# SPDX-License-Identifier: BSL-1.0
"""Compile-time benchmarks of static_attention (a developer tool; python3 standard library only).

1. Evaluation: times `static_assert` evaluation of self-attention at N = d (lib_attention.cpp)
   against a hand-written raw-loop baseline (raw_attention.cpp), compiled side by side with
   -fsyntax-only. Each fixture is compiled with -DSA_EVAL (forward pass in a static_assert)
   and without (same templates instantiated, nothing evaluated); evaluation time is the
   difference of the medians. Under the compilers' DEFAULT constexpr limits, a shape that does
   not fit is reported as the limit the compiler hit.
2. Largest shape: with the limits raised as static_attention_raise_constexpr_limits does
   (Clang -fconstexpr-steps=2^30; GCC -fconstexpr-ops-limit=2^30 -fconstexpr-loop-limit=2^30),
   and under the defaults, the largest N = d in --search that evaluates, for both fixtures.
3. Include cost: compiling (-c, -O0) a file including <static_attention/static_attention.hpp>,
   <Eigen/Dense>, or the Boost.Hana headers the library uses, each minus a file including only
   <array>.

Usage (from anywhere): /usr/bin/python3 bench/compile_time/run.py [--runs 5] [--sizes 8,16,32,48,64]
    [--compilers g++,clang++-16] [--include DIR] [--search 48,56,64,80,96,128] [--no-search]
    [--no-includes] [--markdown]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Werror"]
RAISED = {  # mirrors cmake/StaticAttentionHelpers.cmake, STEPS default 1073741824
    "clang": ["-fconstexpr-steps=1073741824"],
    "gcc": ["-fconstexpr-ops-limit=1073741824", "-fconstexpr-loop-limit=1073741824"],
}
LIMIT_PATTERNS = [
    (r"maximum step limit", "clang -fconstexpr-steps"),
    (r"operation count exceeds limit", "gcc -fconstexpr-ops-limit"),
    (r"loop iteration count exceeds limit", "gcc -fconstexpr-loop-limit"),
    (r"constexpr-depth|recursion depth", "depth limit"),
]


def kind(compiler):
    return "clang" if "clang" in compiler else "gcc"


def compile_once(compiler, args, timeout):
    start = time.perf_counter()
    try:
        proc = subprocess.run([compiler] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        for pattern, name in LIMIT_PATTERNS:
            if re.search(pattern, proc.stderr):
                return None, name
        return None, "error: " + proc.stderr.strip().splitlines()[-1][:160] if proc.stderr.strip() else "error"
    return elapsed, None


def median_time(compiler, args, runs, timeout):
    times = []
    for _ in range(runs):
        t, err = compile_once(compiler, args, timeout)
        if err:
            return None, err
        times.append(t)
    return statistics.median(times), None


def fixture_args(include, fixture, n, d, evaluate, extra):
    args = ["-std=c++20", "-fsyntax-only"] + WARN + ["-I" + include, f"-DSA_N={n}", f"-DSA_D={d}"]
    if evaluate:
        args.append("-DSA_EVAL")
    return args + extra + [os.path.join(HERE, fixture)]


def evaluation_table(opts):
    rows = []
    for compiler in opts.compilers:
        for n in opts.sizes:
            row = {"compiler": compiler, "n": n}
            for name, fixture in (("lib", "lib_attention.cpp"), ("raw", "raw_attention.cpp")):
                base, err0 = median_time(compiler, fixture_args(opts.include, fixture, n, n, False, []), opts.runs,
                                         opts.timeout)
                full, err1 = median_time(compiler, fixture_args(opts.include, fixture, n, n, True, []), opts.runs,
                                         opts.timeout)
                row[name + "_total"] = full
                row[name + "_eval"] = None if full is None or base is None else max(full - base, 0.0)
                row[name + "_err"] = err0 or err1
            rows.append(row)
            print_row(row, opts.markdown)
            sys.stdout.flush()
    return rows


def fmt_s(v):
    return "—" if v is None else f"{v:.3f}"


def print_row(row, markdown):
    lib = fmt_s(row["lib_eval"]) if not row["lib_err"] else row["lib_err"]
    raw = fmt_s(row["raw_eval"]) if not row["raw_err"] else row["raw_err"]
    ratio = "—"
    if row["lib_eval"] is not None and row["raw_eval"]:
        ratio = f"{row['lib_eval'] / row['raw_eval']:.2f}×"
    cells = [row["compiler"], f"{row['n']}×{row['n']}", lib, raw, ratio, fmt_s(row["lib_total"]), fmt_s(row["raw_total"])]
    if markdown:
        print("| " + " | ".join(cells) + " |")
    else:
        print("  ".join(f"{c:>28}" if i in (2, 3) else f"{c:>12}" for i, c in enumerate(cells)))


def largest(opts):
    print("\n# Largest N = d that evaluates (self-attention, float)")
    for compiler in opts.compilers:
        for limits in ("default", "raised"):
            extra = [] if limits == "default" else RAISED[kind(compiler)]
            for name, fixture in (("lib", "lib_attention.cpp"), ("raw", "raw_attention.cpp")):
                best, first_fail = None, None
                for n in opts.search:
                    t, err = compile_once(compiler, fixture_args(opts.include, fixture, n, n, True, extra),
                                          opts.timeout)
                    if err:
                        first_fail = f"{n}: {err}"
                        break
                    best = (n, t)
                fits = f"{best[0]} ({best[1]:.1f} s)" if best else "none"
                line = [compiler, limits, name, fits, first_fail or "all fit"]
                print(("| " + " | ".join(line) + " |") if opts.markdown else "  ".join(line))
                sys.stdout.flush()


def includes(opts):
    print("\n# Include cost (-c -O0, median of runs; minus <array> alone)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "x.o")
        for compiler in opts.compilers:
            times = {}
            for name in ("array", "umbrella", "hana", "eigen"):
                args = ["-std=c++20", "-c", "-O0", "-I" + opts.include, "-I/usr/include/eigen3",
                        os.path.join(HERE, f"include_{name}.cpp"), "-o", out]
                times[name], err = median_time(compiler, args, opts.runs, opts.timeout)
                if err:
                    print(compiler, name, err)
            base = times["array"] or 0.0
            cells = [compiler, fmt_s(base)] + [
                (f"{times[n]:.3f} (+{times[n] - base:.3f})" if times[n] is not None else "—")
                for n in ("umbrella", "hana", "eigen")]
            print(("| " + " | ".join(cells) + " |") if opts.markdown else "  ".join(cells))
            sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sizes", default="8,16,32,48,64")
    p.add_argument("--search", default="48,56,64,80,96,128")
    p.add_argument("--compilers", default="g++,clang++-16")
    p.add_argument("--include", default=os.path.join(ROOT, "include"))
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--no-eval", action="store_true")
    p.add_argument("--no-search", action="store_true")
    p.add_argument("--no-includes", action="store_true")
    p.add_argument("--markdown", action="store_true")
    opts = p.parse_args()
    opts.sizes = [int(s) for s in opts.sizes.split(",")]
    opts.search = [int(s) for s in opts.search.split(",")]
    opts.compilers = opts.compilers.split(",")
    print(f"# static_assert evaluation of self-attention N = d (float), median of {opts.runs} runs, seconds")
    print("# columns: compiler, shape, library eval, raw-loop eval, ratio lib/raw, library total, raw total")
    if opts.markdown:
        print("| compiler | N×d | library eval (s) | raw loops eval (s) | ratio | library total (s) | raw total (s) |")
        print("|---|---|---:|---:|---:|---:|---:|")
    if not opts.no_eval:
        evaluation_table(opts)
    if not opts.no_search:
        if opts.markdown:
            print("| compiler | limits | fixture | largest N = d that fits (time) | first failure |")
            print("|---|---|---|---|---|")
        largest(opts)
    if not opts.no_includes:
        if opts.markdown:
            print("| compiler | <array> alone (s) | + static_attention.hpp | + Hana headers only | + <Eigen/Dense> |")
            print("|---|---:|---:|---:|---:|")
        includes(opts)


if __name__ == "__main__":
    main()
