"""Malformed and hostile .vox input: always VoxFormatError naming the file and byte offset."""
import re
import struct
import tracemalloc

import numpy as np
import pytest

from reticulate_core.io import DEFAULT_PALETTE, VoxFormatError, read_vox, read_vox_bytes
from reticulate_core.io.vox import rotation_from_byte, rotation_to_byte
from vox_chunks import (SAMPLES, chunk, chunk_headers, ints, ngrp, nshp, ntrn, size, string,
                        vdict, vox, xyzi)

MAIN_CHILDREN = 20  # 'VOX ' + version + MAIN header


def fails(data, offset, words, **kwargs):
    with pytest.raises(VoxFormatError) as caught:
        read_vox_bytes(data, "hostile.vox", **kwargs)
    error = caught.value
    assert isinstance(error, ValueError)
    assert str(error).startswith(f"hostile.vox: at byte {offset}:"), str(error)
    assert re.search(words, str(error)), str(error)
    return error


def test_file_errors_name_the_path(tmp_path):
    path = tmp_path / "broken.vox"
    path.write_bytes(b"VOX " + ints(200))
    with pytest.raises(VoxFormatError, match=re.escape(str(path))):
        read_vox(path)


def test_minimal_file_reads():
    scene = read_vox_bytes(vox(size(2, 1, 1), xyzi((1, 0, 0, 7))))
    assert scene.version == 200 and len(scene.models) == 1
    assert scene.models[0].voxels.tolist() == [[[0]], [[7]]]
    assert np.array_equal(scene.models[0].transform, np.eye(4))
    assert np.array_equal(scene.palette, DEFAULT_PALETTE)


@pytest.mark.parametrize("data, offset, words", [
    (b"", 0, "not a .vox file"),
    (b"VOX", 0, "not a .vox file"),
    (b"VOXX" + ints(150), 0, "magic"),
    (b"VOX " + ints(151), 4, "unsupported .vox version 151"),
    (b"VOX " + ints(200), 8, "expected the MAIN chunk"),
    (b"VOX " + ints(200) + chunk(b"SIZE", ints(1, 1, 1)), 8, "expected the MAIN chunk"),
    (b"VOX " + ints(200) + b"MAIN" + ints(0), 8, "truncated chunk header"),
    (b"VOX " + ints(200) + b"MAIN" + ints(0, 100), 8, "overruns its parent"),
    (b"VOX " + ints(200) + b"MAIN" + ints(-1, 0), 8, "negative size"),
])
def test_header_errors(data, offset, words):
    fails(data, offset, words)


def test_child_chunk_overrunning_main():
    child = b"SIZE" + ints(12, 0) + ints(1, 1, 1)
    data = b"VOX " + ints(200) + chunk(b"MAIN", b"", child)
    data = data[:MAIN_CHILDREN + 4] + ints(40) + data[MAIN_CHILDREN + 8:]
    fails(data, MAIN_CHILDREN, "overruns its parent, which ends at byte 44")


def test_child_chunk_with_negative_children_size():
    fails(vox(b"SIZE" + ints(12, -5) + ints(1, 1, 1)), MAIN_CHILDREN, "negative size")


def test_chunk_content_too_short_for_its_fields():
    fails(vox(chunk(b"SIZE", ints(1, 1))), MAIN_CHILDREN + 12 + 8, "SIZE chunk: model size needs 4 bytes")


@pytest.mark.parametrize("dims", [(0, 1, 1), (1, -3, 1), (1, 1, 2049), (4096, 4096, 4096)])
def test_size_out_of_range(dims):
    fails(vox(size(*dims), xyzi()), MAIN_CHILDREN, r"model size .* outside 1\.\.2048")


def test_xyzi_without_size():
    fails(vox(xyzi((0, 0, 0, 1))), MAIN_CHILDREN, "XYZI chunk without a SIZE")


def test_second_xyzi_without_its_size():
    first = size(1, 1, 1) + xyzi((0, 0, 0, 1))
    fails(vox(first, xyzi((0, 0, 0, 1))), MAIN_CHILDREN + len(first), "XYZI chunk without a SIZE")


def test_xyzi_count_larger_than_chunk():
    body = ints(1000) + bytes([0, 0, 0, 1])
    fails(vox(size(2, 2, 2), chunk(b"XYZI", body)), MAIN_CHILDREN + 24 + 12,
          "voxel count 1000 overruns the chunk")


def test_xyzi_negative_count():
    fails(vox(size(2, 2, 2), chunk(b"XYZI", ints(-1))), MAIN_CHILDREN + 24 + 12, "negative voxel count")


def test_voxel_outside_size():
    data = vox(size(2, 3, 4), xyzi((1, 2, 3, 5), (1, 3, 0, 5)))
    fails(data, MAIN_CHILDREN + 24 + 12 + 4 + 4, r"voxel 1 at \(1, 3, 0\) lies outside the model size \(2, 3, 4\)")


