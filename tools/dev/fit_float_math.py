#!/usr/bin/python3
# SPDX-License-Identifier: BSL-1.0
"""Polynomial fits of the float-only log and tanh kernels (include/static_attention/detail/
math_log.hpp and math_tanh.hpp), with float coefficients.

Each fit is a weighted least-squares fit on Chebyshev nodes in 50-digit arithmetic (mpmath),
rounded to float one coefficient at a time, lowest degree first, the rest re-fitted after each
rounding so that the higher coefficients absorb the rounding of the lower ones. Prints the coefficients (C++ hex-float
literals, highest degree first, in Horner order) and the max error of the rounded polynomial.
Run: /usr/bin/python3 tools/dev/fit_float_math.py   (needs mpmath; torch's python has it)
"""
import struct

import mpmath as mp

mp.mp.dps = 50


def to_float(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def float_literal(c):
    """A float as a C++ hex-float literal: 0x1.555556p-2f."""
    mantissa, exponent = c.hex().split("p")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}p{exponent}f"


def fit_rounded(g, a, b, n, weight):
    """Degree-n fit of g on [a, b] with float coefficients: weighted least squares on Chebyshev
    nodes; the coefficients are rounded to float lowest degree first, the higher ones re-fitted
    after each rounding so that they absorb it."""
    nodes = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / 300) for i in range(300)]
    fixed = []
    for k in range(n + 1):
        free = list(range(k, n + 1))
        rows, rhs = [], []
        for z in nodes:
            w = weight(z)
            rest = g(z) - sum(mp.mpf(c) * z**i for i, c in enumerate(fixed))
            rows.append([w * z**i for i in free])
            rhs.append(w * rest)
        coeffs = mp.qr_solve(mp.matrix(rows), mp.matrix(rhs))[0]
        fixed.append(to_float(coeffs[0]))
    return fixed


def report(name, g, a, b, n, relative_to=None):
    cs = fit_rounded(g, a, b, n, relative_to or (lambda z: 1))
    points = [a + (b - a) * mp.mpf(i) / 4000 for i in range(4001)]
    worst = mp.mpf(0)
    for z in points:
        if z == 0:
            continue
        e = abs(sum(mp.mpf(c) * z**i for i, c in enumerate(cs)) - g(z))
        if relative_to:
            e = e * relative_to(z)
        worst = max(worst, e)
    print(f"{name}: degree {n}, max error 2^{float(mp.log(worst, 2)):.2f}")
    print("   ", ", ".join(float_literal(c) for c in reversed(cs)))
    return cs


def main():
    smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
    zmax_log = smax**2 * mp.mpf("1.0001")
    # log: log(1 + f) = 2 atanh(s) = 2s + s z P(z), s = f / (2 + f), z = s^2; the error that
    # matters is that of s z P(z), so P's error is weighted by |s z| = z^1.5.
    p_log = lambda z: mp.mpf(2) / 3 if z == 0 else (2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z
    for n in (2, 3):
        report("log P(z) (weighted by z^1.5: absolute error in log1p)", p_log, 0, zmax_log, n,
               relative_to=lambda z: z * mp.sqrt(z))
    # tanh, |x| < T: tanh(x) = x + x z P(z), z = x^2; weighted by z: error relative to x.
    p_tanh = lambda z: mp.mpf(-1) / 3 if z == 0 else (mp.tanh(mp.sqrt(z)) / mp.sqrt(z) - 1) / z
    for t in ("0.1875", "0.21875", "0.25"):
        for n in (3, 4):
            report(f"tanh P(z) on [0, {t}^2] (weighted by z: relative error in tanh)", p_tanh, 0,
                   mp.mpf(t)**2 * mp.mpf("1.0001"), n, relative_to=lambda z: z)


if __name__ == "__main__":
    main()
