"""Sparse volumes: a dict {(cx, cy, cz): chunk} meshes like the dense grid of its key box."""
import time
import tracemalloc

import numpy as np
import pytest

import meshcheck
import reticulate_core as rc


def _dense_to_sparse(volume, keep_empty=False):
    chunks = {}
    for c in np.ndindex(*(n // 32 for n in volume.shape)):
        block = volume[c[0] * 32:(c[0] + 1) * 32, c[1] * 32:(c[1] + 1) * 32, c[2] * 32:(c[2] + 1) * 32]
        if keep_empty or block.any():
            chunks[c] = block.copy()
    return chunks


def _assert_same(a, b):
    for name in ("positions", "triangles", "materials", "faces"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _scene():
    volume = np.zeros((128, 96, 64), np.uint16)
    volume[20:70, 10:40, 5:35] = 1           # crosses x, y and z seams
    volume[31:34, 31:34, 31:34] = 2
    volume[64, 0, 0] = 3                     # alone at the lower corner of chunk (2, 0, 0)
    volume[127, 95, 63] = 1                  # at the far corner: the box's last chunk
    return volume


def test_sparse_equals_dense_without_empty_chunks():
    volume = _scene()
    chunks = _dense_to_sparse(volume)
    assert len(chunks) < 24                  # empty chunks really are absent
    sparse = rc.mesh_grid(chunks)
    _assert_same(sparse, rc.mesh_grid(volume))
    meshcheck.check_mesh(volume, sparse, minimal=False, seams=32)


def test_sparse_with_empty_chunks_and_workers():
    volume = _scene()
    _assert_same(rc.mesh_grid(_dense_to_sparse(volume, keep_empty=True), workers=2),
                 rc.mesh_grid(volume, workers=1))


def test_absent_chunk_above_a_solid_one_gets_its_faces():
    # chunk (1, 0, 0) is absent but inside the key box: the +x faces at x = 32 belong to it
    chunks = {(0, 0, 0): np.ones((32, 32, 32), np.uint16), (2, 0, 0): np.zeros((32, 32, 32), np.uint16)}
    volume = np.zeros((96, 32, 32), np.uint16)
    volume[:32] = 1
    mesh = rc.mesh_grid(chunks)
    meshcheck.check_mesh(volume, mesh, seams=32)


def test_octree_chunks():
    volume = _scene()
    chunks = _dense_to_sparse(volume)
    trees = {c: (rc.CompactOctree if i % 2 else rc.Fixed8Octree).from_dense(block)
             for i, (c, block) in enumerate(chunks.items())}
    _assert_same(rc.mesh_grid(trees), rc.mesh_grid(chunks))


def test_negative_chunk_coordinates_are_grid_coordinates():
    block = np.zeros((32, 32, 32), np.uint16)
    block[0, 0, 0] = 1
    mesh = rc.mesh_grid({(-2, 0, 5): block})
    assert mesh.positions.min(axis=0).tolist() == [-64, 0, 160]
    assert mesh.positions.max(axis=0).tolist() == [-63, 1, 161]
    assert mesh.n_triangles == 12


def test_huge_sparse_world_is_never_densified():
    # 2048 x 2048 x 256 voxels (1 GiB dense) with a few chunks far apart
    rng = np.random.default_rng(3)
    chunks = {}
    for c in [(0, 0, 0), (63, 63, 7), (10, 40, 3), (11, 40, 3), (30, 5, 0)]:
        chunks[c] = (rng.random((32, 32, 32)) < 0.3).astype(np.uint16)
    tracemalloc.start()
    start = time.perf_counter()
    mesh = rc.mesh_grid(chunks, workers=2)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert seconds < 30
    # apart from the touching pair (10/11, 40, 3) the chunks are isolated: the world's
    # mesh is theirs side by side, each with the minimal triangle count (single material)
    isolated = [block for c, block in chunks.items() if c not in ((10, 40, 3), (11, 40, 3))]
    pair = np.concatenate([chunks[(10, 40, 3)], chunks[(11, 40, 3)]])
    minimum = sum(meshcheck.minimal_triangle_count(block) for block in isolated)
    minimum += meshcheck.minimal_triangle_count(pair, seams=32)
    assert mesh.n_triangles == minimum
    assert mesh.positions.min(axis=0).tolist() == [0, 0, 0]
    assert mesh.positions.max(axis=0).tolist() == [2048, 2048, 256]
    meshcheck.check_watertight(mesh)


@pytest.mark.parametrize("chunks, error, match", [
    ({}, ValueError, "no chunks"),
    ({(0, 0): np.zeros((32, 32, 32), np.uint16)}, ValueError, "integer tuples"),
    ({(0, 0, 0.5): np.zeros((32, 32, 32), np.uint16)}, ValueError, "integer tuples"),
    ({"abc": np.zeros((32, 32, 32), np.uint16)}, ValueError, "integer tuples"),
    ({(0, 0, 0): np.zeros((32, 32, 31), np.uint16)}, ValueError, r"\(32, 32, 32\)"),
    ({(0, 0, 0): np.zeros((32, 32, 32), np.float32)}, TypeError, "integer"),
    ({(0, 0, 0): np.full((32, 32, 32), -1, np.int32)}, ValueError, "0..65535"),
])
def test_bad_sparse_volumes(chunks, error, match):
    with pytest.raises(error, match=match):
        rc.mesh_grid(chunks)


def test_sparse_box_too_large_to_number():
    block = np.ones((32, 32, 32), np.uint16)
    with pytest.raises(ValueError, match="too large"):
        rc.mesh_grid({(0, 0, 0): np.zeros((32, 32, 32), np.uint16), (2**20, 2**20, 2**20): block})


def test_sparse_coordinates_beyond_float32_precision():
    block = np.ones((32, 32, 32), np.uint16)
    with pytest.raises(ValueError, match="float32"):
        rc.mesh_grid({(2**19, 0, 0): block})


def test_block_from_neighbours_equals_the_dense_halo():
    from reticulate_core import halo
    rng = np.random.default_rng(2)
    volume = rng.integers(0, 4, (96, 96, 96)).astype(np.uint16)
    chunks = [np.ascontiguousarray(volume[32 * x:32 * x + 32, 32 * y:32 * y + 32, 32 * z:32 * z + 32])
              for x in range(3) for y in range(3) for z in range(3)]
    chunks[5] = None                               # an absent (empty) neighbour
    block = np.empty((34, 34, 34), np.uint16)
    assert not halo.fill_from_neighbours(chunks, block)
    expected = volume.copy()
    expected[0:32, 32:64, 64:96] = 0
    assert np.array_equal(block, expected[31:65, 31:65, 31:65])
    with pytest.raises(ValueError, match="27 neighbour chunks"):
        halo.fill_from_neighbours(chunks[:26], block)
    chunks[0] = np.zeros((32, 32, 31), np.uint16)
    with pytest.raises(ValueError, match="shape"):
        halo.fill_from_neighbours(chunks, block)