def test_palette_index_zero_as_voxel():
    data = vox(size(2, 2, 2), xyzi((0, 0, 0, 3), (1, 1, 1, 2), (1, 0, 0, 0)))
    fails(data, MAIN_CHILDREN + 24 + 12 + 4 + 8, "voxel 2 uses palette index 0")


def test_short_palette():
    fails(vox(chunk(b"RGBA", bytes(1000))), MAIN_CHILDREN + 12, "palette needs 1024 bytes")


def test_dict_and_string_overruns():
    layr = MAIN_CHILDREN + 12
    fails(vox(chunk(b"LAYR", ints(0, 5))), layr + 4, "entry count of layer attributes 5 overruns")
    fails(vox(chunk(b"LAYR", ints(0, -2))), layr + 4, "negative entry count")
    fails(vox(chunk(b"LAYR", ints(0, 1, 100) + b"_name")), layr + 8, "length of key of layer attributes 100 overruns")
    fails(vox(chunk(b"LAYR", ints(0, 1) + string("_name") + ints(-7))), layr + 17, "negative length of value")


def test_string_overrun_is_measured_against_the_chunk_not_the_file():
    """A string that would fit in the file but not in its chunk is refused."""
    layer = chunk(b"LAYR", ints(0, 1, 20) + b"_name")
    padding = chunk(b"ZZZZ", bytes(64))
    fails(vox(layer, padding), MAIN_CHILDREN + 12 + 8, "overruns the chunk")


def scene_file(*nodes, models=1):
    return vox(*[size(2, 2, 2) + xyzi((0, 0, 0, 1)) for _ in range(models)], *nodes)


def test_scene_graph_cycle():
    data = scene_file(ntrn(0, 1), ngrp(1, 2), ntrn(2, 1))
    error = fails(data, MAIN_CHILDREN + 44 + len(ntrn(0, 1)) + len(ngrp(1, 2)), "cycle")
    assert "node 2 leads back to node 1" in str(error)


def test_scene_graph_self_reference():
    fails(scene_file(ntrn(0, 0)), MAIN_CHILDREN + 44, "cycle")


def test_scene_graph_missing_node():
    fails(scene_file(ntrn(0, 1), ngrp(1, 2, 7), ntrn(2, 3), nshp(3, 0)),
          MAIN_CHILDREN + 44 + len(ntrn(0, 1)), "node 1 refers to missing node 7")


def test_scene_graph_missing_model():
    shape_at = MAIN_CHILDREN + 44 + len(ntrn(0, 1))
    fails(scene_file(ntrn(0, 1), nshp(1, 1)), shape_at, "refers to missing model 1")
    fails(scene_file(ntrn(0, 1), nshp(1, -1)), shape_at, "refers to missing model -1")


def test_scene_graph_without_root():
    fails(scene_file(ntrn(5, 6), nshp(6, 0)), MAIN_CHILDREN + 44, "no root node 0")


def test_scene_graph_duplicate_node():
    second = MAIN_CHILDREN + 44 + len(ntrn(0, 1))
    fails(scene_file(ntrn(0, 1), ntrn(0, 1), nshp(1, 0)), second, "node id 0 defined twice")


def test_shape_without_model():
    node = chunk(b"nSHP", ints(1) + vdict({}) + ints(0))
    fails(scene_file(ntrn(0, 1), node), MAIN_CHILDREN + 44 + len(ntrn(0, 1)), "has no model")


def test_scene_graph_expansion_bomb():
    """Groups that list the same child twice, 30 levels deep, would expand to 2^30 instances."""
    nodes = [ntrn(0, 1)]
    for level in range(30):
        group, transform = 1 + 2 * level, 2 + 2 * level
        nodes += [ngrp(group, transform, transform), ntrn(transform, group + 2)]
    nodes.append(nshp(61, 0))
    fails(scene_file(*nodes), MAIN_CHILDREN + 44, "more than .* node visits")


@pytest.mark.parametrize("rotation", ["3", "7", "15", "128", "255", "-1", "x", "1.5", ""])
def test_invalid_rotation(rotation):
    fails(scene_file(ntrn(0, 1, {"_r": rotation}), nshp(1, 0)), MAIN_CHILDREN + 44,
          "not a valid signed permutation")


@pytest.mark.parametrize("translation", ["1 2", "1 2 3 4", "a b c", "1e3 0 0", "0 0 99999999999"])
def test_invalid_translation(translation):
    fails(scene_file(ntrn(0, 1, {"_t": translation}), nshp(1, 0)), MAIN_CHILDREN + 44,
          "is not three int32")


