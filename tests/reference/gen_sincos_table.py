#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Prints the constants of include/static_attention/core/detail/sincos.hpp from their
mathematical definitions (mpmath at 400 bits, then exact rationals, rounded to double by
Python's correctly rounded float(Fraction)):

  * pi/128 as p1 + p2 + p3: p1 and p2 with 45 significant bits (n * p1 and n * p2 are exact for
    the integers n <= 256 of the reduction), p3 the double nearest the rest; 128/pi;
  * sin(k pi/128) for k = 0..64 as double-doubles hi + lo (hi the double nearest, lo the double
    nearest the rest), cos(k pi/128) being sin((64 - k) pi/128);
  * the Taylor coefficients (-1)^k/(2k+1)! and (-1)^k/(2k)!, as double-doubles where the kernel
    needs more than a double.

Run it to print the constants (paste them into the header, then clang-format it), or with
--check to compare the header's numbers with them (exit status 1 if they differ):
    python3 tests/reference/gen_sincos_table.py [--check]
"""
import pathlib
import re
import sys
from fractions import Fraction
from math import factorial

import mpmath

mpmath.mp.prec = 400


def frac(v):
    m, e = mpmath.mpf(v).man_exp
    return Fraction(m) * Fraction(2) ** e


def dd(f):
    hi = float(f)
    return hi, float(f - Fraction(hi))


def round_bits(f, bits):
    """f rounded to nearest with `bits` significant bits."""
    e = 0
    while abs(f) >= 2 ** (bits - 1 + e) * Fraction(1):
        e += 1
    while abs(f) < 2 ** (bits - 1 + e) * Fraction(1):
        e -= 1
    scale = Fraction(2) ** e
    return Fraction(round(f / scale)) * scale


def h(x):
    return "0.0" if x == 0 else float(x).hex()


HEADER = pathlib.Path(__file__).resolve().parents[2] / "include/static_attention/core/detail/sincos.hpp"
NUMBER = re.compile(r"-?0x[0-9a-f.]+p[-+][0-9]+|-?\b0\.0\b")


def numbers(text):
    """The double literals of the constants pi_128_*, inv_pi_128 and sin_table, in order."""
    start = text.index("inline constexpr double pi_128_1")
    end = text.index("};", text.index("sin_table[65]"))
    return [float.fromhex(v) if "x" in v else 0.0 for v in NUMBER.findall(re.sub(r"//[^\n]*", "", text[start:end]))]


def main():
    if "--check" in sys.argv[1:]:
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            generate()
        ours = numbers(buf.getvalue().split("// sin c1")[0] + "};")
        theirs = numbers(HEADER.read_text())
        ok = ours == theirs and len(ours) == 4 + 2 * 65
        print(f"{HEADER.name}: {len(theirs)} constants, {'as generated' if ok else 'DIFFERENT from the generator'}")
        sys.exit(0 if ok else 1)
    generate()


def generate():
    pi128 = frac(mpmath.pi / 128)
    p1 = round_bits(pi128, 45)
    p2 = round_bits(pi128 - p1, 45)
    p3 = float(pi128 - p1 - p2)
    assert float(p1) == p1 and float(p2) == p2
    print(f"inline constexpr double pi_128_1 = {h(p1)}, pi_128_2 = {h(p2)}, pi_128_3 = {h(p3)};")
    print(f"inline constexpr double inv_pi_128 = {h(float(frac(128 / mpmath.pi)))};")
    print("inline constexpr dd sin_table[65] = {")
    for k in range(65):
        hi, lo = dd(frac(mpmath.sin(k * mpmath.pi / 128)))
        print(f"    {{{h(hi)}, {h(lo)}}},  // k = {k}")
    print("};")
    for name, sign_odd in (("sin", 1), ("cos", 0)):
        for k in range(1, 7):
            c = Fraction((-1) ** k, factorial(2 * k + sign_odd))
            hi, lo = dd(c)
            print(f"// {name} c{k} = {'+' if k % 2 == 0 else '-'}1/{2 * k + sign_odd}!: {{{h(hi)}, {h(lo)}}}")


if __name__ == "__main__":
    main()
