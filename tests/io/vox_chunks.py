"""Hand assembly of .vox bytes for tests, independent of the project's writer."""
import struct
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "vox"


def chunk(chunk_id, content=b"", children=b""):
    return chunk_id + struct.pack("<2i", len(content), len(children)) + content + children


def string(text):
    data = text.encode()
    return struct.pack("<i", len(data)) + data


def vdict(entries):
    return struct.pack("<i", len(entries)) + b"".join(string(k) + string(v) for k, v in entries.items())


def ints(*values):
    return struct.pack(f"<{len(values)}i", *values)


def vox(*chunks, version=200, magic=b"VOX "):
    return magic + ints(version) + chunk(b"MAIN", b"", b"".join(chunks))


def size(x, y, z):
    return chunk(b"SIZE", ints(x, y, z))


def xyzi(*voxels):
    return chunk(b"XYZI", ints(len(voxels)) + bytes(b for v in voxels for b in v))


def ntrn(node_id, child, frame=None, attributes=None, layer=0):
    return chunk(b"nTRN", ints(node_id) + vdict(attributes or {}) + ints(child, -1, layer, 1)
                 + vdict(frame or {}))


def ngrp(node_id, *children, attributes=None):
    return chunk(b"nGRP", ints(node_id) + vdict(attributes or {}) + ints(len(children), *children))


def nshp(node_id, model_id):
    return chunk(b"nSHP", ints(node_id) + vdict({}) + ints(1, model_id) + vdict({}))


def chunk_headers(data, start=8, end=None):
    """(offset, id) of MAIN and each of its children, walked without the reader under test;
    the walk stops at the first header with a negative size."""
    end = len(data) if end is None else end
    found = [(start, data[start:start + 4])]
    n, m = struct.unpack_from("<2i", data, start + 4)
    pos = start + 12 + max(n, 0)
    while pos + 12 <= end:
        found.append((pos, data[pos:pos + 4]))
        n, m = struct.unpack_from("<2i", data, pos + 4)
        if n < 0 or m < 0:
            break
        pos += 12 + n + m
    return found