def test_negative_frame_and_child_counts():
    transform = chunk(b"nTRN", ints(0) + vdict({}) + ints(1, -1, 0, -1))
    fails(scene_file(transform), MAIN_CHILDREN + 44 + 12 + 20, "negative frame count")
    group = chunk(b"nGRP", ints(1) + vdict({}) + ints(-4))
    fails(scene_file(ntrn(0, 1), group), MAIN_CHILDREN + 44 + len(ntrn(0, 1)) + 12 + 8,
          "negative child count")


def test_material_id_out_of_range():
    fails(vox(chunk(b"MATL", ints(300) + vdict({}))), MAIN_CHILDREN, "material id 300")


def test_memory_limit_refuses_before_allocating():
    data = vox(size(2048, 2048, 2048), xyzi())
    tracemalloc.start()
    try:
        fails(data, MAIN_CHILDREN, "above the limit")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_memory_limit_counts_all_models():
    model = size(16, 16, 16) + xyzi()
    read_vox_bytes(vox(model, model), max_voxels=2 * 4096)
    fails(vox(model, model, model), MAIN_CHILDREN + 2 * len(model), "to 12288, above the limit of 8192",
          max_voxels=2 * 4096)


def test_unknown_chunks_are_skipped():
    plain = read_vox_bytes(vox(size(2, 1, 1), xyzi((1, 0, 0, 7))))
    noisy = read_vox_bytes(vox(chunk(b"ZZZZ", b"abc", chunk(b"SIZE", ints(9, 9, 9))), size(2, 1, 1),
                               chunk(b"rOBJ", vdict({"_type": "_inf"})), xyzi((1, 0, 0, 7)),
                               chunk(b"NOTE", ints(1) + string("note")), chunk(b"IMAP", bytes(256))))
    assert np.array_equal(plain.models[0].voxels, noisy.models[0].voxels)


@pytest.mark.parametrize("name", ["rt_scenegraph.vox", "hierarchy.vox"])
def test_every_truncation_of_a_sample_fails_cleanly(name):
    data = (SAMPLES / name).read_bytes()
    step = max(1, len(data) // 3000)
    for cut in range(0, len(data), step):
        with pytest.raises(VoxFormatError):
            read_vox_bytes(data[:cut], name)


@pytest.mark.parametrize("name", ["rt_scenegraph.vox", "signpost.vox"])
def test_sample_chunk_sizes_pushed_past_their_parent(name):
    data = (SAMPLES / name).read_bytes()
    for offset, chunk_id in chunk_headers(data)[1:]:
        for field in (4, 8):
            mutated = bytearray(data)
            struct.pack_into("<i", mutated, offset + field, len(data))
            with pytest.raises(VoxFormatError, match=f"at byte {offset}: chunk {chunk_id!r}"):
                read_vox_bytes(bytes(mutated), name)


def test_sample_voxel_moved_outside_its_model():
    data = bytearray((SAMPLES / "rt_torture.vox").read_bytes())
    xyzi_at = next(offset for offset, chunk_id in chunk_headers(bytes(data)) if chunk_id == b"XYZI")
    data[xyzi_at + 16 + 4 * 10] = 200  # x of voxel 10; the model is 24 wide
    fails(bytes(data), xyzi_at + 16 + 40, "voxel 10 at \\(200, ")


def test_sample_rotation_made_invalid():
    data = (SAMPLES / "rt_scenegraph.vox").read_bytes()
    at = data.index(b"\x02\x00\x00\x00_r\x02\x00\x00\x0017")
    mutated = data[:at] + data[at:].replace(b"_r\x02\x00\x00\x0017", b"_r\x02\x00\x00\x0019", 1)
    node_at = max(offset for offset, _ in chunk_headers(data) if offset < at)
    fails(mutated, node_at, "_r='19'")


def test_all_48_signed_permutations_round_trip_through_the_rotation_byte():
    bytes_seen = set()
    for value in range(128):
        try:
            rotation = rotation_from_byte(value)
        except ValueError:
            continue
        assert sorted(np.abs(rotation).sum(axis=0).tolist()) == [1, 1, 1]
        assert rotation_to_byte(rotation) == value
        bytes_seen.add(value)
    assert len(bytes_seen) == 48


def test_rotation_byte_matches_the_spec_example():
    spec = np.array([[0, 1, 0], [0, 0, -1], [-1, 0, 0]])
    assert rotation_to_byte(spec) == (1 << 0) | (2 << 2) | (0 << 4) | (1 << 5) | (1 << 6)
    assert np.array_equal(rotation_from_byte(rotation_to_byte(spec)), spec)
    with pytest.raises(ValueError):
        rotation_to_byte([[1, 0, 0], [1, 0, 0], [0, 0, 1]])
    with pytest.raises(ValueError):
        rotation_to_byte([[2, 0, 0], [0, 1, 0], [0, 0, 1]])
