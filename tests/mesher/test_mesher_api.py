"""API tests of the chunk mesher: Triangle, make_triangles, mesh, mesh_padded.

Expected triangle counts of the small shapes are derived in the comments
from DESIGN.md's minimum (sum over regions of B - 2 chi).
"""
import itertools
import re
import threading
from collections import Counter

import numpy as np
import pytest

import meshcheck as mc
import reticulate_core as rc
from reticulate_core.octree import CompactOctree, Fixed8Octree
from reticulate_core.samples import SCENARIOS, scenario_chunk


def chunk(*cells, material=1):
    """A (32, 32, 32) chunk with the given voxels set to ``material``."""
    grid = np.zeros((32, 32, 32), np.uint16)
    for cell in cells:
        grid[cell] = material
    return grid


def directed_edges(mesh):
    tri = mesh.triangles
    pos = [tuple(p) for p in mesh.positions.astype(int)]
    edges = Counter()
    for a, b, c in tri:
        for p, q in ((a, b), (b, c), (c, a)):
            edges[(pos[p], pos[q])] += 1
    return edges


def assert_closed(mesh):
    """Every directed edge a->b is matched by as many b->a edges."""
    edges = directed_edges(mesh)
    for (p, q), n in edges.items():
        assert edges.get((q, p), 0) == n, f"edge {p}->{q} used {n} times, reverse {edges.get((q, p), 0)}"


def triangle_set(mesh):
    """Triangles as rotation-normalised vertex tuples with material and face."""
    pos = mesh.positions.astype(int)
    out = Counter()
    for t, (a, b, c) in enumerate(mesh.triangles):
        verts = [tuple(pos[a]), tuple(pos[b]), tuple(pos[c])]
        k = verts.index(min(verts))
        out[(tuple(verts[k:] + verts[:k]), int(mesh.materials[t]), int(mesh.faces[t]))] += 1
    return out


def normal(verts):
    a, b, c = (np.array(v, dtype=np.int64) for v in verts)
    return np.cross(b - a, c - a)


# ---------------------------------------------------------------- small shapes

def test_single_voxel_is_twelve_triangles():
    # six unit squares, each its own region: B = 4, chi = 1 -> 2 each
    mesh = rc.mesh_chunk(chunk((3, 4, 5)))
    assert mesh.n_triangles == 12
    assert mesh.n_vertices == 8
    assert sorted(Counter(mesh.faces.tolist()).values()) == [2] * 6
    assert_closed(mesh)


def test_bar_is_twelve_triangles():
    # 2x1x1 bar: four 2x1 rectangles (no point of S inside their long edges,
    # the end squares turn only at the bar's corners) and two unit ends
    mesh = rc.mesh_chunk(chunk((3, 4, 5), (4, 4, 5)))
    assert mesh.n_triangles == 12
    assert mesh.n_vertices == 8
    assert_closed(mesh)


def test_plate_with_hole():
    # 3x3x1 plate without its centre: top and bottom are rings, B = 8 corners,
    # chi = 0 -> 8 each; four outer 3x1 sides -> 2 each; four unit hole sides -> 2 each
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[0:3, 0:3, 0] = 1
    grid[1, 1, 0] = 0
    mesh = rc.mesh_chunk(grid)
    assert mesh.n_triangles == 8 + 8 + 4 * 2 + 4 * 2
    assert_closed(mesh)


def test_l_plate():
    # L tromino plate: top and bottom hexagons (B = 6, chi = 1 -> 4 each); six
    # side rectangles (2x1 or 1x1) whose edges hold no other point of S -> 2 each
    mesh = rc.mesh_chunk(chunk((5, 5, 5), (6, 5, 5), (5, 6, 5)))
    assert mesh.n_triangles == 4 + 4 + 6 * 2
    assert_closed(mesh)


def test_step_of_two_materials_splits_the_tall_side():
    # A = x 0..1 z 0..2 (material 1), B = x 1..2 z 0..1 (material 2), y 0..1.
    # On y = 0 (and y = 1) A's 1x2 side has a fifth vertex where B's square turns
    # (point x=1, z=1): B = 5 -> 3 triangles, B's square 2 -> 5 per side.
    # Tops of A and B, A's +x square above B, both bottoms, A's -x side, B's +x side: 2 each.
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[0, 0, 0:2] = 1
    grid[1, 0, 0] = 2
    mesh = rc.mesh_chunk(grid)
    assert mesh.n_triangles == 5 + 5 + 7 * 2
    assert_closed(mesh)
    # single material: the sides are L hexagons (4 triangles), the bottom a 2x1 rectangle
    grid[grid != 0] = 1
    mesh = rc.mesh_chunk(grid)
    assert mesh.n_triangles == 4 + 4 + 6 * 2
    assert_closed(mesh)


