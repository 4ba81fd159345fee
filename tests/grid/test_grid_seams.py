"""mesh_grid keeps guarantees 1-4 across chunk seams (DESIGN.md).

Every mesh is checked by the independent ``meshcheck``: exact cover, watertight
without T-junctions, and (single material) the minimum with regions cut at the
32-voxel seams.
"""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck
import reticulate_core as rc



def check(volume, mesh, single_material=None):
    if single_material is None:
        single_material = len(np.unique(volume[volume != 0])) <= 1
    meshcheck.check_mesh(volume, mesh, minimal=single_material, seams=32)


def test_voxel_at_each_corner_of_a_64_grid():
    volume = np.zeros((64, 64, 64), np.uint16)
    for x in (0, 63):
        for y in (0, 63):
            for z in (0, 63):
                volume[x, y, z] = 1
    mesh = rc.mesh_grid(volume)
    check(volume, mesh)
    assert mesh.n_triangles == 8 * 12


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_slab_straddling_a_seam(axis):
    volume = np.zeros((64, 64, 64), np.uint16)
    index = [slice(8, 56)] * 3
    index[axis] = slice(30, 34)
    volume[tuple(index)] = 1
    mesh = rc.mesh_grid(volume)
    check(volume, mesh)


def test_structures_on_every_seam_line_and_point():
    volume = np.zeros((70, 66, 40), np.uint16)
    volume[31:33, :, :] = 2                  # a wall across the x seam
    volume[:, 31:33, 10:20] = 3              # a beam across the y seam, through the wall
    volume[28:36, 28:36, 28:36] = 1          # a cube around the seam corner point (32, 32, 32)
    volume[32, 32, 31] = 0                   # with a dent at the seam
    volume[64:70, 0:2, 0] = 4                # in the partial last chunk
    mesh = rc.mesh_grid(volume)
    check(volume, mesh)


def test_edge_and_corner_contacts_across_seams():
    volume = np.zeros((64, 64, 64), np.uint16)
    volume[31, 31, 10] = 1                   # touches (32, 32, 10) along an edge on the x-y seam line
    volume[32, 32, 10] = 1
    volume[31, 31, 31] = 1                   # touches (32, 32, 32) at the seam corner point
    volume[32, 32, 32] = 1
    mesh = rc.mesh_grid(volume)
    check(volume, mesh)


def test_full_grid_is_one_box_cut_at_seams():
    volume = np.ones((64, 40, 33), np.uint16)
    mesh = rc.mesh_grid(volume)
    check(volume, mesh)


grids = st.builds(
    lambda shape, density, materials, seed: _random_grid(shape, density, materials, seed),
    st.tuples(st.integers(1, 70), st.integers(1, 70), st.integers(1, 40)),
    st.sampled_from([0.02, 0.2, 0.5, 0.8, 0.98]),
    st.integers(1, 3),
    st.integers(0, 2**32 - 1))


def _random_grid(shape, density, materials, seed):
    rng = np.random.default_rng(seed)
    # blocky noise (runs of equal voxels) so that regions grow across seams
    coarse = [max(1, n // 3) for n in shape]
    solid = rng.random(coarse) < density
    ids = rng.integers(1, materials + 1, coarse).astype(np.uint16)
    blocky = np.where(solid, ids, 0).astype(np.uint16)
    for axis, n in enumerate(shape):
        blocky = np.repeat(blocky, -(-n // blocky.shape[axis]), axis=axis)
    volume = np.ascontiguousarray(blocky[:shape[0], :shape[1], :shape[2]])
    # and some single-voxel noise on top
    flip = rng.random(shape) < 0.03
    volume[flip] = np.where(volume[flip] == 0, 1, 0)
    return volume


@settings(max_examples=examples(80))
@given(grids)
def test_random_grids_keep_the_guarantees(volume):
    check(volume, rc.mesh_grid(volume, workers=1))


def test_deterministic_and_independent_of_workers():
    volume = _random_grid((96, 70, 50), 0.5, 3, 7)
    one = rc.mesh_grid(volume, workers=1)
    two = rc.mesh_grid(volume, workers=2)
    again = rc.mesh_grid(volume, workers=2)
    for name in ("positions", "triangles", "materials", "faces"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
        assert np.array_equal(getattr(two, name), getattr(again, name)), name
    check(volume, one, single_material=False)


def test_skipping_uniform_chunks_changes_nothing():
    volume = np.zeros((128, 128, 128), np.uint16)
    volume[:, :, :70] = 1                    # chunk (1, 1, 1) and its halo are solid,
    volume[40:50, 40:50, 70:80] = 2          # chunks with z = 3 and their halo are empty
    coords = np.array(list(np.ndindex(4, 4, 4)))
    mesher = rc.Mesher()
    box = ((0, 0, 0), 129, 129)
    skipped = mesher.mesh_volume_batch(volume, coords, *box)
    unskipped = mesher.mesh_volume_batch(volume, coords, *box, skip_uniform=False)
    for a, b in zip(skipped, unskipped):
        assert np.array_equal(a, b)
    assert len(skipped[0]) < len(coords), "the test grid must have chunks without triangles"
    # the grid mesher gives the same triangles as the batch of all chunks
    mesh = rc.mesh_grid(volume)
    assert mesh.n_triangles == len(skipped[5])
    check(volume, mesh, single_material=False)


def test_empty_grid_gives_an_empty_mesh():
    mesh = rc.mesh_grid(np.zeros((40, 33, 5), np.uint16))
    assert mesh.n_triangles == 0 and mesh.n_vertices == 0


SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "vox"


@pytest.mark.parametrize("name", ["rt_torture.vox", "rt_palette255.vox", "rt_terrain256.vox", "signpost.vox"])
def test_sample_models(name):
    scene = rc.io.read_vox(SAMPLES / name)
    for model in scene.models:
        mesh = rc.mesh_grid(model.voxels, workers=2)
        meshcheck.check_mesh(model.voxels, mesh, seams=32, max_excess=0.02)
        split = rc.mesh_grid(model.voxels, manifold=True)
        meshcheck.check_exact_cover(model.voxels, split)
        meshcheck.check_manifold(split)
