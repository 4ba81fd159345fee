"""The table weaver (``weave_table.pyx``) checked against its own
independent enumeration of the 4 x 4 window's shapes, entry by entry: the
straight points of every shape, and the triangles of every shape with none
and with all of them in S, then of random subsets.  Then end to end: random
shapes of the window as faces of plates, with studs above and below
putting points of S on their sides, through ``meshcheck``.
"""
import functools

import numpy as np
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck as mc
import reticulate_core as rc
from reticulate_core.weave_table import table_straight_points, table_triangles

WINDOW = 4
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


@functools.lru_cache(maxsize=1)
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
    assert 5000 < len(shapes) < 1 << 16
    for shape in range(1 << (WINDOW * WINDOW)):
        points = table_straight_points(shape)
        if shape not in shapes:
            assert points is None, f"shape {shape:016b} is not simple but has a table entry"
            continue
        assert points is not None, f"simple shape {shape:016b} has no table entry"
        assert sorted(points) == sorted(straight_points(shapes[shape])), f"straight points of {shape:016b}"
    assert table_straight_points(-1) is None and table_straight_points(1 << 16) is None


def sample_points(per_cell=4):
    """Points of the window, each inside one cell, shifted by 1/997 and
    1/1009 so that no line through two lattice points of the window meets
    one: a point is inside or outside every triangle, never on its side."""
    ticks = (np.arange(WINDOW * per_cell) + 0.5) / per_cell
    u, v = np.meshgrid(ticks + 1 / 997, ticks + 1 / 1009, indexing="ij")
    return np.stack([u.ravel(), v.ravel()], axis=1)


SAMPLES = sample_points()


def edge_sides(triangles, points):
    """(T, 3, P): cross(q - p, point - p) for each edge p -> q of each
    triangle and each point; > 0 where the point is left of the edge."""
    t = np.asarray(triangles, dtype=float)[..., None, :]         # (T, 3, 1, 2)
    d = np.roll(t, -1, axis=1) - t                               # the edges p -> q
    r = np.asarray(points, dtype=float) - t                      # (T, 3, P, 2)
    return d[..., 0] * r[..., 1] - d[..., 1] * r[..., 0]


def covered_times(triangles):
    """How many of the triangles (strictly counter-clockwise) hold each sample point."""
    return (edge_sides(triangles, SAMPLES) > 0).all(axis=1).sum(axis=0)


def check_triangulation(shape, mask):
    """The table's triangles for a shape with the straight points of mask in
    S: n - 2 for the n nodes (turns and those points), no vertex but the
    nodes, no node on a triangle but at its corners, every cell covered once."""
    cycle = simple_shapes()[shape]
    straight = table_straight_points(shape)
    turns = set(cycle) - set(straight)
    nodes = turns | {straight[j] for j in range(len(straight)) if (mask >> j) & 1}
    triangles = table_triangles(shape, mask)
    what = f"shape {shape:016b}, straight points in S {mask:b}"
    assert triangles is not None, f"no triangles for {what}"
    assert len(triangles) == len(nodes) - 2, f"not n - 2 triangles for {what}"
    assert {p for t in triangles for p in t} == nodes, f"vertices other than the nodes for {what}"
    nodes_list = sorted(nodes)
    on_closed = (edge_sides(triangles, nodes_list) >= 0).all(axis=1)           # (T, nodes)
    is_corner = (np.asarray(triangles)[:, :, None, :] == np.asarray(nodes_list)).all(axis=3).any(axis=1)
    bad = np.argwhere(on_closed & ~is_corner)
    assert len(bad) == 0, f"node {nodes_list[bad[0][1]]} on triangle {triangles[bad[0][0]]} for {what}"
    cells = shape_cells(shape)
    inside = np.array([(int(x), int(y)) in cells for x, y in SAMPLES])
    assert np.array_equal(covered_times(triangles), inside.astype(int)), f"cover of {what}"


def test_every_shape_weaves_with_no_and_with_all_straight_points_in_s():
    for shape in simple_shapes():
        check_triangulation(shape, 0)
        check_triangulation(shape, (1 << len(table_straight_points(shape))) - 1)
    assert table_triangles(0b11, 1 << 2) is None and table_triangles(0b100, 0) is None


@settings(max_examples=examples(2000), deadline=None)
@given(st.data())
def test_any_straight_points_in_s_weave_exactly_and_minimally(data):
    shapes = sorted(simple_shapes())
    shape = shapes[data.draw(st.integers(0, len(shapes) - 1))]
    mask = data.draw(st.integers(0, (1 << len(table_straight_points(shape))) - 1))
    check_triangulation(shape, mask)


SLOT = WINDOW + 1       # shapes one cell apart on a plate
SLOTS = 32 // SLOT      # per plate side


@st.composite
def plates_of_window_shapes(draw):
    """Random shapes of the 4 x 4 window in one chunk, most of them simple:
    36 per plate one voxel thick, 8 plates 4 layers apart, random studs on
    the layers between them putting points of S on the shapes' sides; on
    any axis, shifted so that shapes touch the chunk's low or its high
    border."""
    shift = draw(st.sampled_from([0, 32 - SLOT * (SLOTS - 1) - WINDOW]))
    n_materials = draw(st.sampled_from([1, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    simple = np.array(sorted(simple_shapes()))
    grid = np.zeros((32, 32, 32), np.uint16)
    for plate in range(8):
        for slot in range(SLOTS * SLOTS):
            shape = int(rng.choice(simple)) if rng.random() < 0.8 else int(rng.integers(1, 1 << 16))
            y, z = SLOT * (slot % SLOTS) + shift, SLOT * (slot // SLOTS) + shift
            for du, dv in shape_cells(shape):
                grid[4 * plate + 1 + shift % 2, y + du, z + dv] = 1 + shape % n_materials
    studs = np.zeros(grid.shape, bool)
    studs[shift % 2::2] = rng.random((16, 32, 32)) < draw(st.floats(0.0, 0.5))
    grid[studs] = rng.integers(1, n_materials + 1, int(studs.sum()))
    return np.ascontiguousarray(np.moveaxis(grid, 0, draw(st.integers(0, 2)))), n_materials


@settings(max_examples=examples(60), deadline=None)
@given(plates_of_window_shapes())
def test_window_shapes_mesh_exactly_minimally_and_watertight(example):
    grid, n_materials = example
    mesh = rc.mesh_chunk(grid)
    mc.check_mesh(grid, mesh, minimal=True, max_excess=0.02 if n_materials > 1 else 0.0)
    assert np.array_equal(mc.oriented_triangles(mesh), mc.oriented_triangles(rc.Mesher(walks=True).mesh(grid))), \
        "the layer scan and the double walk weave different triangles"
