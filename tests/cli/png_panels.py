# tests/cli/png_panels.py IMAGE.png: prints "WIDTH HEIGHT FRAMES", where
# FRAMES counts the runs of rows that are dark across more than half the
# image: the top and bottom edges of the subplots gnuplot draws for
# diagc run --plot (two per subplot; tests/cli/plot_layout.sh).  A plain
# PNG reader (8-bit, not interlaced): the standard library only.
import struct, sys, zlib
def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr, pal = 8, b"", None, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR": hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE": pal = [tuple(body[i:i + 3]) for i in range(0, n, 3)]
        elif kind == b"IDAT": idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and interlace == 0, hdr
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        px = []
        for x in range(w):
            v = line[x * bpp:(x + 1) * bpp]
            if ctype == 3: px.append(pal[v[0]])
            elif ctype in (0, 4): px.append((v[0],) * 3)
            else: px.append(tuple(v[:3]))
        rows.append(px)
    return w, h, rows
w, h, rows = read_png(sys.argv[1])
dark = [sum(1 for p in r if max(p) < 80) > w // 2 for r in rows]
runs = sum(1 for y in range(h) if dark[y] and (y == 0 or not dark[y - 1]))
print(w, h, runs)