def test_full_chunk_is_a_box():
    mesh = rc.mesh_chunk(np.ones((32, 32, 32), np.uint16))
    assert mesh.n_triangles == 12
    assert sorted(map(tuple, mesh.positions.astype(int))) == sorted(
        (x, y, z) for x in (0, 32) for y in (0, 32) for z in (0, 32))


def test_empty_chunk_is_empty():
    mesh = rc.mesh_chunk(np.zeros((32, 32, 32), np.uint16))
    assert mesh.n_triangles == 0 and mesh.n_vertices == 0


@pytest.mark.parametrize("corner", [(0, 0, 0), (31, 31, 31), (31, 0, 0), (0, 31, 31), (17, 3, 29)])
def test_lone_voxel_found_after_empty_chunks(corner):
    """The empty-chunk shortcut scans slab by slab: a voxel anywhere, in a
    C-ordered or a strided array, right after empty chunks, is meshed."""
    mesher = rc.Mesher()
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[corner] = 5
    read_only = grid.copy()
    read_only.setflags(write=False)
    for voxels in (grid, np.asfortranarray(grid), np.repeat(grid, 2, axis=2)[:, :, ::2], read_only):
        mesher.mesh(np.ones((32, 32, 32), np.uint16))
        assert mesher.mesh(np.zeros_like(voxels)).n_triangles == 0
        mesh = mesher.mesh(voxels)
        assert mesh.n_triangles == 12
        assert set(mesh.materials) == {5}
        assert mesh.positions.min(axis=0).tolist() == list(corner)


@pytest.mark.parametrize("where, emit_upper, expected", [
    ((32, 32, 32), (True, True, True), 12),     # the chunk's last voxel
    ((33, 32, 32), (True, True, True), 2),      # a halo voxel facing that (empty) voxel: layer 32 of x
    ((33, 32, 32), (False, True, True), 0),     # ... which this chunk does not emit
    ((33, 33, 33), (True, True, True), 0),      # the block's last voxel: a halo corner, no face
    ((0, 5, 7), (True, True, True), 2),         # the block's first slab: layer 0 of x
])
def test_mesh_padded_finds_a_lone_voxel_anywhere(where, emit_upper, expected):
    """The all-empty scan of a block with a halo reaches its last word: a
    lone voxel anywhere in the block, after all-empty blocks, is meshed."""
    mesher = rc.Mesher()
    block = np.zeros((34, 34, 34), np.uint16)
    assert mesher.mesh_padded(block).n_triangles == 0
    block[where] = 3
    block.setflags(write=False)
    mesh = mesher.mesh_padded(block, emit_upper)
    assert mesh.n_triangles == expected
    assert set(mesh.materials) <= {3}


# ---------------------------------------------------------------- Triangle API

def test_triangles_point_away_from_their_solid_voxel():
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[10:13, 4:6, 7] = 3
    grid[11, 5, 8] = 9
    grid[0, 0, 0] = 65535
    grid[31, 31, 31] = 2
    triangles = []
    rc.Mesher().make_triangles(grid, lambda value: value, triangles.append)
    assert triangles
    padded = np.pad(grid, 1)
    for tri in triangles:
        verts = tri.outward_vertices()
        assert len(verts) == 3 and all(len(p) == 3 for p in verts)
        n = normal(verts)
        axis = int(np.flatnonzero(n)[0])
        assert np.count_nonzero(n) == 1
        positive = n[axis] > 0
        assert tri.face() == 2 * axis + int(positive)
        # the unit cell just inside the triangle, on both sides of its plane
        centre = np.array(verts, dtype=float).mean(axis=0)
        inside = np.floor(centre).astype(int)
        layer = int(verts[0][axis])
        outside_voxel = inside.copy()
        solid_voxel = inside.copy()
        outside_voxel[axis] = layer if positive else layer - 1
        solid_voxel[axis] = layer - 1 if positive else layer
        assert padded[tuple(solid_voxel + 1)] == tri.material() != 0
        assert padded[tuple(outside_voxel + 1)] == 0


def test_make_triangles_agrees_with_mesh():
    grid = scenario_chunk("multi_terrain")
    triangles = []
    rc.Mesher().make_triangles(grid, lambda value: value, triangles.append)
    got = Counter()
    for tri in triangles:
        verts = list(tri.outward_vertices())
        k = verts.index(min(verts))
        got[(tuple(verts[k:] + verts[:k]), tri.material(), tri.face())] += 1
    assert got == triangle_set(rc.mesh_chunk(grid))


