#!/usr/bin/env python3
"""Writes a deterministic 16-bit greyscale PNG heightmap for open-world tests and benches.

    scripts/heightmap.py SIDE OUT.png [SEED]

Fractal value noise (eight octaves, from a quarter of the map down to two samples) with
ridged mountains where a low-frequency mask is high: terrain with plains, hills and
steep ridges at every scale, so a terrain LOD meets real detail. Standard library only.
"""
import random
import struct
import sys
import zlib


def lattice(rng, n):
    return [[rng.random() for _ in range(n + 2)] for _ in range(n + 2)]


def smooth(t):
    return t * t * (3.0 - 2.0 * t)


def sample(grid, u, v):
    """Smoothly interpolated lattice value at (u, v) in lattice units."""
    i, j = int(u), int(v)
    fu, fv = smooth(u - i), smooth(v - j)
    row0, row1 = grid[j], grid[j + 1]
    a = row0[i] + (row0[i + 1] - row0[i]) * fu
    b = row1[i] + (row1[i + 1] - row1[i]) * fu
    return a + (b - a) * fv


def main():
    side = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    # Wavelengths in samples, largest first; amplitudes fall off like 1/f^0.9.
    wavelengths = [side / 4, side / 8, side / 16, side / 32, 32, 12, 5, 2]
    octaves = []
    for w in wavelengths:
        n = int(side / w) + 1
        octaves.append((lattice(rng, n), 1.0 / w, (w / side) ** 0.9))
    mask = lattice(rng, 4)
    rows = []
    for z in range(side):
        row = bytearray(b"\0")
        for x in range(side):
            m = sample(mask, x * 3.0 / side, z * 3.0 / side)
            h = 0.0
            for k, (grid, f, amp) in enumerate(octaves):
                n = sample(grid, x * f, z * f)
                if k >= 2 and m > 0.55:
                    n = 1.0 - abs(2.0 * n - 1.0)  # ridges in the mountains
                h += amp * n
            h = h * (0.35 + 0.9 * max(0.0, m - 0.3))
            v = max(0, min(65535, int(h * 52000)))
            row += struct.pack(">H", v)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 16, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6))
    png += chunk(b"IEND", b"")
    with open(out, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
