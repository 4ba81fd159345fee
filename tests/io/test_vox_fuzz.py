"""Fuzzing the .vox reader: mutated real files give a scene or VoxFormatError, nothing else,
quickly. Inputs that once broke the reader are kept in fuzz_corpus/ and replayed."""
import struct
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from example_budget import examples
from reticulate_core.io import VoxFormatError, read_vox_bytes
from vox_chunks import SAMPLES, chunk, chunk_headers, ints, ngrp, nshp, ntrn, size, vdict, vox, xyzi

CORPUS = Path(__file__).parent / "fuzz_corpus"
LIMIT = 1 << 22
SECONDS = 2.0
CHUNK_IDS = [b"MAIN", b"PACK", b"SIZE", b"XYZI", b"RGBA", b"nTRN", b"nGRP", b"nSHP", b"LAYR",
             b"MATL", b"rOBJ", b"rCAM", b"NOTE", b"IMAP", b"ZZZZ"]
DICT_KEYS = [b"_r", b"_t", b"_f", b"_name", b"_hidden", b"_type"]
DICT_VALUES = [b"", b"0", b"1", b"-1", b"17", b"40", b"127", b"128", b"4 5", b"1 2 3", b"1 2 3 4",
               b"-9 9 99999999999", b"9" * 5000, b"1e5", b"nan", b" 3 ", b"\xff\xfe", b"0x10", b"4_0",
               "\uff11".encode()]
INTERESTING = [-2**31, -1, 0, 1, 2, 3, 4, 255, 256, 2048, 2049, 65535, 2**24, 2**31 - 1]

BASES = [
    (SAMPLES / "rt_scenegraph.vox").read_bytes(),
    (SAMPLES / "hierarchy.vox").read_bytes(),
    (SAMPLES / "signpost.vox").read_bytes(),
    vox(size(3, 2, 2), xyzi((0, 0, 0, 1), (2, 1, 1, 9)), size(1, 1, 1), xyzi((0, 0, 0, 3)),
        ntrn(0, 1, {"_r": "17", "_t": "1 2 3"}), ngrp(1, 2, 4), ntrn(2, 3, {"_r": "40"}), nshp(3, 0),
        ntrn(4, 5, {"_t": "-4 0 9"}, {"_hidden": "1"}), nshp(5, 1),
        chunk(b"LAYR", ints(0) + vdict({"_name": "l"}) + ints(-1)),
        chunk(b"MATL", ints(1) + vdict({"_type": "_glass", "_ior": "0.3"}))),
]


def check_reads_cleanly(data):
    start = time.perf_counter()
    try:
        scene = read_vox_bytes(data, "fuzz.vox", max_voxels=LIMIT)
    except VoxFormatError as error:
        assert str(error).startswith("fuzz.vox: at byte ")
    else:
        assert scene.palette.shape == (256, 4) and scene.palette.dtype == np.uint8
        for model in scene.models:
            assert model.voxels.dtype == np.uint16 and model.voxels.ndim == 3
            assert model.voxels.max(initial=0) <= 255
            assert model.transform.shape == (4, 4) and np.isfinite(model.transform).all()
    assert time.perf_counter() - start < SECONDS


int32s = st.one_of(st.sampled_from(INTERESTING), st.integers(-2**31, 2**31 - 1))

mutations = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 2**20), st.integers(0, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 2**20)),
    st.tuples(st.just("chunk size"), st.integers(0, 400), st.sampled_from([4, 8]), int32s),
    st.tuples(st.just("int32"), st.integers(0, 2**20), int32s),
    st.tuples(st.just("insert"), st.integers(0, 400), st.sampled_from(CHUNK_IDS),
              st.binary(max_size=64), st.booleans()),
    st.tuples(st.just("delete"), st.integers(1, 400), st.booleans()),
    st.tuples(st.just("dict value"), st.integers(0, 2**20), st.sampled_from(DICT_KEYS),
              st.sampled_from(DICT_VALUES)),
)


def fix_main_size(data):
    data = bytearray(data)
    if len(data) >= 20:
        struct.pack_into("<i", data, 16, len(data) - 20 - struct.unpack_from("<i", data, 12)[0])
    return bytes(data)


def replace_dict_value(data, start, key, value):
    """Give the first ``key`` string at or after ``start`` a new value string, growing the
    enclosing chunk and MAIN to match, so that parsing reaches the value."""
    at = data.find(struct.pack("<i", len(key)) + key, start % max(len(data), 1))
    value_at = at + 4 + len(key)
    if at < 0 or value_at + 4 > len(data):
        return data
    old = struct.unpack_from("<i", data, value_at)[0]
    if not 0 <= old <= len(data) - value_at - 4:
        return data
    owner = max((offset for offset, _ in chunk_headers(data[:at + 1])[1:] if offset < at), default=None)
    if owner is None:
        return data
    grown = bytearray(data[:value_at] + struct.pack("<i", len(value)) + value + data[value_at + 4 + old:])
    for size_at in (owner + 4, 16):
        struct.pack_into("<i", grown, size_at, struct.unpack_from("<i", grown, size_at)[0] + len(value) - old)
    return bytes(grown)


def mutate(data, mutation):
    """Apply one mutation; one that does not fit the bytes (any more) leaves them as they are."""
    try:
        return apply_mutation(data, mutation)
    except struct.error:
        return data


def apply_mutation(data, mutation):
    kind = mutation[0]
    if kind == "dict value":
        return replace_dict_value(data, *mutation[1:])
    if kind == "flip":
        if data:
            at = mutation[1] % len(data)
            data = data[:at] + bytes([data[at] ^ mutation[2] or 1]) + data[at + 1:]
    elif kind == "truncate":
        data = data[:mutation[1] % (len(data) + 1)]
    elif kind == "int32":
        if len(data) >= 4:
            at = mutation[1] % (len(data) - 3)
            data = data[:at] + struct.pack("<i", mutation[2]) + data[at + 4:]
    else:
        headers = chunk_headers(data)
        offset = headers[mutation[1] % len(headers)][0]
        if kind == "chunk size":
            data = data[:offset + mutation[2]] + struct.pack("<i", mutation[3]) + data[offset + mutation[2] + 4:]
        elif kind == "insert":
            data = data[:offset] + chunk(mutation[2], mutation[3]) + data[offset:]
            data = fix_main_size(data) if mutation[4] else data
        elif kind == "delete" and len(headers) > 1:
            n, m = struct.unpack_from("<2i", data, offset + 4)
            data = data[:offset] + data[offset + 12 + max(n, 0) + max(m, 0):]
            data = fix_main_size(data) if mutation[2] else data
    return data


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(BASES) - 1), st.lists(mutations, min_size=1, max_size=4))
def test_mutated_files_read_or_raise_vox_format_error(base, steps):
    data = BASES[base]
    for step in steps:
        data = mutate(data, step)
    check_reads_cleanly(data)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_after_a_valid_header(tail):
    check_reads_cleanly(b"VOX " + ints(200) + tail)
    check_reads_cleanly(b"VOX " + ints(200) + chunk(b"MAIN", b"", tail))


def test_bases_read():
    for data in BASES:
        assert read_vox_bytes(data).models


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.vox")), ids=lambda p: p.name)
def test_fuzz_corpus_replays_cleanly(path):
    check_reads_cleanly(path.read_bytes())


def test_fuzz_corpus_is_not_empty():
    assert sorted(CORPUS.glob("*.vox"))