def test_to_material_is_called_once_per_distinct_value():
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[:4] = 5
    grid[8:10] = 7
    calls = []

    def to_material(value):
        calls.append(value)
        return {5: 40, 7: 41}[value]

    triangles = []
    rc.Mesher().make_triangles(CompactOctree.from_dense(grid), to_material, triangles.append)
    assert sorted(calls) == [5, 7]
    mapped = np.where(grid == 5, 40, np.where(grid == 7, 41, 0)).astype(np.uint16)
    assert sorted(t.material() for t in triangles) == sorted(rc.mesh_chunk(mapped).materials.tolist())


@pytest.mark.parametrize("result", [70000, -1, 1.7, "5", True, None])
def test_to_material_result_is_validated(result):
    with pytest.raises(ValueError, match=f"to_material\\(1\\) returned {re.escape(repr(result))}"):
        rc.Mesher().make_triangles(chunk((1, 1, 1)), lambda value: result, lambda tri: None)


@pytest.mark.parametrize("vertices, material, face, error, message", [
    (((0, 0, 0), (1, 0, 0)), 1, 0, ValueError, "three"),
    (((0, 0, 0), (1, 0, 0), (1, 1.5, 0)), 1, 0, TypeError, "integers"),
    (((0, 0, 0), (1, 0, 0), (1, True, 0)), 1, 0, TypeError, "integers"),
    (((0, 0, 0), (1, 0, 0), (1, 1, 0)), 70000, 0, ValueError, "material"),
    (((0, 0, 0), (1, 0, 0), (1, 1, 0)), 1, 6, ValueError, "face"),
    (((0, 0, 0), (1, 0, 0), (1, 1, 0)), 1, -1, ValueError, "face"),
])
def test_triangle_constructor_checks_its_arguments(vertices, material, face, error, message):
    with pytest.raises(error, match=message):
        rc.Triangle(vertices, material, face)
    made = rc.Triangle(((0, 0, 0), (1, 0, 0), (1, 1, np.int64(0))), np.uint16(7), 5)
    assert made.outward_vertices() == ((0, 0, 0), (1, 0, 0), (1, 1, 0)) and made.material() == 7
    assert made.axis == 2 and made.positive


# ---------------------------------------------------------------- inputs

@pytest.mark.parametrize("name", ["sphere", "noise", "multi_terrain"])
def test_dense_compact_and_fixed8_give_the_same_mesh(name):
    # Octrees and Mesher(walks=True) take the double walk: the same arrays.
    # Dense input takes the layer scan: the same triangles, in another order.
    grid = scenario_chunk(name)
    walked = rc.Mesher(walks=True).mesh(grid)
    for tree in (CompactOctree.from_dense(grid), Fixed8Octree.from_dense(grid)):
        other = rc.Mesher().mesh(tree)
        for field in ("positions", "triangles", "materials", "faces"):
            np.testing.assert_array_equal(getattr(walked, field), getattr(other, field))
    scanned = rc.Mesher().mesh(grid)
    np.testing.assert_array_equal(mc.oriented_triangles(scanned), mc.oriented_triangles(walked))
    assert scanned.n_vertices == walked.n_vertices


def test_other_integer_dtypes_and_bool():
    grid = np.zeros((32, 32, 32), np.int64)
    grid[2:5, 3, 4] = 65535
    reference = rc.mesh_chunk(grid.astype(np.uint16))
    np.testing.assert_array_equal(rc.mesh_chunk(grid).triangles, reference.triangles)
    as_bool = rc.mesh_chunk(grid != 0)
    assert set(as_bool.materials.tolist()) == {1}
    assert as_bool.n_triangles == reference.n_triangles


def test_all_sixteen_bit_ids():
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[1, 1, 1] = 65535
    grid[2, 1, 1] = 65534
    grid[20, 20, 20] = 1
    mesh = rc.mesh_chunk(grid)
    assert Counter(mesh.materials.tolist()) == {65535: 10, 65534: 10, 1: 12}
    assert_closed(mesh)


@pytest.mark.parametrize("bad, error", [
    (np.zeros((32, 32, 31), np.uint16), ValueError),
    (np.zeros((32, 32), np.uint16), ValueError),
    (np.zeros((32, 32, 32), np.float32), TypeError),
    (np.full((32, 32, 32), -1, np.int32), ValueError),
    (np.full((32, 32, 32), 65536, np.int32), ValueError),
])
def test_bad_chunks_are_rejected(bad, error):
    with pytest.raises(error):
        rc.mesh_chunk(bad)


