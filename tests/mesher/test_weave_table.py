"""The table weaver (``weave_table.pyx``) checked against its own
independent enumeration of the 3 x 3 window's shapes, entry by entry, then
end to end: every shape of the window as a face of a plate, with studs
above and below putting points of S on its sides, through ``meshcheck``.
"""
import numpy as np
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck as mc
import reticulate_core as rc
from reticulate_core.weave_table import table_straight_points, table_triangles

WINDOW = 3
STEPS = {(1, 0), (0, 1), (-1, 0), (0, -1)}


def shape_cells(shape):
    return {(u, v) for u in range(WINDOW) for v in range(WINDOW) if (shape >> (u + WINDOW * v)) & 1}


def connected(cells):
    seen, todo = set(), [min(cells)]
    while todo:
        u, v = todo.pop()
        if (u, v) not in seen:
            seen.add((u, v))
            todo.extend((u + du, v + dv) for du, dv in STEPS if (u + du, v + dv) in cells)
    return seen == cells


def boundary_cycle(cells):
    """The boundary's directed unit edges (cells on their left) chained
    into one cycle of points; None when they do not form exactly one
    simple cycle (a hole, or a point two cells touch at only)."""
    edges = {}
    for u, v in cells:
        for (du, dv), start in (((1, 0), (u, v)), ((0, 1), (u + 1, v)),
                                ((-1, 0), (u + 1, v + 1)), ((0, -1), (u, v + 1))):
            # the cell across this edge lies to its right: (dv, -du) from the cell
            if (u + dv, v - du) not in cells:
                if start in edges:
                    return None
                edges[start] = (start[0] + du, start[1] + dv)
    point, cycle = min(edges), []
    while True:
        cycle.append(point)
        point = edges[point]
        if point == cycle[0]:
            break
    return cycle if len(cycle) == len(edges) else None


def simple_shapes():
    """{shape: boundary cycle} of every shape with its lowest row and column
    at the window's, at least two cells, 4-connected, simple boundary."""
    found = {}
    for shape in range(1 << (WINDOW * WINDOW)):
        cells = shape_cells(shape)
        if len(cells) < 2 or min(v for _, v in cells) or min(u for u, _ in cells) or not connected(cells):
            continue
        cycle = boundary_cycle(cells)
        if cycle is not None:
            found[shape] = cycle
    return found


def straight_points(cycle):
    n = len(cycle)
    return {cycle[i] for i in range(n)
            if np.cross(np.subtract(cycle[i], cycle[i - 1]), np.subtract(cycle[(i + 1) % n], cycle[i])) == 0}


def test_the_table_holds_exactly_the_simple_shapes_of_the_window():
    shapes = simple_shapes()
    assert 100 < len(shapes) < 512
    for shape in range(1 << (WINDOW * WINDOW)):
        points = table_straight_points(shape)
        if shape not in shapes:
            assert points is None, f"shape {shape:09b} is not simple but has a table entry"
            continue
        assert points is not None, f"simple shape {shape:09b} has no table entry"
        assert sorted(points) == sorted(straight_points(shapes[shape])), f"straight points of {shape:09b}"
    assert table_straight_points(-1) is None and table_straight_points(512) is None


def sample_points(per_cell=8):
    """Points of the window, each inside one cell, shifted by 1/997 and
    1/1009 so that no line through two lattice points of the window meets
    one: a point is inside or outside every triangle, never on its side."""
    ticks = (np.arange(WINDOW * per_cell) + 0.5) / per_cell
    u, v = np.meshgrid(ticks + 1 / 997, ticks + 1 / 1009, indexing="ij")
    return u.ravel(), v.ravel()


def covered_times(triangles, u, v):
    times = np.zeros(u.shape, int)
    for a, b, c in triangles:
        inside = np.ones(u.shape, bool)
        for p, q in ((a, b), (b, c), (c, a)):
            inside &= (q[0] - p[0]) * (v - p[1]) - (q[1] - p[1]) * (u - p[0]) > 0
        times += inside
    return times


def on_closed_triangle(point, triangle):
    a, b, c = triangle
    return all((q[0] - p[0]) * (point[1] - p[1]) - (q[1] - p[1]) * (point[0] - p[0]) >= 0
               for p, q in ((a, b), (b, c), (c, a)))


def test_every_table_triangulation_is_exact_and_minimal():
    u, v = sample_points()
    for shape, cycle in simple_shapes().items():
        cells = shape_cells(shape)
        inside = np.array([(int(x), int(y)) in cells for x, y in zip(u, v)])
        straight = table_straight_points(shape)
        turns = set(cycle) - set(straight)
        for mask in range(1 << len(straight)):
            nodes = turns | {straight[j] for j in range(len(straight)) if (mask >> j) & 1}
            triangles = table_triangles(shape, mask)
            what = f"shape {shape:09b}, straight points in S {mask:b}"
            assert triangles is not None, f"no triangles for {what}"
            assert len(triangles) == len(nodes) - 2, f"not n - 2 triangles for {what}"
            assert {p for t in triangles for p in t} == nodes, f"vertices other than the nodes for {what}"
            for t in triangles:
                assert all(not on_closed_triangle(p, t) for p in nodes - set(t)), f"a node on {t} for {what}"
            assert np.array_equal(covered_times(triangles, u, v), inside.astype(int)), f"cover of {what}"
    assert table_triangles(0b11, 1 << 8) is None and table_triangles(0b1000, 0) is None


@st.composite
def plates_of_every_window_shape(draw):
    """All 512 shapes of a 3 x 3 window in one chunk: 64 per plate one
    voxel thick (shapes 4 cells apart), 8 plates 4 layers apart, random
    studs on the layers between them putting points of S on the shapes'
    sides; on any axis, shifted so that shapes touch the chunk's low or its
    high border."""
    shift = draw(st.integers(0, 1))
    n_materials = draw(st.sampled_from([1, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = np.zeros((32, 32, 32), np.uint16)
    for shape in range(512):
        plate, slot = divmod(shape, 64)
        x, y, z = 4 * plate + 1 + shift, 4 * (slot % 8) + shift, 4 * (slot // 8) + shift
        for du, dv in shape_cells(shape):
            grid[x, y + du, z + dv] = 1 + shape % n_materials
    studs = np.zeros(grid.shape, bool)
    studs[shift::2] = rng.random((16, 32, 32)) < draw(st.floats(0.0, 0.5))
    grid[studs] = rng.integers(1, n_materials + 1, int(studs.sum()))
    return np.ascontiguousarray(np.moveaxis(grid, 0, draw(st.integers(0, 2)))), n_materials


@settings(max_examples=examples(40), deadline=None)
@given(plates_of_every_window_shape())
def test_every_window_shape_meshes_exactly_minimally_and_watertight(example):
    grid, n_materials = example
    mesh = rc.mesh_chunk(grid)
    mc.check_mesh(grid, mesh, minimal=True, max_excess=0.02 if n_materials > 1 else 0.0)
    assert np.array_equal(mc.oriented_triangles(mesh), mc.oriented_triangles(rc.Mesher(walks=True).mesh(grid))), \
        "the layer scan and the double walk weave different triangles"
