"""png_tools.py — the PNG work of tests/integration/test_uastc_basisu.sh in plain
Python (zlib only), independent of kiln and of Basis Universal:

  png_tools.py crop SRC.png X Y W H OUT.png     a crop, written as RGBA
  png_tools.py bumps SIZE OUT.png               a normal map of sine bumps
  png_tools.py same A.png B.rgba                exit 1 unless B's raw RGBA equals A's
  png_tools.py equal A.png B.png                exit 1 unless both have the same RGBA texels
  png_tools.py psnr SRC.png OUT.png             "RGB <dB> RGBA <dB>"
"""
import math
import struct
import sys
import zlib


def read_png(path):
    """An 8-bit, non-interlaced PNG (grey, RGB, palette, grey+alpha, RGBA) as
    (width, height, RGBA bytes)."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path}: not a PNG')
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
        raise ValueError(f'{path}: only 8-bit non-interlaced PNGs')
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


def write_png(path, w, h, rgba):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    rows = b''.join(b'\0' + rgba[y * w * 4:(y + 1) * w * 4] for y in range(h))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))


def psnr(a, b, channels):
    se = n = 0
    for i in range(0, len(a), 4):
        for c in channels:
            d = a[i + c] - b[i + c]
            se += d * d
            n += 1
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 / (se / n))


def main(args):
    if args[0] == 'crop':
        w, h, px = read_png(args[1])
        x0, y0, cw, ch = map(int, args[2:6])
        out = b''.join(px[((y0 + y) * w + x0) * 4:((y0 + y) * w + x0 + cw) * 4] for y in range(ch))
        write_png(args[6], cw, ch, out)
    elif args[0] == 'bumps':
        size = int(args[1])
        out = bytearray()
        for y in range(size):
            for x in range(size):
                dx = 3 * math.cos(x / 5.0) * math.cos(y / 7.0)
                dy = -3 * math.sin(x / 5.0) * math.sin(y / 7.0) * 5 / 7
                length = math.sqrt(dx * dx + dy * dy + 1)
                out += bytes(round((v / length * 0.5 + 0.5) * 255) for v in (-dx, -dy, 1)) + b'\xff'
        write_png(args[2], size, size, bytes(out))
    elif args[0] == 'same':
        _, _, a = read_png(args[1])
        b = open(args[2], 'rb').read()
        diff = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
        if len(a) != len(b) or diff:
            print(f'{args[1]} and {args[2]}: {len(diff)} bytes differ (sizes {len(a)}, {len(b)})'
                  + (f', first at texel {diff[0] // 4}' if diff else ''))
            return 1
    elif args[0] == 'equal':
        a, b = read_png(args[1]), read_png(args[2])
        if a != b:
            diff = sum(1 for x, y in zip(a[2], b[2]) if x != y)
            print(f'{args[1]} ({a[0]}x{a[1]}) and {args[2]} ({b[0]}x{b[1]}): {diff} bytes differ')
            return 1
    elif args[0] == 'psnr':
        w, h, a = read_png(args[1])
        w2, h2, b = read_png(args[2])
        if (w, h) != (w2, h2):
            print(f'{args[1]} is {w}x{h}, {args[2]} {w2}x{h2}')
            return 1
        print('RGB %.2f RGBA %.2f' % (psnr(a, b, (0, 1, 2)), psnr(a, b, (0, 1, 2, 3))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