def test_bad_padded_arrays_are_rejected():
    mesher = rc.Mesher()
    with pytest.raises(ValueError, match="34"):
        mesher.mesh_padded(np.zeros((32, 32, 32), np.uint16))
    with pytest.raises(TypeError, match="uint16"):
        mesher.mesh_padded(np.zeros((34, 34, 34), np.int32))
    with pytest.raises(TypeError):
        mesher.mesh_padded([[0]])
    with pytest.raises(ValueError, match="emit_upper"):
        mesher.mesh_padded(np.zeros((34, 34, 34), np.uint16), (True, True))
    for flags in ("abc", itertools.count(), 1, (True, 2, False), (True, "no", False)):
        with pytest.raises(TypeError, match="emit_upper"):
            mesher.mesh_padded(np.zeros((34, 34, 34), np.uint16), flags)
    assert mesher.mesh_padded(np.zeros((34, 34, 34), np.uint16), [np.True_, 0, 1]).n_triangles == 0


# ---------------------------------------------------------------- padded chunks

@pytest.mark.parametrize("name", ["terrain", "noise", "checkerboard"])
def test_zero_halo_equals_standalone(name):
    grid = scenario_chunk(name)
    mesher = rc.Mesher()
    standalone = mesher.mesh(grid)
    padded = mesher.mesh_padded(np.pad(grid, 1))
    for field in ("positions", "triangles", "materials", "faces"):
        np.testing.assert_array_equal(getattr(standalone, field), getattr(padded, field))


@pytest.mark.parametrize("octree", [CompactOctree, Fixed8Octree])
def test_a_standalone_copy_is_not_read_by_the_next_call(octree):
    """Copying a standalone chunk takes its solid rows for the layer scan;
    a chunk meshed by the walks instead (octree input) must leave nothing
    behind for the next block the same mesher scans."""
    mesher = rc.Mesher()
    mesher.mesh(octree.from_dense(scenario_chunk("terrain")))
    block = np.pad(scenario_chunk("sphere"), 1)
    block[0, 3:9, 4:20] = 2                 # a halo, so the block's own rows are read
    expected = rc.Mesher().mesh_padded(block)
    mesh = mesher.mesh_padded(block)
    for field in ("positions", "triangles", "materials", "faces"):
        np.testing.assert_array_equal(getattr(mesh, field), getattr(expected, field))


def test_halo_voxel_gives_its_layer_zero_face():
    padded = np.zeros((34, 34, 34), np.uint16)
    padded[0, 5, 6] = 7            # voxel (-1, 4, 5), left of the chunk
    mesh = rc.Mesher().mesh_padded(padded)
    assert mesh.n_triangles == 2
    assert set(mesh.faces.tolist()) == {1} and set(mesh.materials.tolist()) == {7}
    assert sorted(map(tuple, mesh.positions.astype(int))) == [(0, 4, 5), (0, 4, 6), (0, 5, 5), (0, 5, 6)]
    # the same voxel seen by the chunk's own grid neighbour ends up nowhere else:
    # a halo voxel above the chunk faces layer 32, emitted by the next chunk
    padded = np.zeros((34, 34, 34), np.uint16)
    padded[33, 5, 6] = 7
    assert rc.Mesher().mesh_padded(padded, (False, True, True)).n_triangles == 0


def test_emit_upper_false_drops_layer_32():
    padded = np.pad(np.ones((32, 32, 32), np.uint16), 1)
    mesher = rc.Mesher()
    assert mesher.mesh_padded(padded).n_triangles == 12
    for axis in range(3):
        flags = [True] * 3
        flags[axis] = False
        mesh = mesher.mesh_padded(padded, tuple(flags))
        assert mesh.n_triangles == 10
        assert (2 * axis + 1) not in mesh.faces.tolist()
    assert mesher.mesh_padded(padded, (False, False, False)).n_triangles == 6


def test_two_padded_chunks_close_up_across_their_seam():
    grid = np.zeros((64, 32, 32), np.uint16)
    grid[20:45, 3:9, 4:7] = 1
    grid[30:34, 3:12, 4:5] = 2
    big = np.pad(grid, 1)
    mesher = rc.Mesher()
    first = mesher.mesh_padded(np.ascontiguousarray(big[0:34]), (False, True, True))
    second = mesher.mesh_padded(np.ascontiguousarray(big[32:66]), (True, True, True))
    positions = np.concatenate([first.positions, second.positions + np.float32([32, 0, 0])])
    unique, inverse = np.unique(positions, axis=0, return_inverse=True)
    triangles = inverse.reshape(-1)[np.concatenate([first.triangles, second.triangles + len(first.positions)])]
    whole = rc.Mesh(unique, triangles, np.concatenate([first.materials, second.materials]),
                    np.concatenate([first.faces, second.faces]))
    assert_closed(whole)


