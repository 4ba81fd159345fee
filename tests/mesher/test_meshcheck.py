"""The checker must be right and must be able to fail.

Expected numbers come from reasoning written next to them, or from a second,
deliberately different implementation (plain Python loops, BFS regions,
Euler characteristic from counting holes) — never from a mesher.
"""
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck as mc
import reticulate_core as rc
import voxel_strategies as vs


# --------------------------------------------------------------------------- helpers

def grid_of(shape, cells, material=1):
    grid = np.zeros(shape, np.uint16)
    for cell in cells:
        grid[cell] = material
    return grid


def quad(corners, material):
    """A quad given counter-clockwise seen from outside, as (corners, material)."""
    return np.array(corners, np.int64), material


def box_quads(low, high, material=1):
    """The six faces of the box [low, high) as outward counter-clockwise quads."""
    low, high = np.array(low), np.array(high)
    quads = []
    for axis, (ua, va) in enumerate(mc.UV_AXES):
        for sign in (1, -1):
            ring = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.zeros(3, np.int64)
                p[axis] = high[axis] if sign > 0 else low[axis]
                p[ua] = high[ua] if du else low[ua]
                p[va] = high[va] if dv else low[va]
                ring.append(p)
            if sign < 0:
                ring = ring[::-1]
            normal = np.cross(ring[1] - ring[0], ring[2] - ring[0])
            assert np.sign(normal[axis]) == sign and np.count_nonzero(normal) == 1
            quads.append(quad(ring, material))
    return quads


def mesh_from_parts(quads=(), triangles=()):
    """Welded mesh of outward quads (split along their 0-2 diagonal) and triangles ((3, 3) corners, material)."""
    corners, materials = [], []
    for ring, material in quads:
        corners += [ring[[0, 1, 2]], ring[[0, 2, 3]]]
        materials += [material, material]
    for tri, material in triangles:
        corners.append(np.array(tri, np.int64))
        materials.append(material)
    corners = np.array(corners).reshape(-1, 3, 3)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    axis = np.argmax(normal != 0, axis=1)
    face_codes = 2 * axis + (normal[np.arange(len(normal)), axis] > 0)
    positions, index = np.unique(corners.reshape(-1, 3), axis=0, return_inverse=True)
    return rc.Mesh(positions, index.reshape(-1, 3), materials, face_codes)


def mesh_with(mesh, **arrays):
    """A copy of ``mesh`` with some arrays replaced."""
    parts = {name: np.array(getattr(mesh, name)) for name in ("positions", "triangles", "materials", "faces")}
    parts.update(arrays)
    return rc.Mesh(**parts)


def combine(*meshes):
    """Welded union of meshes (positions merged by value)."""
    positions = np.concatenate([m.positions for m in meshes])
    offsets = np.cumsum([0] + [len(m.positions) for m in meshes[:-1]])
    triangles = np.concatenate([m.triangles + o for m, o in zip(meshes, offsets)])
    welded, inverse = np.unique(positions, axis=0, return_inverse=True)
    return rc.Mesh(welded, inverse.reshape(-1)[triangles],
                   np.concatenate([m.materials for m in meshes]), np.concatenate([m.faces for m in meshes]))


def python_exposed_faces(grid):
    """Exposed faces by plain loops over voxels and their six neighbours."""
    faces = set()
    shape = grid.shape
    for x, y, z in np.argwhere(grid != 0):
        for axis in range(3):
            for sign in (1, -1):
                neighbour = [x, y, z]
                neighbour[axis] += sign
                inside = all(0 <= c < n for c, n in zip(neighbour, shape))
                if inside and grid[tuple(neighbour)] != 0:
                    continue
                layer = (x, y, z)[axis] + (1 if sign > 0 else 0)
                ua, va = mc.UV_AXES[axis]
                faces.add((axis, layer, (x, y, z)[ua], (x, y, z)[va], sign, int(grid[x, y, z])))
    return faces


