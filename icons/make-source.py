#!/usr/bin/env python3
"""Draws the 1024x1024 source icon (icons/source.png) with the standard library only.

A dark rounded square with a bright ring, anti-aliased by 4x4 supersampling of the edges.
The platform icon set is then generated from it with the Tauri CLI:

    python3 icons/make-source.py && npx tauri icon icons/source.png -o icons
"""
import math
import os
import struct
import zlib

SIZE = 1024
CORNER = 200          # corner radius of the rounded square
MARGIN = 32           # transparent border around the square
RING_R = 300          # ring centre-line radius
RING_W = 70           # ring thickness
BG = (18, 22, 33)     # square fill
BG_EDGE = (40, 48, 70)
RING = (94, 234, 212) # teal ring
DOT = (244, 247, 252) # centre dot
DOT_R = 70


def rounded_square_coverage(x, y):
    """1.0 inside the rounded square, 0.0 outside (point test)."""
    lo, hi = MARGIN, SIZE - MARGIN
    if x < lo or x > hi or y < lo or y > hi:
        return 0.0
    cx = min(max(x, lo + CORNER), hi - CORNER)
    cy = min(max(y, lo + CORNER), hi - CORNER)
    return 1.0 if (x - cx) ** 2 + (y - cy) ** 2 <= CORNER ** 2 else 0.0


def sample(x, y):
    """Colour and alpha at one sub-pixel point."""
    if rounded_square_coverage(x, y) == 0.0:
        return (0.0, 0.0, 0.0, 0.0)
    c = SIZE / 2
    d = math.hypot(x - c, y - c)
    if abs(d - RING_R) <= RING_W / 2:
        r, g, b = RING
    elif d <= DOT_R:
        r, g, b = DOT
    else:
        # a faint radial gradient towards the edge
        t = min(d / (SIZE / 2), 1.0)
        r, g, b = (BG[i] + (BG_EDGE[i] - BG[i]) * t for i in range(3))
    return (r, g, b, 255.0)


def near_edge(x, y):
    """Whether a pixel needs supersampling (close to any shape boundary)."""
    c = SIZE / 2
    d = math.hypot(x + 0.5 - c, y + 0.5 - c)
    if abs(abs(d - RING_R) - RING_W / 2) < 1.5 or abs(d - DOT_R) < 1.5:
        return True
    lo, hi = MARGIN, SIZE - MARGIN
    near_side = min(abs(x - lo), abs(x - hi), abs(y - lo), abs(y - hi)) < 2
    in_corner = (x < lo + CORNER or x > hi - CORNER) and (y < lo + CORNER or y > hi - CORNER)
    return near_side or in_corner


def pixel(x, y):
    if not near_edge(x, y):
        return sample(x + 0.5, y + 0.5)
    n = 4
    acc = [0.0, 0.0, 0.0, 0.0]
    for sy in range(n):
        for sx in range(n):
            r, g, b, a = sample(x + (sx + 0.5) / n, y + (sy + 0.5) / n)
            acc[0] += r * a
            acc[1] += g * a
            acc[2] += b * a
            acc[3] += a
    if acc[3] == 0:
        return (0.0, 0.0, 0.0, 0.0)
    return (acc[0] / acc[3], acc[1] / acc[3], acc[2] / acc[3], acc[3] / (n * n))


def png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    rows = []
    for y in range(SIZE):
        row = bytearray()
        for x in range(SIZE):
            row.extend(round(max(0.0, min(255.0, v))) for v in pixel(x, y))
        rows.append(bytes(row))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "source.png")
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, rows))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
