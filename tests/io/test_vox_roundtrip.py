"""write_vox -> read_vox gives back voxels, palette, transforms (with rotations) and sharing."""
import itertools
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from example_budget import examples
from reticulate_core.io import DEFAULT_PALETTE, VoxLayer, VoxModel, VoxScene, read_vox, write_vox
from vox_chunks import SAMPLES

SIGNED_PERMUTATIONS = [np.diag(signs)[list(order)]
                       for order in itertools.permutations(range(3))
                       for signs in itertools.product((1, -1), repeat=3)]


def node_affine(rotation, translation):
    affine = np.eye(4, dtype=np.int64)
    affine[:3, :3], affine[:3, 3] = rotation, translation
    return affine


def placed(voxels, rotation, translation):
    """The corner transform of ``voxels`` turned by ``rotation`` about the grid corner
    size // 2, which lands on ``translation`` (worked out here from the cell rule)."""
    transform = np.eye(4)
    transform[:3, :3] = rotation
    transform[:3, 3] = translation - rotation @ (np.array(voxels.shape) // 2)
    return transform


@st.composite
def scenes(draw):
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        shape = tuple(draw(st.integers(1, 9)) for _ in range(3))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        values = rng.integers(1, 256, size=shape)
        values[rng.random(shape) < draw(st.floats(0, 1))] = 0
        arrays.append(values.astype(np.uint16))
    models = []
    for _ in range(draw(st.integers(1, 5))):
        voxels = arrays[draw(st.integers(0, len(arrays) - 1))]
        rotation = SIGNED_PERMUTATIONS[draw(st.integers(0, 47))]
        translation = np.array([draw(st.integers(-300, 300)) for _ in range(3)])
        models.append(VoxModel(voxels, placed(voxels, rotation, translation), 0,
                               draw(st.sampled_from(["", "a", "tree ä"])), draw(st.integers(0, 2)),
                               draw(st.booleans())))
    palette = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(0, 256, (256, 4))
    layers = {i: VoxLayer(i, f"layer {i}") for i in range(3)}
    return VoxScene(models, palette.astype(np.uint8), {}, layers, 200)


def round_trip(scene, **kwargs):
    handle, path = tempfile.mkstemp(suffix=".vox")
    os.close(handle)
    try:
        write_vox(path, scene, **kwargs)
        return read_vox(path)
    finally:
        os.unlink(path)


def assert_same_models(written, read):
    assert len(read.models) == len(written.models)
    for a, b in zip(written.models, read.models):
        assert b.voxels.dtype == np.uint16
        assert np.array_equal(a.voxels, b.voxels)
        assert np.array_equal(a.transform, b.transform)
        assert (a.name, a.layer, a.hidden) == (b.name, b.layer, b.hidden)
    for (i, a), (j, b) in itertools.combinations(enumerate(written.models), 2):
        assert (a.voxels is b.voxels) == (read.models[i].voxels is read.models[j].voxels)


@settings(max_examples=examples(150), deadline=None)
@given(scenes())
def test_random_scenes_round_trip(scene):
    read = round_trip(scene)
    assert read.version == 200
    assert np.array_equal(read.palette[1:], scene.palette[1:])
    assert_same_models(scene, read)


@settings(max_examples=examples(100), deadline=None)
@given(scenes(), st.lists(st.tuples(st.integers(0, 47), st.lists(st.integers(-50, 50), min_size=3,
                                                                  max_size=3)), max_size=3))
def test_random_scenes_round_trip_through_nested_groups(scene, groups):
    affines = [node_affine(SIGNED_PERMUTATIONS[r], t) for r, t in groups]
    assert_same_models(scene, round_trip(scene, groups=affines))


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.vox")))
def test_samples_round_trip(name):
    scene = read_vox(SAMPLES / name)
    read = round_trip(scene)
    assert_same_models(scene, read)
    assert np.array_equal(read.palette, scene.palette)
    assert read.materials == scene.materials
    assert {k: (v.name, v.hidden) for k, v in read.layers.items()} == \
        {k: (v.name, v.hidden) for k, v in scene.layers.items()}


def test_plain_arrays_use_the_default_palette_and_identity(tmp_path):
    grid = np.zeros((3, 4, 5), dtype=np.uint8)
    grid[2, 3, 4] = 200
    write_vox(tmp_path / "plain.vox", [grid])
    read = read_vox(tmp_path / "plain.vox")
    assert np.array_equal(read.palette, DEFAULT_PALETTE)
    assert np.array_equal(read.models[0].voxels, grid)
    assert np.array_equal(read.models[0].transform, np.eye(4))


@pytest.mark.parametrize("voxels, words", [
    (np.zeros((257, 1, 1), np.uint16), "1..256 voxels per axis"),
    (np.zeros((4, 4), np.uint16), "must be 3D"),
    (np.full((2, 2, 2), 256, np.uint16), "palette indices 0..255"),
    (np.full((2, 2, 2), 1.0), "palette indices 0..255"),
])
def test_writer_refuses_bad_models(tmp_path, voxels, words):
    with pytest.raises(ValueError, match=words):
        write_vox(tmp_path / "bad.vox", [voxels])


@pytest.mark.parametrize("transform, words", [
    (np.diag([2.0, 1, 1, 1]), "signed permutation"),
    (np.array([[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]), "whole voxels"),
    (np.eye(3), "4x4"),
])
def test_writer_refuses_transforms_a_vox_cannot_hold(tmp_path, transform, words):
    model = VoxModel(np.ones((2, 2, 2), np.uint16), transform)
    with pytest.raises(ValueError, match=words):
        write_vox(tmp_path / "bad.vox", [model])


def _far(shift):
    transform = np.eye(4)
    transform[0, 3] = shift
    return transform


@pytest.mark.parametrize("scene, error, words", [
    (VoxScene([VoxModel(np.ones((2, 2, 2), np.uint8), _far(2**31))], DEFAULT_PALETTE, {}, {}, 200),
     ValueError, "translation of .* does not fit"),
    (VoxScene([VoxModel(np.ones((2, 2, 2), np.uint8), np.eye(4), layer=2**31)], DEFAULT_PALETTE, {}, {}, 200),
     ValueError, "layer id 2147483648 does not fit"),
    (VoxScene([VoxModel(np.ones((2, 2, 2), np.uint8), np.eye(4))], DEFAULT_PALETTE,
              {2**40: {"type": "metal"}}, {}, 200),
     ValueError, "material index 1099511627776 does not fit"),
    (VoxScene([VoxModel(np.ones((2, 2, 2), np.uint8), np.eye(4), name=5)], DEFAULT_PALETTE, {}, {}, 200),
     TypeError, "are strings, got 5"),
])
def test_writer_refuses_what_the_format_cannot_hold_and_writes_nothing(tmp_path, scene, error, words):
    path = tmp_path / "kept.vox"
    path.write_bytes(b"before")
    with pytest.raises(error, match=words):
        write_vox(path, scene)
    assert path.read_bytes() == b"before"


def test_writer_refuses_a_bad_palette(tmp_path):
    with pytest.raises(ValueError, match="palette"):
        write_vox(tmp_path / "bad.vox", [np.ones((1, 1, 1), np.uint8)], palette=np.zeros((255, 4)))