def reference_minimum(grid, seams=None):
    """DESIGN's formula computed region by region: BFS regions, chi = 1 - holes.

    Holes are the 8-connected components of the cells outside a region (closed
    cells touching at a corner share that point, which is not in the region's
    open interior), minus the one outer component.
    """
    groups = {}
    for axis, layer, u, v, sign, material in python_exposed_faces(grid):
        groups.setdefault((axis, layer, sign, material), set()).add((u, v))

    def same_chunk(a, b):
        return seams is None or (a[0] // seams, a[1] // seams) == (b[0] // seams, b[1] // seams)

    regions = []
    for key, cells in groups.items():
        unseen = set(cells)
        while unseen:
            start = unseen.pop()
            region, frontier = {start}, [start]
            while frontier:
                cu, cv = frontier.pop()
                for n in ((cu + 1, cv), (cu - 1, cv), (cu, cv + 1), (cu, cv - 1)):
                    if n in unseen and same_chunk(n, (cu, cv)):
                        unseen.discard(n)
                        region.add(n)
                        frontier.append(n)
            regions.append((key, region))

    def around(region, p):
        """Which of the four cells around lattice point p are in the region: NE, NW, SE, SW."""
        pu, pv = p
        return [(pu, pv) in region, (pu - 1, pv) in region, (pu, pv - 1) in region, (pu - 1, pv - 1) in region]

    def to_3d(key, p):
        point = [0, 0, 0]
        point[key[0]] = key[1]
        ua, va = mc.UV_AXES[key[0]]
        point[ua], point[va] = p
        return tuple(point)

    def corner_points(region):
        return {(u + du, v + dv) for u, v in region for du in (0, 1) for dv in (0, 1)}

    turning = set()
    for key, region in regions:
        for p in corner_points(region):
            ne, nw, se, sw = around(region, p)
            count = ne + nw + se + sw
            if count in (1, 3) or (count == 2 and ne == sw):
                turning.add(to_3d(key, p))

    total = 0
    for key, region in regions:
        passes = 0
        for p in corner_points(region):
            ne, nw, se, sw = around(region, p)
            count = ne + nw + se + sw
            if count < 4 and to_3d(key, p) in turning:
                passes += 2 if count == 2 and ne == sw else 1
        us = [u for u, _ in region]
        vs_ = [v for _, v in region]
        outside = {(u, v) for u in range(min(us) - 1, max(us) + 2) for v in range(min(vs_) - 1, max(vs_) + 2)
                   if (u, v) not in region}
        components = 0
        while outside:
            frontier = [outside.pop()]
            components += 1
            while frontier:
                cu, cv = frontier.pop()
                for du in (-1, 0, 1):
                    for dv in (-1, 0, 1):
                        if (cu + du, cv + dv) in outside:
                            outside.discard((cu + du, cv + dv))
                            frontier.append((cu + du, cv + dv))
        chi = 1 - (components - 1)
        total += passes - 2 * chi
    return total


# --------------------------------------------------------------------------- exposed faces

def test_exposed_faces_of_one_voxel_are_its_six_sides():
    faces = mc.exposed_faces(grid_of((3, 3, 3), [(1, 1, 1)], 7))
    # Voxel (1,1,1): the -axis sides lie in the planes at 1 (solid above), the +axis ones at 2.
    expected = {(axis, 1 + (sign > 0), 1, 1, sign, 7) for axis in range(3) for sign in (1, -1)}
    assert {tuple(f) for f in faces.tolist()} == expected


def test_faces_between_two_materials_are_interior_and_the_border_is_empty():
    grid = np.array([[[1]], [[2]]], np.uint16)           # two voxels along x, touching the border
    faces = {tuple(f) for f in mc.exposed_faces(grid).tolist()}
    assert len(faces) == 10                              # 12 sides minus the two shared ones
    assert not any(axis == 0 and layer == 1 for axis, layer, *_ in faces)
    assert (0, 0, 0, 0, -1, 1) in faces and (0, 2, 0, 0, 1, 2) in faces


@settings(max_examples=examples(150), deadline=None)
@given(vs.small_grids(max_side=5, materials=(1, 3)))
def test_exposed_faces_agree_with_a_loop_over_voxels(grid):
    assert {tuple(f) for f in mc.exposed_faces(grid).tolist()} == python_exposed_faces(grid)


# --------------------------------------------------------------------------- minimum: hand-built

def test_minimum_of_hand_built_shapes():
    # One voxel: six unit squares, each 4 turning corners and chi 1: 6 * (4 - 2) = 12.
    assert mc.minimal_triangle_count(grid_of((1, 1, 1), [(0, 0, 0)])) == 12
    # 2x2x1 slab: a box; every face is a rectangle whose only points in S are the
    # box's 8 corners (edge midpoints are straight on every face): 6 * 2 = 12.
    assert mc.minimal_triangle_count(grid_of((2, 2, 1), [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])) == 12
    # L tromino plate: top and bottom are hexagons (6 turning points, chi 1) -> 4 each;
    # sides: two 2x1 rectangles (2 each) and four unit squares (2 each) -> 8 + 4 + 8 = 20.
    assert mc.minimal_triangle_count(grid_of((2, 2, 1), [(0, 0, 0), (1, 0, 0), (0, 1, 0)])) == 20
    # 3x3x1 plate with a hole through the middle: top and bottom are annuli (chi 0) with
    # 4 outer and 4 inner corners -> 8 each; 4 outer sides 3x1 (2 each) and 4 hole
    # walls 1x1 (2 each): 16 + 8 + 8 = 32.  With chi 1 it would be 28: holes matter.
    ring = np.ones((3, 3, 1), np.uint16)
    ring[1, 1, 0] = 0
    assert mc.minimal_triangle_count(ring) == 32
    # Two voxels touching only along an edge, or only at a corner: no face is shared or
    # coplanar-adjacent except diagonally (a pinch, two turning passes), so each of the
    # 12 unit faces needs its own 2 triangles: 24.
    assert mc.minimal_triangle_count(grid_of((2, 2, 1), [(0, 0, 0), (1, 1, 0)])) == 24
    assert mc.minimal_triangle_count(grid_of((2, 2, 2), [(0, 0, 0), (1, 1, 1)])) == 24
    # Empty grid: nothing to cover.
    assert mc.minimal_triangle_count(np.zeros((4, 4, 4), np.uint16)) == 0


def test_minimum_with_seams_cuts_regions():
    # A 2x1x1 bar is a box (12) on its own; across the seam x=32 each of its four long
    # sides is cut into two unit squares, which are regions of their own: 4 * 2 * 2 + 2 * 2 = 20.
    grid = grid_of((64, 1, 1), [(31, 0, 0), (32, 0, 0)])
    assert mc.minimal_triangle_count(grid) == 12
    assert mc.minimal_triangle_count(grid, seams=32) == 20
    # Entirely inside one chunk, a seam changes nothing.
    assert mc.minimal_triangle_count(grid_of((64, 1, 1), [(30, 0, 0), (31, 0, 0)]), seams=32) == 12
    with pytest.raises(ValueError, match="seams"):
        mc.minimal_triangle_count(grid, seams=0)


def test_pinched_ring_is_simply_connected():
    # 3x3 plate without its centre and its (2,2) corner: the hole touches the outside at
    # the point (2,2), so the open interior is a C, chi 1, and (2,2) is passed twice.
    plate = np.ones((3, 3, 1), np.uint16)
    plate[1, 1, 0] = plate[2, 2, 0] = 0
    assert mc.minimal_triangle_count(plate) == reference_minimum(plate)


@settings(max_examples=examples(200), deadline=None)
@given(vs.small_grids(max_side=5, materials=(1, 2)), st.sampled_from([None, None, 1, 2, 3]))
def test_minimum_agrees_with_region_by_region_reference(grid, seams):
    assert mc.minimal_triangle_count(grid, seams) == reference_minimum(grid, seams)


# --------------------------------------------------------------------------- culled reference mesh

@settings(max_examples=examples(150), deadline=None)
@given(vs.small_grids(max_side=5, materials=(1, 3)))
def test_culled_mesh_passes_cover_and_watertight(grid):
    mesh = mc.culled_face_mesh(grid)
    triangles, minimum = mc.check_mesh(grid, mesh, minimal=False)
    assert triangles == 2 * len(mc.exposed_faces(grid)) >= minimum


@settings(max_examples=examples(40), deadline=None)
@given(vs.grids(shapes=st.sampled_from([(8, 8, 8), (5, 9, 3)]), materials=(1, 4)))
def test_culled_mesh_of_structured_grids_passes(example):
    _, grid = example
    mc.check_mesh(grid, mc.culled_face_mesh(grid), minimal=False)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 4))
