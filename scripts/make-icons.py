#!/usr/bin/env python3
"""Renders the web app's icons (web/icons/*.png) from a simple original design: a white play
triangle sending out two arcs, on the app's blue. Standard library only (zlib + struct write the
PNG), deterministic, so the committed files are exactly what this prints again:

    python3 scripts/make-icons.py            # writes web/icons/
    python3 scripts/make-icons.py --check    # fails when the committed icons differ

`icon-192.png` and `icon-512.png` are rounded squares on transparency ("any"); the maskable one
fills its whole square and keeps the drawing inside the central safe circle (radius 40 %), as
launchers crop it to their own shape."""
import argparse
import math
import struct
import sys
import zlib
from pathlib import Path

BLUE = (0x1f, 0x6f, 0xeb)
WHITE = (0xff, 0xff, 0xff)
SAMPLES = 4   # per axis: 16 samples a pixel smooth the edges


def play_and_arcs(x, y):
    """True where the drawing (white) covers the point (x, y) of the unit square."""
    # A play triangle, left of centre.
    ax, ay, bx, by, cx = 0.30, 0.30, 0.30, 0.70, 0.56
    if x >= ax and abs(y - 0.5) <= (cx - x) / (cx - ax) * (by - ay) / 2:
        return True
    # Two arcs around the triangle's tip, opening to the right.
    dx, dy = x - 0.50, y - 0.5
    r = math.hypot(dx, dy)
    if dx > 0 and abs(dy) <= dx * 1.2:
        for middle in (0.14, 0.24):
            if abs(r - middle) <= 0.033:
                return True
    return False


def rounded_square(x, y, radius=0.2):
    qx, qy = min(x, 1 - x), min(y, 1 - y)
    if qx >= radius or qy >= radius:
        return True
    return math.hypot(radius - qx, radius - qy) <= radius


def render(size, maskable):
    rows = []
    for j in range(size):
        row = bytearray([0])   # filter: none
        for i in range(size):
            inside = ink = 0
            for sj in range(SAMPLES):
                for si in range(SAMPLES):
                    x = (i + (si + 0.5) / SAMPLES) / size
                    y = (j + (sj + 0.5) / SAMPLES) / size
                    if maskable:
                        inside += 1
                        # The drawing shrunk to the safe zone (80 % of the side, centred).
                        ink += play_and_arcs(0.5 + (x - 0.5) / 0.72, 0.5 + (y - 0.5) / 0.72)
                    elif rounded_square(x, y):
                        inside += 1
                        ink += play_and_arcs(x, y)
            total = SAMPLES * SAMPLES
            if inside == 0:
                row += bytes(4)
                continue
            t = ink / inside
            colour = [round(b + (w - b) * t) for b, w in zip(BLUE, WHITE)]
            row += bytes(colour + [round(255 * inside / total)])
        rows.append(bytes(row))
    return png(size, size, b''.join(rows))


def png(width, height, raw):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    header = struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0)   # 8-bit RGBA
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


ICONS = {'icon-192.png': (192, False), 'icon-512.png': (512, False), 'icon-maskable-512.png': (512, True)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--check', action='store_true', help='compare with the committed icons instead of writing')
    parser.add_argument('--out', default=str(Path(__file__).resolve().parents[1] / 'web/icons'))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, (size, maskable) in ICONS.items():
        data = render(size, maskable)
        path = out / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f'{path} ({len(data)} bytes)')
    if stale:
        sys.exit(f'make-icons: {", ".join(stale)} differ from what scripts/make-icons.py renders: run it and commit web/icons/')


if __name__ == '__main__':
    main()
