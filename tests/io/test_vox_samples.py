"""Every sample .vox file read against the facts its README states."""
import numpy as np
import pytest

from reticulate_core.io import DEFAULT_PALETTE, read_vox
from vox_chunks import SAMPLES

# file: (version, per-model sizes, total voxels over distinct models, instances, distinct palette
#        indices, naive culled triangles over distinct models) -- from samples/vox/README.md
FACTS = {
    "hierarchy.vox": (200, [(4, 4, 4)] * 4, 256, 4, 4, 768),
    "signpost.vox": (150, [(40, 40, 45)], 1424, 1, 3, 3872),
    "rt_scenegraph.vox": (200, [(8, 6, 4), (5, 5, 9), (7, 3, 5)], 299, 4, 5, 996),
    "rt_torture.vox": (200, [(24, 24, 16)], 1622, 1, 9, 3048),
    "rt_palette255.vox": (200, [(64, 64, 12)], 15796, 1, 255, 32080),
    "rt_checker32.vox": (200, [(32, 32, 32)], 32768, 1, 2, 12288),
    "rt_terrain256.vox": (200, [(256, 256, 64)], 196608, 1, 6, 434872),
}


def distinct_models(scene):
    models = {}
    for model in scene.models:
        models.setdefault(model.model_id, model.voxels)
    return [models[i] for i in sorted(models)]


def exposed_faces(voxels):
    solid = np.pad(voxels > 0, 1)
    return sum(int(np.count_nonzero(solid != np.roll(solid, 1, axis))) for axis in range(3))


def test_every_sample_is_covered():
    assert sorted(p.name for p in SAMPLES.glob("*.vox")) == sorted(FACTS)


@pytest.mark.parametrize("name", sorted(FACTS))
def test_sample_facts(name):
    version, sizes, voxel_count, instances, distinct, triangles = FACTS[name]
    scene = read_vox(SAMPLES / name)
    models = distinct_models(scene)
    assert scene.version == version
    assert [m.shape for m in models] == sizes
    assert all(m.dtype == np.uint16 for m in models)
    assert sum(int(np.count_nonzero(m)) for m in models) == voxel_count
    assert len(scene.models) == instances
    used = np.unique(np.concatenate([m[m > 0] for m in models]))
    assert len(used) == distinct and used.min() >= 1 and used.max() <= 255
    assert sum(2 * exposed_faces(m) for m in models) == triangles
    assert scene.palette.shape == (256, 4) and scene.palette.dtype == np.uint8
    for model in scene.models:
        assert model.transform.shape == (4, 4) and model.transform.dtype == np.float64
        assert np.array_equal(model.transform[3], [0, 0, 0, 1])


def test_scenegraph_instances_share_model_zero_once_rotated():
    scene = read_vox(SAMPLES / "rt_scenegraph.vox")
    ids = [m.model_id for m in scene.models]
    assert sorted(ids) == [0, 0, 1, 2]
    first, second = [m for m in scene.models if m.model_id == 0]
    assert first.voxels is second.voxels
    # _r = 17 = 0b0010001: row 0 -> column 1 negative, row 1 -> column 0, row 2 -> column 2
    turned = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert [np.array_equal(m.transform[:3, :3], turned) for m in (first, second)].count(True) == 1
    assert np.array_equal(next(m for m in (first, second) if not np.array_equal(
        m.transform[:3, :3], turned)).transform[:3, :3], np.eye(3))
    # _r = 40 = 0b0101000: row 0 -> column 0, row 1 -> column 2 negative, row 2 -> column 1
    model2 = next(m for m in scene.models if m.model_id == 2)
    assert np.array_equal(model2.transform[:3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]])


def test_scenegraph_materials():
    materials = read_vox(SAMPLES / "rt_scenegraph.vox").materials
    types = sorted(m.get("type") for m in materials.values())
    assert types == ["emit", "glass", "glass"]


def test_world_voxels_are_whole_and_models_do_not_overlap():
    """Each instance lands on integer world cells; the scene's instances are placed apart."""
    scene = read_vox(SAMPLES / "rt_scenegraph.vox")
    cells = []
    for model in scene.models:
        corners = np.argwhere(model.voxels > 0)
        a = (model.transform[:3, :3] @ corners.T).T + model.transform[:3, 3]
        b = (model.transform[:3, :3] @ (corners + 1).T).T + model.transform[:3, 3]
        assert np.array_equal(np.abs(a - b), np.ones_like(a))
        low = np.minimum(a, b)
        assert np.array_equal(low, np.round(low))
        cells.extend(map(tuple, low.astype(int)))
    assert len(cells) == len(set(cells))


def test_checker_is_a_two_colour_3d_checker():
    voxels = read_vox(SAMPLES / "rt_checker32.vox").models[0].voxels
    parity = np.indices(voxels.shape).sum(axis=0) % 2
    assert len(np.unique(voxels[parity == 0])) == 1 and len(np.unique(voxels[parity == 1])) == 1
    assert voxels[0, 0, 0] != voxels[0, 0, 1]


def test_hierarchy_and_signpost_layers():
    hierarchy = read_vox(SAMPLES / "hierarchy.vox")
    assert len(hierarchy.layers) == 16
    assert all(m.layer in hierarchy.layers for m in hierarchy.models)
    assert len(read_vox(SAMPLES / "signpost.vox").layers) == 32


@pytest.mark.parametrize("name", ["hierarchy.vox", "signpost.vox"])
def test_magicavoxel_written_rgba_is_the_default_palette_shifted_by_one(name):
    """These two files were saved by MagicaVoxel with its default palette in the RGBA chunk:
    entry k of the chunk must come out as row k + 1, equal to the spec's default table."""
    palette = read_vox(SAMPLES / name).palette
    assert np.array_equal(palette[1:], DEFAULT_PALETTE[1:])
    assert not palette[0].any()


def test_default_palette_table_structure():
    """The spec's table: a 6x6x6 colour cube without black (blue fastest), then ramps of
    red, green, blue and grey (ee dd bb aa 88 77 55 44 22 11); row 0 unused."""
    levels = [0xff - 0x33 * k for k in range(6)]
    cube = [(r, g, b) for r in levels for g in levels for b in levels][:-1]
    ramp = [0xee, 0xdd, 0xbb, 0xaa, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11]
    ramps = ([(v, 0, 0) for v in ramp] + [(0, v, 0) for v in ramp] + [(0, 0, v) for v in ramp]
             + [(v, v, v) for v in ramp])
    expected = np.array([(0, 0, 0, 0)] + [rgb + (255,) for rgb in cube + ramps], dtype=np.uint8)
    assert np.array_equal(DEFAULT_PALETTE, expected)