def test_culled_mesh_is_minimal_when_every_region_is_one_face(seed, n_materials):
    # In a k=1 checkerboard every face's in-plane neighbours are faces of empty voxels,
    # so each region is a single unit square and two triangles per face is the minimum.
    rng = np.random.default_rng(seed)
    x, y, z = np.indices((6, 5, 4))
    grid = vs.paint((x + y + z) % 2 == 1, rng, n_materials)
    mesh = mc.culled_face_mesh(grid)
    assert mc.check_mesh(grid, mesh, minimal=True) == (len(mesh.triangles), len(mesh.triangles))


def test_hand_built_minimal_box_mesh_passes_and_culled_is_not_minimal():
    grid = grid_of((2, 1, 1), [(0, 0, 0), (1, 0, 0)])
    box = mesh_from_parts(box_quads((0, 0, 0), (2, 1, 1)))
    assert mc.check_mesh(grid, box) == (12, 12)
    culled = mc.culled_face_mesh(grid)
    assert mc.check_mesh(grid, culled, minimal=False) == (20, 12)
    with pytest.raises(AssertionError, match="minimum is 12"):
        mc.check_mesh(grid, culled)


def test_manifold_check():
    mc.check_manifold(mc.culled_face_mesh(grid_of((1, 1, 1), [(0, 0, 0)])))
    # Welded, the shared edge of two edge-touching voxels is in four triangles.
    with pytest.raises(AssertionError, match="used 2 times"):
        mc.check_manifold(mc.culled_face_mesh(grid_of((2, 2, 1), [(0, 0, 0), (1, 1, 0)])))


