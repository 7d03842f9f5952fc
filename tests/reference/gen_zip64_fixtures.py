#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes the ZIP64 .npz fixtures of tests/npy/zip64_test.cpp: small archives that np.savez writes
with the ZIP64 records it writes for GPT-2 large and XL (archives over 2 GiB).

Python's zipfile writes ZIP64 records once a size or offset passes zipfile.ZIP64_LIMIT (2 GiB - 1)
and a ZIP64 entry count once there are more than zipfile.ZIP_FILECOUNT_LIMIT (65535) entries. This
script lowers both limits, so that np.savez itself writes, for a few hundred bytes: ZIP64 local
headers (np.savez opens every entry with force_zip64=True anyway), ZIP64 extra fields in the
central directory (offsets and sizes past the limit), the ZIP64 end-of-central-directory record and
its locator. The arrays are those of weights.npz (tests/npy/fixtures, gen_npy_fixtures.py), read
back from it, so fixture_values.hpp describes them.

    /usr/bin/python3 tests/reference/gen_zip64_fixtures.py
"""
import pathlib
import zipfile

import numpy as np

NPY_DIR = pathlib.Path(__file__).resolve().parent.parent / "npy" / "fixtures"


def save_zip64(path, limit, count_limit, arrays):
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limit, count_limit
    try:
        np.savez(path, **arrays)
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


def main():
    with np.load(NPY_DIR / "weights.npz") as f:
        arrays = {k: f[k] for k in ("W_query", "W_key", "bias", "W_f8")}
    # Every offset and size past 100 bytes in ZIP64 fields, and a ZIP64 end record (also for the
    # entry count). The classic end record keeps the real, small values, as zipfile writes
    # min(value, 0xffff or 0xffffffff); the test sets them to all ones, as in an archive over 4 GiB.
    save_zip64(NPY_DIR / "zip64_end.npz", 100, 1, arrays)
    for name in ("zip64_end.npz",):
        data = (NPY_DIR / name).read_bytes()
        assert b"PK\x06\x06" in data and b"PK\x06\x07" in data, name  # ZIP64 end record and locator
        with np.load(NPY_DIR / name) as f:
            for k, v in arrays.items():
                assert np.array_equal(f[k], v), (name, k)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
