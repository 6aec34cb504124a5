#!/usr/bin/env python3
"""svg-text-boxes.py: fails when two <text> elements of an SVG chart overlap
as drawn, or one is cut by the chart's edge.

Each <text> is rendered alone by rsvg-convert (Debian librsvg2-bin), without
the chart's other elements; its ink box is read from the PNG's alpha channel
(decoded here with zlib: no imaging library). Then every pair
of boxes must be disjoint, and no box may touch the picture's border.

  tests/support/svg-text-boxes.py CHART.svg...

Prints one line per overlap ("FILE: 'a' overlaps 'b' (boxes ...)") and exits
1 when there is any, 2 when a chart cannot be read or rendered, else 0.
"""
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def png_alpha_boxes(data, slot):
    """The ink box (x0, y0, x1, y1, inclusive, y within its slot) of each
    band of `slot` rows of an RGBA PNG (None: no ink), with the width."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour != 6:
                raise ValueError("not 8-bit RGBA")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * 4
    # Filters work per byte against the same channel's neighbours, so the
    # alpha channel unfilters alone; an all-zero row under an all-zero row is
    # zero whatever its filter (most rows: the chart is empty but the text).
    prev, prev_zero, boxes = [0] * w, True, [None] * (h // slot)
    for y in range(h):
        start = y * (stride + 1)
        f, line = raw[start], raw[start + 1:start + 1 + stride]
        if prev_zero and not any(line):
            continue
        row = [0] * w
        for x in range(w):
            v, up = line[x * 4 + 3], prev[x]
            left = row[x - 1] if x else 0
            diag = prev[x - 1] if x else 0
            if f == 1:
                v += left
            elif f == 2:
                v += up
            elif f == 3:
                v += (left + up) // 2
            elif f == 4:
                p = left + up - diag
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - diag)
                v += left if pa <= pb and pa <= pc else up if pb <= pc else diag
            row[x] = v & 255
        xs = [x for x in range(w) if row[x] > 24]
        k, ys = y // slot, y % slot
        if xs and k < len(boxes):
            b = boxes[k]
            boxes[k] = (xs[0], ys, xs[-1], ys) if b is None else (min(b[0], xs[0]), b[1], max(b[2], xs[-1]), ys)
        prev, prev_zero = row, not any(row)
    return boxes, w


ABOVE, SLOT = 32, 48  # a text's slot: from 32 units above its baseline, 48 tall


def text_boxes(path):
    """(text, box in the chart's pixels, width, height) of each <text> of the
    chart at path: the texts are drawn in one picture, one per slot of SLOT
    rows around its baseline (nested <svg> elements, which clip)."""
    root = ET.parse(path).getroot()
    w, h = float(root.get("width")), float(root.get("height"))
    texts = list(root.iter(SVG + "text"))
    if not texts:
        return []
    outer = ET.Element(SVG + "svg", dict(root.attrib))
    outer.set("height", str(SLOT * len(texts)))
    outer.set("viewBox", f"0 0 {w} {SLOT * len(texts)}")
    tops = []
    for j, t in enumerate(texts):
        top = float(t.get("y", "0")) - ABOVE
        tops.append(top)
        inner = ET.SubElement(outer, SVG + "svg", {"x": "0", "y": str(j * SLOT), "width": str(w),
                                                   "height": str(SLOT), "viewBox": f"0 {top} {w} {SLOT}"})
        inner.append(t)
    png = subprocess.run(["rsvg-convert", "--format", "png"], input=ET.tostring(outer),
                         capture_output=True, timeout=120, check=True).stdout
    boxes, pw = png_alpha_boxes(png, SLOT)
    out = []
    for t, top, box in zip(texts, tops, boxes):
        if box:
            cut = box[1] <= 0 or box[3] >= SLOT - 1
            dy = int(round(top))
            out.append(("".join(t.itertext()), (box[0], box[1] + dy, box[2], box[3] + dy), pw, int(h), cut))
    return out


def main(paths):
    bad = 0
    for path in paths:
        try:
            boxes = text_boxes(path)
        except (OSError, ET.ParseError, ValueError, subprocess.SubprocessError) as e:
            print(f"{path}: cannot render: {e}")
            return 2
        for i, (a, ba, w, h, cut) in enumerate(boxes):
            if cut or ba[0] <= 0 or ba[1] <= 0 or ba[2] >= w - 1 or ba[3] >= h - 1:
                print(f"{path}: {a!r} is cut by the chart's edge (box {ba}, chart {w}x{h})")
                bad += 1
            for b, bb, _, _, _ in boxes[i + 1:]:
                if ba[0] <= bb[2] and bb[0] <= ba[2] and ba[1] <= bb[3] and bb[1] <= ba[3]:
                    print(f"{path}: {a!r} overlaps {b!r} (boxes {ba} and {bb})")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[6], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
