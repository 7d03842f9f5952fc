#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/print/print_reference.hpp: values and PyTorch's printed strings of them.

PyTorch is the reference for static_attention/io/print.hpp: every case below is printed by
str(torch.tensor(...)) under the case's torch.set_printoptions, and the test checks that
to_string() gives the same text for the same values. Values are hex-float literals so the test
sees exactly the numbers torch printed. A float case is printed twice: as float64 (the values
themselves) and as float32 (the values rounded to float, which is static_cast<float>).

Regenerate with: /usr/bin/python3 tests/reference/gen_print_reference.py
"""
import math
import pathlib

import torch

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/print/print_reference.hpp"

INF, NAN = math.inf, math.nan

# The chapter's six tokens "Your journey starts with one step", 3-d embeddings.
CHAPTER = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]


def chapter_weights():
    x = torch.tensor(CHAPTER, dtype=torch.float64)
    return torch.softmax(x @ x.T, dim=-1).tolist()


def causal_scores():
    x = torch.tensor(CHAPTER, dtype=torch.float64)
    s = x @ x.T
    mask = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    return s.masked_fill(mask, -INF)


def grid(shape, seed, scale=1.0, low=-1.0):
    g = torch.Generator().manual_seed(seed)
    return (low + (1.0 - low) * torch.rand(shape, generator=g, dtype=torch.float64)) * scale


# (name, values, options). Options are torch.set_printoptions keywords.
FLOAT_CASES = [
    ("chapter_inputs", CHAPTER, {}),
    ("chapter_inputs_precision2", CHAPTER, {"precision": 2}),
    ("chapter_inputs_precision6", CHAPTER, {"precision": 6}),
    ("chapter_weights", chapter_weights(), {}),
    ("chapter_weights_precision2", chapter_weights(), {"precision": 2}),
    ("chapter_weights_precision6", chapter_weights(), {"precision": 6}),
    ("causal_scores_masked", causal_scores(), {}),
    ("causal_weights_masked", torch.softmax(causal_scores(), dim=-1), {}),
    ("negatives", [[-0.5, 0.25, -1.75], [3.125, -0.0625, 2.0]], {}),
    ("small_needs_sci", [[1e-5, 0.5], [3.0, 0.25]], {}),
    ("ratio_needs_sci", [[1.0, 2000.5], [0.5, 3.25]], {}),
    ("large_needs_sci", [[1.5e10, -2.5], [0.125, 7.0]], {}),
    ("large_and_small", [[1.5e10, -2.5e-12, 3.0], [-4.25e5, 6.0e-7, -1.0]], {}),
    ("nan_and_inf", [[NAN, INF, -INF], [0.5, -0.25, 1.0]], {}),
    ("nan_and_inf_sci", [[NAN, 1e-6, -INF], [0.5, -0.25, INF]], {}),
    ("only_nonfinite", [[NAN, INF], [-INF, NAN]], {}),
    ("zeros", [[0.0, 0.0, 0.0], [0.0, -0.0, 0.0]], {}),
    ("zeros_sci_forced", [[0.0, 0.0]], {"sci_mode": True}),
    ("whole_numbers", [[1.0, -2.0, 30.0], [4.0, 0.0, 600.0]], {}),
    ("whole_numbers_with_inf", [[1.0, -INF], [NAN, 12.0]], {}),
    ("whole_numbers_sci", [[1.0, 2.0e4], [3.0, 4.0]], {}),
    ("whole_numbers_huge", [[1.0e9, 2.0e9]], {}),
    ("sci_forced_on", CHAPTER, {"sci_mode": True}),
    ("sci_forced_on_whole", [[1.0, 2.0], [3.0, 40.0]], {"sci_mode": True}),
    ("precision0", CHAPTER, {"precision": 0}),
    ("sci_forced_off", [[1e-5, 0.5], [3.0, 1234567.0]], {"sci_mode": False}),
    ("sci_forced_off_whole", [[1.0, 2.0e4], [3.0, 4.0]], {"sci_mode": False}),
    ("one_by_one", [[0.75]], {}),
    ("one_row", [[0.1, 0.2, 0.3, 0.4]], {}),
    ("one_col", [[0.1], [-0.2], [0.3]], {}),
    ("rounding_halfway", [[0.03125, 0.15625, 0.09375], [1.5, 2.5, 0.5]], {}),
    ("rounding_halfway_precision2", [[0.125, 0.375, 0.625], [1.5, 2.5, 0.005]], {"precision": 2}),
    ("wide_wraps", grid((2, 30), 1, 1.0, 0.1), {}),
    ("wide_wraps_sci", grid((2, 30), 1), {}),
    ("wide_one_row_wraps", grid((1, 17), 2, 10.0), {}),
    ("wide_sci_wraps", grid((3, 12), 3, 1e-3), {"sci_mode": True}),
    ("wide_linewidth40", grid((2, 9), 4), {"linewidth": 40}),
    ("wide_linewidth120", grid((2, 20), 5), {"linewidth": 120}),
    ("narrow_linewidth10", [[0.5, 0.25, 0.125]], {"linewidth": 10}),
    ("suffix_wraps", grid((1, 7), 6, 1.0, 0.0), {}),
    ("batch_2x3x4", torch.arange(24, dtype=torch.float64).reshape(2, 3, 4) / 7, {}),
    ("batch_chapter", [CHAPTER, [[-v for v in r] for r in CHAPTER]], {}),
    ("batch_masked", torch.stack([causal_scores()[:3, :3], causal_scores()[3:, 3:]]), {}),
    ("batch_1x2x2", [[[1e-6, 2.0], [3.0, 4.0]]], {}),
    ("batch_wide_wraps", grid((2, 2, 16), 7), {}),
    ("summarized_40x40", grid((40, 40), 8), {}),
    ("summarized_rows", grid((1001, 1), 9), {}),
    # 1e-9 sits where the summary hides it, so it must not switch the printout to scientific.
    ("summarized_hidden_tiny", grid((6, 400), 10, 1.0, 0.1).index_fill(1, torch.tensor([200]), 1e-9), {}),
    ("summarized_batch", grid((8, 5, 30), 11), {}),
    ("summarized_threshold10", grid((4, 5), 12), {"threshold": 10, "edgeitems": 1}),
]

INT_CASES = [
    ("ints", [[1, -2, 3], [40, 5, -600]], ["int64", "int32", "int16"]),
    ("small_ints", [[0, 1, -128], [127, -1, 2]], ["int64", "int8"]),
    ("bytes", [[0, 255, 7], [16, 128, 9]], ["uint8", "int32"]),
    ("int_extremes", [[-9223372036854775808, 9223372036854775807]], ["int64"]),
    ("int_batch", torch.arange(-6, 18).reshape(2, 3, 4).tolist(), ["int64", "int32"]),
    ("int_wide_wraps", torch.arange(-1000, 1000, 53).reshape(2, 19).tolist(), ["int64"]),
    ("int_summarized", torch.arange(0, 2100).reshape(30, 70).tolist(), ["int64"]),
]

BOOL_CASES = [
    ("bools", [[True, False, True], [False, False, True]]),
]

TORCH_DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
                "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
                "uint8": torch.uint8, "boolean": torch.bool}
DEFAULTS = {"precision": 4, "linewidth": 80, "sci_mode": None, "threshold": 1000, "edgeitems": 3}


def torch_str(t, options):
    opts = {**DEFAULTS, **options}
    torch.set_printoptions(**opts)
    try:
        return str(t)
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)


def cxx_string(text):
    assert ")torch\"" not in text
    return f'R"torch({text})torch"'


def cxx_struct(name, t64, element, literal, strings, options):
    opts = {**DEFAULTS, **options}
    sci = {None: -1, False: 0, True: 1}[opts["sci_mode"]]
    shape = ", ".join(str(d) for d in t64.shape)
    values = ", ".join(literal(v) for v in t64.reshape(-1).tolist())
    lines = [f"struct {name} {{",
             f"  static constexpr std::size_t shape[] = {{{shape}}};",
             f"  static constexpr {element} values[] = {{{values}}};",
             f"  static constexpr int precision = {opts['precision']};",
             f"  static constexpr int linewidth = {opts['linewidth']};",
             f"  static constexpr int sci_mode = {sci};  // -1: automatic (None), 0: off, 1: on",
             f"  static constexpr std::size_t threshold = {opts['threshold']};",
             f"  static constexpr std::size_t edgeitems = {opts['edgeitems']};"]
    for dtype, text in strings:
        lines.append(f"  static constexpr std::string_view {dtype} = {cxx_string(text)};")
    lines.append("};\n")
    return "\n".join(lines)


def int_literal(v):
    # -2^63 has no literal of its own in C++.
    return "(-9223372036854775807LL - 1)" if v == -(2**63) else f"{v}LL"


def main():
    parts, names = [], []
    for name, values, options in FLOAT_CASES:
        t64 = torch.as_tensor(values, dtype=torch.float64)
        strings = [("float32", torch_str(t64.float(), options)),
                   ("float64", torch_str(t64, options))]
        parts.append(cxx_struct(name, t64, "double", lambda v: float(v).hex()
                                if math.isfinite(v) else {INF: "inf", -INF: "-inf"}.get(v, "nan"),
                                strings, options))
        names.append(name)
    for name, values, dtypes in INT_CASES:
        t = torch.as_tensor(values, dtype=torch.int64)
        strings = [(d, torch_str(t.to(TORCH_DTYPES[d]), {})) for d in dtypes]
        parts.append(cxx_struct(name, t, "long long", int_literal, strings, {}))
        names.append(name)
    for name, values in BOOL_CASES:
        t = torch.as_tensor(values, dtype=torch.bool)
        strings = [("boolean", torch_str(t, {}))]
        parts.append(cxx_struct(name, t, "bool", lambda v: "true" if v else "false", strings, {}))
        names.append(name)

    header = [
        "// Generated by tests/reference/gen_print_reference.py from PyTorch " + torch.__version__.split("a")[0]
        + "; do not edit.\n",
        "// clang-format off\n",
        "// Each case: a shape, row-major values, torch.set_printoptions values, and str(tensor)\n",
        "// for each dtype printed (float32 is the values rounded to float).\n",
        "#pragma once\n\n#include <cstddef>\n#include <limits>\n#include <string_view>\n#include <tuple>\n\n",
        "namespace reference::print {\n",
        "inline constexpr double inf = std::numeric_limits<double>::infinity();\n",
        "inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();\n\n",
    ]
    footer = ["using all_cases = std::tuple<" + ", ".join(names) + ">;\n",
              "}  // namespace reference::print\n"]
    OUT.write_text("".join(header) + "\n".join(parts) + "\n" + "".join(footer))


if __name__ == "__main__":
    main()
