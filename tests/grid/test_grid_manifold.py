"""mesh_grid(manifold=True): every edge in exactly two triangles, solids kept closed and apart."""
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck
import reticulate_core as rc
from reticulate_core.halfedges import match_half_edges, sheet_vertices
from reticulate_core.manifold import split_nonmanifold


def _edge_uses(mesh):
    t = mesh.triangles.astype(np.int64)
    a, b = t.ravel(), t[:, [1, 2, 0]].ravel()
    n = len(mesh.positions)
    return np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)[1]


def _check_manifold(volume, mesh):
    meshcheck.check_exact_cover(volume, mesh)
    meshcheck.check_watertight(mesh, allow_duplicate_positions=True)
    meshcheck.check_manifold(mesh)
    assert set(_edge_uses(mesh)) <= {2}


def _surfaces(mesh):
    """Number of connected surfaces (triangles joined by shared vertex indices)."""
    parent = np.arange(mesh.n_vertices)

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b, c in mesh.triangles:
        for u, v in ((a, b), (b, c)):
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[max(ru, rv)] = min(ru, rv)
    return len({find(i) for i in np.unique(mesh.triangles)})


def _pair(offset):
    volume = np.zeros((6, 6, 6), np.uint16)
    volume[2, 2, 2] = 1
    volume[tuple(np.add((2, 2, 2), offset))] = 1
    return volume


@pytest.mark.parametrize("offset", [(1, 1, 0), (1, 0, 1), (0, 1, 1), (1, -1, 0), (1, 1, 1), (1, -1, 1), (-1, 1, 1)])
def test_edge_or_corner_contact_gives_two_closed_cubes(offset):
    volume = _pair(offset)
    plain = rc.mesh_grid(volume)
    assert _surfaces(plain) == 1                     # welded by position the cubes share vertices
    mesh = rc.mesh_grid(volume, manifold=True)
    _check_manifold(volume, mesh)
    assert _surfaces(mesh) == 2
    shared = 2 if sum(map(abs, offset)) == 2 else 1  # an edge's two ends, or one corner
    assert mesh.n_vertices == plain.n_vertices + shared
    assert np.array_equal(mesh.triangles.shape, plain.triangles.shape)


def test_diagonal_pair_between_full_layers():
    # the two solids are joined above and below, so the contact edge's ends are single sheets
    volume = np.zeros((4, 4, 5), np.uint16)
    volume[1:3, 1:3, 1] = 1
    volume[1:3, 1:3, 3] = 1
    volume[1, 1, 2] = volume[2, 2, 2] = 1
    _check_manifold(volume, rc.mesh_grid(volume, manifold=True))


def test_three_dimensional_checker():
    volume = (np.indices((6, 6, 6)).sum(axis=0) % 2).astype(np.uint16)
    _check_manifold(volume, rc.mesh_grid(volume, manifold=True))


def test_contacts_on_chunk_seams():
    volume = np.zeros((64, 64, 64), np.uint16)
    volume[31, 31, 5] = volume[32, 32, 5] = 1
    volume[31, 31, 31] = volume[32, 32, 32] = 2
    volume[31, 10, 31] = volume[32, 11, 32] = 1
    _check_manifold(volume, rc.mesh_grid(volume, manifold=True, workers=2))