# --------------------------------------------------------------------------- exact areas

def test_exact_triangle_areas_over_unit_squares():
    # Triangle under y = x/2 on [0, 2]: integral of x/2 over [0, 1] is 1/4, over [1, 2] 3/4.
    tri = np.array([(0, 0), (2, 0), (2, 1)])
    assert mc.triangle_area_over_square(tri, 0, 0) == Fraction(1, 4)
    assert mc.triangle_area_over_square(tri, 1, 0) == Fraction(3, 4)
    # x + y <= 3: cell (1,1) is cut along its anti-diagonal, cell (0,0) is inside.
    tri = np.array([(0, 0), (3, 0), (0, 3)])
    assert mc.triangle_area_over_square(tri, 1, 1) == Fraction(1, 2)
    assert mc.triangle_area_over_square(tri, 0, 0) == 1
    assert mc.triangle_area_over_square(tri, 2, 1) == 0


def test_unit_face_coverage_of_culled_mesh_is_exactly_one_per_exposed_face():
    grid = grid_of((3, 2, 2), [(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 1)], 3)
    coverage = mc.unit_face_coverage(mc.culled_face_mesh(grid))
    assert coverage == {tuple(f): 1 for f in mc.exposed_faces(grid).tolist()}


# --------------------------------------------------------------------------- mutations must fail

BAR = grid_of((2, 1, 1), [(0, 0, 0), (1, 0, 0)], 5)


def bar_mesh():
    return mc.culled_face_mesh(BAR)


