#!/usr/bin/env python3
"""png_tool.py — PNG files written and read with the standard library alone
(zlib), independently of kiln's libspng and of Basis Universal, for the
extract, report and UASTC tests and bench/uastc.sh; the integration scripts
and viewer_scenes.py import write_png and read_png.

  png_tool.py make FILE W H        a deterministic RGBA pattern (varying alpha)
  png_tool.py opaque FILE W H      the same pattern with alpha 255
  png_tool.py equal A B            exit 0 when both decode to the same RGBA texels
  png_tool.py same A.png B.rgba    exit 0 when B's raw RGBA bytes are A's texels
  png_tool.py psnr A B             "RGB <dB> A <dB> RGBA <dB>" as kiln computes PSNR
                                   (8-bit, mean squared error over the channels, 99 if equal)
  png_tool.py crop SRC X Y W H OUT a crop, written as RGBA
  png_tool.py bumps SIZE OUT       a normal map of sine bumps (SIZE x SIZE)
  png_tool.py size FILE            "W H"
  png_tool.py data-uris HTML       "W H" of every data:image/png;base64 URI in HTML
                                   (exit 1 when one does not decode)
  png_tool.py drawn-uris HTML      "W H DRAWN" of each such URI: DRAWN the pixels of
                                   alpha above 0
"""
import base64
import math
import re
import struct
import sys
import zlib


def png_bytes(width, height, pixels, channels=4, level=-1):
    """An 8-bit PNG of `pixels`, rows top to bottom, `channels` bytes a pixel
    (3: RGB, 4: RGBA), each row unfiltered, compressed at zlib `level`."""
    stride = width * channels
    rows = b"".join(b"\x00" + bytes(pixels[y * stride:(y + 1) * stride]) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    colour_type = {3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, level))
            + chunk(b"IEND", b""))


def write_png(path, width, height, pixels, channels=4, level=-1):
    """png_bytes written to `path`. The test scripts import it (their
    PYTHONPATH holds tests/support)."""
    with open(path, "wb") as f:
        f.write(png_bytes(width, height, pixels, channels, level))


def read_png_bytes(data, name="PNG"):
    """An 8-bit, non-interlaced PNG (grey, RGB, palette, grey+alpha, RGBA) as
    (width, height, RGBA bytes)."""
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{name}: not a PNG')
    pos, idat, plte, trns = 8, b'', b'', b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        elif kind == b'PLTE':
            plte = body
        elif kind == b'tRNS':
            trns = body
    if depth != 8 or interlace != 0:
        raise ValueError(f'{name}: only 8-bit non-interlaced PNGs')
    ch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw, stride, prev, i = zlib.decompress(idat), w * ch, bytearray(w * ch), 0
    out = bytearray()
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        for x in range(w):
            px = line[x * ch:(x + 1) * ch]
            if ctype == 6:
                out += px
            elif ctype == 2:
                out += px + b'\xff'
            elif ctype == 0:
                out += bytes([px[0]] * 3) + b'\xff'
            elif ctype == 4:
                out += bytes([px[0]] * 3) + px[1:2]
            else:
                k = px[0]
                out += plte[3 * k:3 * k + 3] + bytes([trns[k] if k < len(trns) else 255])
    return w, h, bytes(out)


def read_png(path):
    with open(path, "rb") as f:
        return read_png_bytes(f.read(), path)


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
    command, args = argv[1], argv[2:]
    if command in ("make", "opaque"):
        width, height = int(args[1]), int(args[2])
        write_png(args[0], width, height, pattern(width, height, command == "opaque"))
    elif command == "equal":
        a, b = read_png(args[0]), read_png(args[1])
        if a != b:
            diff = sum(1 for x, y in zip(a[2], b[2]) if x != y)
            print(f"{args[0]} ({a[0]}x{a[1]}) and {args[1]} ({b[0]}x{b[1]}): {diff} bytes differ")
            return 1
    elif command == "same":
        _, _, a = read_png(args[0])
        with open(args[1], "rb") as f:
            b = f.read()
        diff = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
        if len(a) != len(b) or diff:
            print(f"{args[0]} and {args[1]}: {len(diff)} bytes differ (sizes {len(a)}, {len(b)})"
                  + (f", first at texel {diff[0] // 4}" if diff else ""))
            return 1
    elif command == "psnr":
        wa, ha, a = read_png(args[0])
        wb, hb, b = read_png(args[1])
        if (wa, ha) != (wb, hb):
            print(f"sizes differ: {wa}x{ha} and {wb}x{hb}")
            return 1
        print(f"RGB {psnr(a, b, (0, 1, 2)):.2f} A {psnr(a, b, (3,)):.2f} "
              f"RGBA {psnr(a, b, (0, 1, 2, 3)):.2f}")
    elif command == "crop":
        width, _, texels = read_png(args[0])
        x0, y0, w, h = map(int, args[1:5])
        rows = (texels[((y0 + y) * width + x0) * 4:((y0 + y) * width + x0 + w) * 4] for y in range(h))
        write_png(args[5], w, h, b"".join(rows))
    elif command == "bumps":
        size = int(args[0])
        out = bytearray()
        for y in range(size):
            for x in range(size):
                dx = 3 * math.cos(x / 5.0) * math.cos(y / 7.0)
                dy = -3 * math.sin(x / 5.0) * math.sin(y / 7.0) * 5 / 7
                length = math.sqrt(dx * dx + dy * dy + 1)
                out += bytes(round((v / length * 0.5 + 0.5) * 255) for v in (-dx, -dy, 1)) + b"\xff"
        write_png(args[1], size, size, bytes(out))
    elif command == "rawpng":  # rawpng IN.rgba WIDTH HEIGHT OUT.png
        with open(args[0], "rb") as f:
            write_png(args[3], int(args[1]), int(args[2]), f.read())
    elif command == "size":
        width, height, _ = read_png(args[0])
        print(width, height)
    elif command in ("data-uris", "drawn-uris"):
        with open(args[0], encoding="utf-8") as f:
            html = f.read()
        for uri in re.findall(r'data:image/png;base64,([A-Za-z0-9+/=]+)', html):
            width, height, texels = read_png_bytes(base64.b64decode(uri, validate=True))
            if command == "data-uris":
                print(width, height)
            else:
                print(width, height, sum(1 for a in texels[3::4] if a > 0))
    else:
        print(f"png_tool.py: unknown command {command}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