def test_duplicates_only_at_split_points():
    rng = np.random.default_rng(5)
    volume = (rng.random((40, 40, 40)) < 0.4).astype(np.uint16)
    plain = rc.mesh_grid(volume)
    mesh = rc.mesh_grid(volume, manifold=True)
    _check_manifold(volume, mesh)
    keys, counts = np.unique(mesh.positions, axis=0, return_counts=True)
    split = keys[counts > 1]
    assert len(split) and len(keys) == plain.n_vertices
    # a split point is an end of an edge with four triangles or a vertex with several fans
    t = plain.triangles.astype(np.int64)
    a, b = t.ravel(), t[:, [1, 2, 0]].ravel()
    n = plain.n_vertices
    edges, uses = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    on_double_edges = np.unique(np.concatenate([edges[uses == 4] // n, edges[uses == 4] % n]))
    def key(p):
        p = p.astype(np.int64)
        return (p[:, 0] * 41 + p[:, 1]) * 41 + p[:, 2]

    split_index = np.flatnonzero(np.isin(key(plain.positions), key(split)))
    corner_only = np.setdiff1d(split_index, on_double_edges)
    padded = np.pad(volume, 1)
    for v in corner_only:               # no four-triangle edge there: a pure corner contact
        x, y, z = plain.positions[v].astype(int)
        cube = padded[x:x + 2, y:y + 2, z:z + 2]
        assert np.count_nonzero(cube) in (2, 6)
        assert cube[0, 0, 0] == cube[1, 1, 1] or cube[1, 0, 0] == cube[0, 1, 1] \
            or cube[0, 1, 0] == cube[1, 0, 1] or cube[0, 0, 1] == cube[1, 1, 0]


@settings(max_examples=examples(25))
@given(st.tuples(st.integers(1, 40), st.integers(1, 40), st.integers(1, 36)),
       st.sampled_from([0.2, 0.5, 0.8]), st.integers(0, 2**32 - 1))
def test_random_grids_are_manifold(shape, density, seed):
    rng = np.random.default_rng(seed)
    volume = (rng.random(shape) < density).astype(np.uint16) * rng.integers(1, 3, shape).astype(np.uint16)
    mesh = rc.mesh_grid(volume, manifold=True)
    _check_manifold(volume, mesh)
    # the same triangles by position, material and face as without splitting
    plain = rc.mesh_grid(volume)
    assert np.array_equal(mesh.positions[mesh.triangles], plain.positions[plain.triangles])
    assert np.array_equal(mesh.materials, plain.materials) and np.array_equal(mesh.faces, plain.faces)


def test_already_manifold_mesh_is_unchanged():
    volume = np.zeros((40, 40, 40), np.uint16)
    volume[3:30, 5:35, 2:38] = 1
    plain = rc.mesh_grid(volume)
    mesh = split_nonmanifold(plain)
    for name in ("positions", "triangles", "materials", "faces"):
        assert np.array_equal(getattr(mesh, name), getattr(plain, name)), name


def test_open_mesh_is_rejected():
    plain = rc.mesh_grid(np.ones((2, 2, 2), np.uint16))
    holed = rc.Mesh(plain.positions, plain.triangles[1:], plain.materials[1:], plain.faces[1:])
    with pytest.raises(ValueError, match="not a closed voxel surface"):
        split_nonmanifold(holed)


def test_bad_vertex_index_is_rejected():
    plain = rc.mesh_grid(np.ones((2, 2, 2), np.uint16))
    triangles = plain.triangles.copy()
    triangles[3, 1] = plain.n_vertices
    with pytest.raises(ValueError, match="outside the vertex indices"):
        rc.Mesh(plain.positions, triangles, plain.materials, plain.faces)
    # the kernel keeps its own guard for mesh-like objects that skipped Mesh's checks
    broken = SimpleNamespace(positions=plain.positions, triangles=triangles,
                             materials=plain.materials, faces=plain.faces)
    with pytest.raises(ValueError, match="indexes vertex"):
        split_nonmanifold(broken)


def test_half_edge_kernels_reject_arrays_they_would_read_past():
    """The kernels index without bounds checks: shapes and index ranges are
    checked first, whoever calls them."""
    plain = rc.mesh_grid(np.ones((2, 2, 2), np.uint16))
    triangles, n = plain.triangles, plain.n_vertices
    mate, _ = match_half_edges(triangles, n)
    two_corners = np.ascontiguousarray(triangles[:, :2])
    with pytest.raises(ValueError, match=r"shape \(T, 3\)"):
        match_half_edges(two_corners, n)
    with pytest.raises(ValueError, match=r"shape \(T, 3\)"):
        sheet_vertices(mate[:2 * len(triangles)], two_corners, n)
    with pytest.raises(ValueError, match="mates for"):
        sheet_vertices(mate[:-1], triangles, n)
    for bad_mate in (len(mate), -2):
        changed = mate.copy()
        changed[4] = bad_mate
        with pytest.raises(ValueError, match="mates must be half-edges or -1"):
            sheet_vertices(changed, triangles, n)
    for kernel in (match_half_edges, lambda t, k: sheet_vertices(mate, t, k)):
        with pytest.raises(ValueError, match="indexes vertex"):
            kernel(triangles, n - 1)
        negative = triangles.copy()
        negative[2, 0] = -1
        with pytest.raises(ValueError, match="triangle 2 indexes vertex -1"):
            kernel(negative, n)
    corners, source = sheet_vertices(mate, triangles, n)
    assert np.array_equal(corners.reshape(-1, 3), triangles)      # a box has one sheet per vertex