def test_dropped_triangle_fails():
    mesh = bar_mesh()
    holed = mesh_with(mesh, triangles=mesh.triangles[1:], materials=mesh.materials[1:], faces=mesh.faces[1:])
    with pytest.raises(AssertionError, match=r"total area 1/2 \(expected 1\)"):
        mc.check_exact_cover(BAR, holed)
    with pytest.raises(AssertionError, match="hole or a flipped triangle"):
        mc.check_watertight(holed)


def test_flipped_winding_fails():
    mesh = bar_mesh()
    triangles = mesh.triangles.copy()
    triangles[0] = triangles[0, [0, 2, 1]]
    flipped = mesh_with(mesh, triangles=triangles)
    with pytest.raises(AssertionError, match=r"faces\[0\]"):            # faces no longer agrees
        mc.check_exact_cover(BAR, flipped)
    faces = mesh.faces.copy()
    faces[0] ^= 1                                                       # consistent face code, wrong side
    flipped = mesh_with(mesh, triangles=triangles, faces=faces)
    with pytest.raises(AssertionError, match="not an exposed face"):
        mc.check_exact_cover(BAR, flipped)
    with pytest.raises(AssertionError, match="hole or a flipped triangle"):
        mc.check_watertight(flipped)


def test_shifted_vertex_fails():
    mesh = bar_mesh()
    positions = mesh.positions.copy()
    positions[0] += (0, 0, 0.5)
    with pytest.raises(AssertionError, match="not integer-valued"):
        mc.check_exact_cover(BAR, mesh_with(mesh, positions=positions))
    positions = mesh.positions.copy()
    positions[0] += (0, 0, 7)                                           # off every face's plane
    with pytest.raises(AssertionError, match="not axis-aligned"):
        mc.check_exact_cover(BAR, mesh_with(mesh, positions=positions))
    # The corner (0,0,0) moved within the bottom plane z=0 to (-1,0,0): the bottom stays
    # axis-aligned but covers area outside the bar.
    corner = int(np.nonzero((mesh.positions == 0).all(axis=1))[0][0])
    positions = mesh.positions.copy()
    positions[corner] = (-1, 0, 0)
    with pytest.raises(AssertionError):
        mc.check_exact_cover(BAR, mesh_with(mesh, positions=positions))


def test_wrong_material_fails():
    mesh = bar_mesh()
    materials = mesh.materials.copy()
    materials[3] = 6
    with pytest.raises(AssertionError, match="triangle 3 has material 6"):
        mc.check_exact_cover(BAR, mesh_with(mesh, materials=materials))


def test_overlapping_duplicate_triangle_fails():
    mesh = bar_mesh()
    doubled = mesh_with(mesh, triangles=np.concatenate([mesh.triangles, mesh.triangles[:1]]),
                        materials=np.concatenate([mesh.materials, mesh.materials[:1]]),
                        faces=np.concatenate([mesh.faces, mesh.faces[:1]]))
    with pytest.raises(AssertionError, match=r"total area 3/2 \(expected 1\)"):
        mc.check_exact_cover(BAR, doubled)
    with pytest.raises(AssertionError):
        mc.check_watertight(doubled)


def test_overlap_that_leaves_an_equal_gap_fails():
    # Top of the bar (plane z=1, cells [0,2]x[0,1]) by (0,0),(2,0),(1,1) and (0,1),(1,0),(2,1):
    # each triangle gives each of the two cells exactly 1/2 (integrals of x and 1-x), so the
    # per-face areas are all right, but the triangles overlap around (1, 1/2) and miss the
    # corners near (0, 1/2) and (2, 1/2).
    quads = [q for q in box_quads((0, 0, 0), (2, 1, 1), 5) if not (q[0][:, 2] == 1).all()]
    mesh = mesh_from_parts(quads, [([(0, 0, 1), (2, 0, 1), (1, 1, 1)], 5), ([(0, 1, 1), (1, 0, 1), (2, 1, 1)], 5)])
    with pytest.raises(AssertionError, match="overlap"):
        mc.check_exact_cover(BAR, mesh)


