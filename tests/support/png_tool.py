#!/usr/bin/env python3
"""png_tool.py — PNG files written and read with the standard library alone
(zlib), independently of kiln's libspng, for the extract and report tests.

  png_tool.py make FILE W H        a deterministic RGBA pattern (varying alpha)
  png_tool.py opaque FILE W H      the same pattern with alpha 255
  png_tool.py equal A B            exit 0 when both decode to the same RGBA texels
  png_tool.py psnr A B             "RGB <dB> A <dB>" as kiln computes PSNR (8-bit,
                                   mean squared error over the channels, 99 if equal)
  png_tool.py size FILE            "W H"
  png_tool.py data-uris HTML       "W H" of every data:image/png;base64 URI in HTML
                                   (exit 1 when one does not decode)
"""
import base64
import math
import re
import struct
import sys
import zlib


def write_png(path, width, height, rgba):
    rows = b"".join(b"\x00" + bytes(rgba[y * width * 4:(y + 1) * width * 4]) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
                + chunk(b"IEND", b""))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png_bytes(data):
    """(width, height, RGBA bytes) of an 8-bit RGBA or RGB PNG, not interlaced."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, width = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError("unsupported PNG layout")
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    out, previous = bytearray(), bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]) & 0xFF
        previous = line
        for x in range(width):
            px = line[x * channels:(x + 1) * channels]
            out += px + (b"\xff" if channels == 3 else b"")
    return width, height, bytes(out)


def read_png(path):
    with open(path, "rb") as f:
        return read_png_bytes(f.read())


def pattern(width, height, opaque):
    rgba = bytearray()
    for y in range(height):
        for x in range(width):
            rgba += bytes(((x * 37 + y * 11) % 256, (x * x + y * 5) % 256,
                           (200 - x * 3 + y * y) % 256,
                           255 if opaque else (x * 9 + y * 13 + 40) % 256))
    return rgba


def psnr(a, b, channels):
    total, count = 0, 0
    for i in range(0, len(a), 4):
        for c in channels:
            d = a[i + c] - b[i + c]
            total += d * d
            count += 1
    if total == 0:
        return 99.0
    return 10.0 * math.log10(255.0 * 255.0 / (total / count))


def main(argv):
    command = argv[1]
    if command in ("make", "opaque"):
        width, height = int(argv[3]), int(argv[4])
        write_png(argv[2], width, height, pattern(width, height, command == "opaque"))
    elif command == "equal":
        return 0 if read_png(argv[2]) == read_png(argv[3]) else 1
    elif command == "psnr":
        wa, ha, a = read_png(argv[2])
        wb, hb, b = read_png(argv[3])
        if (wa, ha) != (wb, hb):
            print(f"sizes differ: {wa}x{ha} and {wb}x{hb}")
            return 1
        print(f"RGB {psnr(a, b, (0, 1, 2)):.2f} A {psnr(a, b, (3,)):.2f}")
    elif command == "size":
        width, height, _ = read_png(argv[2])
        print(width, height)
    elif command == "data-uris":
        with open(argv[2], encoding="utf-8") as f:
            html = f.read()
        for uri in re.findall(r'data:image/png;base64,([A-Za-z0-9+/=]+)', html):
            width, height, _ = read_png_bytes(base64.b64decode(uri, validate=True))
            print(width, height)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