# ---------------------------------------------------------------- determinism, metrics, threads

def test_deterministic_and_welded():
    grid = scenario_chunk("noise")
    first = rc.Mesher().mesh(grid)
    again = rc.mesh_chunk(grid)
    for field in ("positions", "triangles", "materials", "faces"):
        np.testing.assert_array_equal(getattr(first, field), getattr(again, field))
    assert len(np.unique(first.positions, axis=0)) == first.n_vertices
    assert first.positions.min() >= 0 and first.positions.max() <= 32


def _assert_fresh_after(first, filler, count, later):
    """A Mesher meshes ``later`` as a fresh Mesher does, twice, right after
    meshing ``first`` and then ``count`` chunks of ``filler``."""
    expected = rc.Mesher().mesh(later)
    mesher = rc.Mesher()
    mesher.mesh(first)
    for _ in range(count):
        mesher.mesh(filler)
    for _ in range(2):
        mesh = mesher.mesh(later)
        for field in ("positions", "triangles", "materials", "faces"):
            np.testing.assert_array_equal(getattr(mesh, field), getattr(expected, field))


def test_welds_stay_apart_when_the_weld_tags_come_round():
    """A Mesher tells the vertices welded in this chunk from earlier
    chunks' by a tag that moves on with each chunk and comes round after
    65,535 of them (chunk 65,536 reuses chunk 1's).  Chunk 1 welds the
    corners of a voxel that no chunk touches again until chunk 65,536,
    which welds other corners first: its mesh is a fresh Mesher's."""
    first = np.zeros((32, 32, 32), np.uint16)
    first[5, 5, 5] = 1
    other = np.zeros((32, 32, 32), np.uint16)
    other[20, 20, 20] = 1
    later = first.copy()
    later[0, 0, 0] = 2
    _assert_fresh_after(first, other, 65_534, later)


def test_s_tests_stay_apart_when_their_tags_come_round():
    """A Mesher caches which points it tested for S in this chunk under a
    tag that moves on with each chunk and comes round after 32,767 of them
    (chunk 32,768 reuses chunk 1's).  Chunks 1 and 32,768 are rough
    multi-material chunks that test many of the same points (the chunks
    between them test none): chunk 32,768's mesh is a fresh Mesher's."""
    rng = np.random.default_rng(7)
    first, later = (rng.integers(0, 4, (32, 32, 32)).astype(np.uint16) for _ in range(2))
    lone = np.zeros((32, 32, 32), np.uint16)
    lone[20, 20, 20] = 1
    _assert_fresh_after(first, lone, 32_766, later)


def test_metrics_are_opt_in():
    grid = scenario_chunk("sphere")
    assert rc.Mesher().last_metrics is None
    plain = rc.Mesher()
    plain.mesh(grid)
    assert plain.last_metrics is None
    mesher = rc.Mesher(metrics=True)
    mesh = mesher.mesh(grid)
    metrics = mesher.last_metrics
    assert metrics["triangles"] == mesh.n_triangles
    assert metrics["regions"] + metrics["seeds_claimed"] == metrics["seeds"]
    assert metrics["regions"] > 0
    assert metrics["gather_seconds"] > 0 and metrics["scan_seconds"] > 0


def test_mesh_chunk_from_threads():
    grids = [scenario_chunk(name) for name in SCENARIOS]
    expected = [rc.mesh_chunk(g).triangles for g in grids]
    results = {}

    def work(index):
        results[index] = [rc.mesh_chunk(g).triangles for g in grids]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results.values():
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)


def test_one_mesher_shared_by_threads():
    """A Mesher meshes one call at a time: threads sharing one wait for
    each other (the GIL released while meshing and while waiting) and
    every call gets its own chunk's mesh."""
    grids = [scenario_chunk(name) for name in SCENARIOS]
    padded = [np.pad(g, 1) for g in grids]
    shared = rc.Mesher()
    expected = [rc.Mesher().mesh(g) for g in grids]
    failures = []

    def work(offset):
        for round_ in range(6):
            i = (offset + round_) % len(grids)
            for mesh in (shared.mesh(grids[i]), shared.mesh_padded(padded[i])):
                if not (np.array_equal(mesh.triangles, expected[i].triangles)
                        and np.array_equal(mesh.positions, expected[i].positions)):
                    failures.append((offset, SCENARIOS[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