def test_covering_an_interior_face_fails_even_when_balanced():
    # A two-sided wall between the bar's voxels (plane x=1): balanced edges, no T-junction,
    # but neither side is an exposed face.
    wall = [quad([(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)], 5), quad([(1, 0, 0), (1, 0, 1), (1, 1, 1), (1, 1, 0)], 5)]
    mesh = combine(bar_mesh(), mesh_from_parts(wall))
    mc.check_watertight(mesh)
    with pytest.raises(AssertionError, match="not an exposed face"):
        mc.check_exact_cover(BAR, mesh)


def test_split_edge_on_one_side_is_a_t_junction():
    # Minimal bar mesh; split the top triangle that has the edge (0,0,1)-(2,0,1) at (1,0,1).
    quads = box_quads((0, 0, 0), (2, 1, 1), 5)
    top = next(q for q in quads if (q[0][:, 2] == 1).all())
    others = [q for q in quads if q is not top]
    ring = top[0]
    triangles = [(ring[[0, 2, 3]], 5)]                 # the half without the y=0 edge
    a, b, c = ring[[0, 1, 2]]                          # a=(0,0,1), b=(2,0,1) share y=0
    middle = (a + b) // 2
    triangles += [(np.array([a, middle, c]), 5), (np.array([middle, b, c]), 5)]
    mesh = mesh_from_parts(others, triangles)
    mc.check_exact_cover(BAR, mesh)                    # still an exact cover
    with pytest.raises(AssertionError):
        mc.check_watertight(mesh)


def test_balanced_t_junction_fails():
    # Box A = [0,1]x[0,1]x[0,2] meshed as 6 quads; voxels B = (1,1,0) and (1,1,1) culled.
    # They share the line x=y=1: A's +x and +y quads use it once in each direction, B's four
    # unit faces along it use each half once in each direction, so edges balance, but the
    # vertex (1,1,1) of B lies inside A's edge (1,1,0)-(1,1,2).
    grid = grid_of((2, 2, 2), [(0, 0, 0), (0, 0, 1), (1, 1, 0), (1, 1, 1)])
    mesh = combine(mesh_from_parts(box_quads((0, 0, 0), (1, 1, 2))),
                   mc.culled_face_mesh(grid_of((2, 2, 2), [(1, 1, 0), (1, 1, 1)])))
    mc.check_exact_cover(grid, mesh)
    with pytest.raises(AssertionError, match=r"T-junction: vertex \[1, 1, 1\]"):
        mc.check_watertight(mesh)


def test_watertight_rejects_bad_arrays():
    mesh = bar_mesh()
    triangles = mesh.triangles.copy()
    triangles[2, 1] = len(mesh.positions)
    with pytest.raises(ValueError, match="outside"):
        mesh_with(mesh, triangles=triangles)
    # the checker keeps its own guard for mesh-like objects that skipped Mesh's checks
    unchecked = SimpleNamespace(positions=mesh.positions, triangles=triangles,
                                materials=mesh.materials, faces=mesh.faces)
    with pytest.raises(AssertionError, match="outside"):
        mc.check_watertight(unchecked)
    positions = np.concatenate([mesh.positions, mesh.positions[:1]])
    triangles = mesh.triangles.copy()
    triangles[triangles == 0] = len(mesh.positions)
    with pytest.raises(AssertionError, match="are both"):
        mc.check_watertight(mesh_with(mesh, positions=positions, triangles=triangles))
    mc.check_watertight(mesh_with(mesh, positions=positions, triangles=triangles), allow_duplicate_positions=True)


def test_shrinking_keeps_a_failure_and_prints_a_literal():
    grid = vs.make_grid("boxes", (8, 8, 8), 3, n_materials=3, mode="blocks")
    grid[5, 5, 5] = 9

    def fails(g):
        return bool(np.any(g == 9))

    small = mc.shrink_failing_grid(grid, fails)
    assert fails(small) and np.count_nonzero(small) == 1
    namespace = {"np": np}
    exec(mc.grid_literal(small), namespace)
    assert np.array_equal(namespace["grid"], small)
