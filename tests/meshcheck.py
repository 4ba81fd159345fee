"""Independent checker of the mesher's guarantees (DESIGN.md, "Core contract").

Everything here is derived from the definitions, never from a mesher, and
uses exact integer (or ``Fraction``) arithmetic only:

- ``exposed_faces(grid)``: the unit faces between a solid voxel and an empty
  one (outside the grid is empty), with the solid voxel's material.
- ``check_exact_cover(grid, mesh)``: guarantee 1.  Per plane, orientation and
  material, the triangles (all positively oriented there) must have the same
  boundary 1-chain as the union of the exposed unit faces.  A 2-chain without
  boundary is zero almost everywhere, so equal boundaries mean the sum of the
  triangles' indicator functions *is* the indicator of the exposed faces:
  every exposed face covered exactly once, no gap, no overlap, nothing else
  covered.  On failure the exact area (``Fraction``) that the triangles give
  each nearby unit face names the first offending face.
- ``check_watertight(mesh)``: guarantee 2 (edge multiset balance, no
  T-junctions, no duplicate positions, indices in range).
- ``minimal_triangle_count(grid, seams=None)``: guarantee 3's formula,
  sum over regions of ``B - 2 * chi``.
- ``check_mesh``: all of the above; ``culled_face_mesh``: a naive reference
  mesh (two triangles per exposed face) for testing the checker itself.
- ``oriented_triangles(mesh)``: the mesh's triangles in a canonical order,
  to compare two meshes as sets of oriented, labelled triangles.

Unit faces are named (axis, layer, u, v, sign, material): the face lies in the
plane ``coordinate[axis] == layer`` and spans ``[u, u+1] x [v, v+1]`` in the
in-plane axes ``UV_AXES[axis]`` (cyclic, so ``e_u x e_v = e_axis``); sign is
+1 when its outward normal points to +axis (solid voxel at ``layer - 1``) and
-1 when it points to -axis (solid voxel at ``layer``).
"""
from fractions import Fraction

import numpy as np

import reticulate_core as rc

AXIS, LAYER, U, V, SIGN, MATERIAL = range(6)
UV_AXES = ((1, 2), (2, 0), (0, 1))
AXIS_NAMES = "xyz"

_U_OF_AXIS = np.array([uv[0] for uv in UV_AXES])
_V_OF_AXIS = np.array([uv[1] for uv in UV_AXES])


def as_grid(grid):
    """The grid as a 3-D uint16 array, or TypeError/ValueError."""
    grid = np.asarray(grid)
    if grid.dtype != np.uint16:
        raise TypeError(f"voxel grid must be uint16, got {grid.dtype}")
    if grid.ndim != 3:
        raise ValueError(f"voxel grid must be 3-D, got shape {grid.shape}")
    return grid


def face_name(axis, layer, u, v, sign, material=None):
    """Human-readable name of a unit face: which voxel side it is."""
    axis, layer, u, v, sign = int(axis), int(layer), int(u), int(v), int(sign)
    voxel = [0, 0, 0]
    voxel[axis] = layer - 1 if sign > 0 else layer
    voxel[UV_AXES[axis][0]], voxel[UV_AXES[axis][1]] = u, v
    text = (f"{'+' if sign > 0 else '-'}{AXIS_NAMES[axis]} face of voxel {tuple(voxel)} "
            f"(plane {AXIS_NAMES[axis]}={layer})")
    return text if material is None else f"{text}, material {int(material)}"


def _to_3d(axis, layer, u, v):
    """3-D integer points of in-plane lattice points (vectorised)."""
    axis = np.asarray(axis)
    points = np.zeros((len(axis), 3), np.int64)
    rows = np.arange(len(axis))
    points[rows, axis] = layer
    points[rows, _U_OF_AXIS[axis]] = u
    points[rows, _V_OF_AXIS[axis]] = v
    return points


def _sorted_rows(rows):
    return rows[np.lexsort(rows.T[::-1])] if len(rows) else rows


def _pack_columns(columns):
    """One int64 per row of equal-length integer columns, equal exactly for equal rows.

    Columns are offset to start at 0 and bit-packed when they fit in 62 bits;
    otherwise rows are numbered by a (slower) lexicographic unique.
    """
    columns = [np.asarray(c).astype(np.int64, copy=False) for c in columns]
    if len(columns[0]) == 0:
        return np.zeros(0, np.int64)
    lows = [c.min() for c in columns]
    bits = [int(c.max() - low).bit_length() for c, low in zip(columns, lows)]
    if sum(bits) > 62:
        return np.unique(np.column_stack(columns), axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    key = np.zeros(len(columns[0]), np.int64)
    for column, low, width in zip(columns, lows, bits):
        key <<= width
        key |= column - low
    return key


def _row_keys(*tables):
    """``_pack_columns`` jointly over the rows of several 2-D tables with the same columns."""
    rows = np.concatenate(tables)
    return np.split(_pack_columns(list(rows.T)), np.cumsum([len(t) for t in tables])[:-1])


def _sum_by_rows(keys, weights):
    """Unique rows of ``keys`` and the summed weights of each."""
    if len(keys) == 0:
        return keys, weights
    _, first, inverse = np.unique(_pack_columns(list(keys.T)), return_index=True, return_inverse=True)
    return keys[first], np.bincount(inverse, weights=weights).astype(np.int64)


def _match_rows(table, queries):
    """For each row of ``queries`` the index of the equal row of ``table`` (rows unique), or -1."""
    if len(table) == 0 or len(queries) == 0:
        return np.full(len(queries), -1, np.int64)
    table_keys, query_keys = _row_keys(table, queries)
    order = np.argsort(table_keys)
    slot = np.minimum(np.searchsorted(table_keys, query_keys, sorter=order), len(order) - 1)
    found = order[slot]
    return np.where(table_keys[found] == query_keys, found, -1)


# --------------------------------------------------------------------------- faces

def exposed_faces(grid):
    """All solid/empty unit faces of ``grid`` (outside the grid is empty).

    Returns an (N, 6) int64 array of unique rows (axis, layer, u, v, sign,
    material) in lexicographic order; material is the solid voxel's id.
    Solid/solid faces (whatever the materials) and empty/empty ones are absent.
    """
    grid = as_grid(grid)
    rows = []
    for axis, (ua, va) in enumerate(UV_AXES):
        column = np.transpose(grid, (axis, ua, va)).astype(np.int64)
        padded = np.zeros((column.shape[0] + 2,) + column.shape[1:], np.int64)
        padded[1:-1] = column
        below, above = padded[:-1], padded[1:]          # at layer L: voxels L-1 and L
        for sign, solid, empty in ((1, below, above), (-1, above, below)):
            layer, u, v = np.nonzero((solid != 0) & (empty == 0))
            rows.append(np.column_stack([np.full_like(layer, axis), layer, u, v,
                                         np.full_like(layer, sign), solid[layer, u, v]]))
    return _sorted_rows(np.concatenate(rows).astype(np.int64))


def culled_face_mesh(grid):
    """The naive reference mesh: two triangles per exposed face, welded by position.

    It satisfies guarantees 1 and 2 by construction (unit edges cannot have a
    lattice point in their interior) and has ``2 * len(exposed_faces)``
    triangles, never fewer than the minimum.
    """
    faces = exposed_faces(grid)
    n = len(faces)
    axis, layer, u, v, sign = (faces[:, k] for k in (AXIS, LAYER, U, V, SIGN))
    corner_uv = np.array([(0, 0), (1, 0), (1, 1), (0, 1)])       # CCW in (u, v)
    corners = np.concatenate([_to_3d(axis, layer, u + du, v + dv)[:, None]
                              for du, dv in corner_uv], axis=1)  # (n, 4, 3)
    quads = np.where((sign > 0)[:, None], [0, 1, 2, 3], [0, 3, 2, 1])
    corners = np.take_along_axis(corners, quads[:, :, None], axis=1)
    positions, index = np.unique(corners.reshape(-1, 3), axis=0, return_inverse=True)
    index = index.reshape(n, 4)
    triangles = np.concatenate([index[:, [0, 1, 2]], index[:, [0, 2, 3]]])
    materials = np.concatenate([faces[:, MATERIAL]] * 2)
    face_codes = np.concatenate([2 * axis + (sign > 0)] * 2)
    return rc.Mesh(positions, triangles, materials, face_codes)


# --------------------------------------------------------------------------- triangles

def _integer_positions(mesh):
    positions = np.asarray(mesh.positions)
    if positions.ndim != 2 or positions.shape[1] != 3:
        raise AssertionError(f"positions must have shape (V, 3), got {positions.shape}")
    finite = np.isfinite(positions).all(axis=1)
    if not finite.all():
        i = int(np.nonzero(~finite)[0][0])
        raise AssertionError(f"position {i} = {positions[i].tolist()} is not finite")
    if np.abs(positions).max(initial=0) >= 1 << 20:
        i = int(np.argmax(np.abs(positions).max(axis=1)))
        raise AssertionError(f"position {i} = {positions[i].tolist()} is outside the checkable range +-2**20")
    integer = np.rint(positions).astype(np.int64)
    off = np.nonzero((integer != positions).any(axis=1))[0]
    if off.size:
        raise AssertionError(f"position {off[0]} = {positions[off[0]].tolist()} is not integer-valued")
    return integer


def _checked_indices(mesh, n_positions):
    triangles = np.asarray(mesh.triangles)
    if triangles.ndim != 2 or triangles.shape[1] != 3:
        raise AssertionError(f"triangles must have shape (T, 3), got {triangles.shape}")
    triangles = triangles.astype(np.int64)
    bad = np.nonzero(((triangles < 0) | (triangles >= n_positions)).any(axis=1))[0]
    if bad.size:
        raise AssertionError(f"triangle {bad[0]} = {triangles[bad[0]].tolist()} has an index "
                             f"outside 0..{n_positions - 1}")
    for name in ("materials", "faces"):
        if len(np.asarray(getattr(mesh, name))) != len(triangles):
            raise AssertionError(f"{len(triangles)} triangles but {len(getattr(mesh, name))} {name}")
    return triangles


def triangle_planes(mesh):
    """Where each triangle lies; checks geometry and ``faces``.

    Returns (axis, layer, sign, uv): per triangle the plane axis and layer, the
    orientation sign of its normal ``cross(b - a, c - a)``, and its corners in
    the plane's (u, v) coordinates as a (T, 3, 2) int64 array, reordered so
    that they are counter-clockwise in (u, v) (positive signed area).
    AssertionError names the first triangle that is degenerate, not
    axis-aligned, or whose ``faces`` entry disagrees with its normal.
    """
    positions = _integer_positions(mesh)
    triangles = _checked_indices(mesh, len(positions))
    corners = positions[triangles]                                     # (T, 3, 3)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    nonzero = normal != 0
    count = nonzero.sum(axis=1)
    for i in np.nonzero(count != 1)[0][:1]:
        problem = "has zero area" if count[i] == 0 else f"is not axis-aligned (normal {normal[i].tolist()})"
        raise AssertionError(f"triangle {i} with corners {corners[i].tolist()} {problem}")
    rows = np.arange(len(triangles))
    axis = np.argmax(nonzero, axis=1)
    sign = np.sign(normal[rows, axis])
    face_codes = np.asarray(mesh.faces).astype(np.int64)
    expected = 2 * axis + (sign > 0)
    for i in np.nonzero(face_codes != expected)[0][:1]:
        raise AssertionError(
            f"triangle {i} with corners {corners[i].tolist()}: faces[{i}] = {face_codes[i]} but its "
            f"normal (counter-clockwise order) points to {'+' if sign[i] > 0 else '-'}"
            f"{AXIS_NAMES[axis[i]]}, i.e. face code {expected[i]}")
    layer = corners[rows, 0, axis]
    uv = np.stack([corners[rows[:, None], np.arange(3), _U_OF_AXIS[axis][:, None]],
                   corners[rows[:, None], np.arange(3), _V_OF_AXIS[axis][:, None]]], axis=-1)
    uv[sign < 0] = uv[sign < 0][:, [0, 2, 1]]
    return axis, layer, sign, uv


# --------------------------------------------------------------------------- exact cover

def _clip(polygon, coordinate, bound, keep_below):
    """Sutherland-Hodgman: the part of a convex polygon on one side of a lattice line."""
    inside = (lambda p: p[coordinate] <= bound) if keep_below else (lambda p: p[coordinate] >= bound)
    out = []
    for k, p in enumerate(polygon):
        q = polygon[(k + 1) % len(polygon)]
        if inside(p):
            out.append(p)
        if inside(p) != inside(q):
            t = (bound - p[coordinate]) / (q[coordinate] - p[coordinate])
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def triangle_area_over_square(uv, u, v):
    """Exact area (Fraction) of the triangle ``uv`` (3 integer (u, v) corners) inside [u,u+1]x[v,v+1]."""
    polygon = [(Fraction(int(a)), Fraction(int(b))) for a, b in uv]
    for coordinate, bound, keep_below in ((0, u, False), (0, u + 1, True), (1, v, False), (1, v + 1, True)):
        polygon = _clip(polygon, coordinate, bound, keep_below)
        if not polygon:
            return Fraction(0)
    twice = sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(polygon, polygon[1:] + polygon[:1]))
    return abs(twice) / 2


def unit_face_coverage(mesh, group=None):
    """Exact area that the triangles give each unit face (slow; for diagnostics and tests).

    Returns {(axis, layer, u, v, sign, material): Fraction}, one entry per unit
    face that a triangle covers with positive area.  ``group`` = (axis, layer,
    sign, material) restricts it to one plane, orientation and material.
    """
    axis, layer, sign, uv = triangle_planes(mesh)
    materials = np.asarray(mesh.materials).astype(np.int64)
    coverage = {}
    for i in range(len(axis)):
        key = (int(axis[i]), int(layer[i]), int(sign[i]), int(materials[i]))
        if group is not None and key != tuple(group):
            continue
        low, high = uv[i].min(axis=0), uv[i].max(axis=0)
        for u in range(low[0], high[0]):
            for v in range(low[1], high[1]):
                area = triangle_area_over_square(uv[i], u, v)
                if area:
                    face = (key[0], key[1], u, v, key[2], key[3])
                    coverage[face] = coverage.get(face, Fraction(0)) + area
    return coverage


def _boundary_events(gid, p, q, weight):
    """Point events of the oriented segments p->q (each of group ``gid``) on their lines.

    A segment lies on the line of primitive direction (du, dv) (canonical:
    du > 0, or du == 0 < dv) and offset du*v - dv*u; directed along it, it
    adds ``weight`` at its start point and takes it away at its end
    (position du*u + dv*v along the line).  The 1-chain of all segments on a
    line is zero exactly when the events at every point sum to zero.
    Returns the start and the end events, each as columns gid, du, dv,
    offset, position, u, v, weight.
    """
    d = q - p
    g = np.gcd(np.abs(d[:, 0]), np.abs(d[:, 1]))
    du, dv = d[:, 0] // g, d[:, 1] // g
    flip = (du < 0) | ((du == 0) & (dv < 0))
    du, dv = np.where(flip, -du, du), np.where(flip, -dv, dv)
    start, end = np.where(flip[:, None], q, p), np.where(flip[:, None], p, q)
    signed = np.where(flip, -weight, weight)
    offset = du * start[:, 1] - dv * start[:, 0]
    return [dict(gid=gid, du=du, dv=dv, offset=offset, position=du * point[:, 0] + dv * point[:, 1],
                 u=point[:, 0], v=point[:, 1], weight=w)
            for point, w in ((start, signed), (end, -signed))]


def check_exact_cover(grid, mesh):
    """Guarantee 1: every exposed unit face is covered exactly once by triangles of
    its orientation and material, and nothing else is covered.

    Also checks that every triangle is non-degenerate, axis-aligned on an
    integer plane, with ``faces`` agreeing with its counter-clockwise normal
    (which therefore points from the solid voxel to the empty one) and
    ``materials`` agreeing with the solid voxel.  Raises AssertionError naming
    the first offending triangle or unit face.
    """
    check_cover_of_faces(exposed_faces(grid), mesh)


def check_cover_of_faces(faces, mesh):
    """``check_exact_cover`` against a given set of unit faces (rows as ``exposed_faces``).

    For partial surfaces, such as what one padded chunk emits.
    """
    faces = np.asarray(faces, np.int64).reshape(-1, 6)
    axis, layer, sign, uv = triangle_planes(mesh)
    materials = np.asarray(mesh.materials).astype(np.int64)

    # Quick, precise messages first: the unit face under each triangle's centroid
    # (the centroid is interior, so the triangle covers that face with positive area).
    cell = uv.sum(axis=1) // 3
    under = np.column_stack([axis, layer, cell[:, 0], cell[:, 1], sign])
    found = _match_rows(faces[:, :MATERIAL], under)
    for i in np.nonzero(found < 0)[0][:1]:
        raise AssertionError(f"triangle {i} (material {materials[i]}) covers the "
                             f"{face_name(*under[i])}, which is not an exposed face "
                             "(wrong winding, wrong plane or outside the surface)")
    wrong = np.nonzero(faces[found, MATERIAL] != materials)[0]
    for i in wrong[:1]:
        raise AssertionError(f"triangle {i} has material {materials[i]} but covers the "
                             f"{face_name(*faces[found[i]])}")

    # The proof: boundary of the triangles == boundary of the exposed faces, per group.
    face_group = faces[:, [AXIS, LAYER, SIGN, MATERIAL]]
    tri_group = np.column_stack([axis, layer, sign, materials])
    face_gid, tri_gid = _row_keys(face_group, tri_group)
    tri_events = [e for k in range(3) for e in _boundary_events(tri_gid, uv[:, k], uv[:, (k + 1) % 3], 1)]
    square = np.array([(0, 0), (1, 0), (1, 1), (0, 1)])
    cell_uv = faces[:, [U, V]]
    face_events = [e for k in range(4) for e in _boundary_events(face_gid, cell_uv + square[k], cell_uv + square[(k + 1) % 4], -1)]
    events = {name: np.concatenate([e[name] for e in tri_events + face_events]) for name in tri_events[0]}
    key = _pack_columns([events[name] for name in ("gid", "du", "dv", "offset", "position")])
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    unbalanced = np.nonzero(np.bincount(inverse, weights=events["weight"]) != 0)[0]
    if unbalanced.size:
        i = first[unbalanced[0]]
        groups = np.concatenate([face_group, tri_group])
        group = groups[np.nonzero(np.concatenate([face_gid, tri_gid]) == events["gid"][i])[0][0]]
        raise AssertionError(_explain_cover_failure(
            faces, mesh, group, (events["du"][i], events["dv"][i]), (events["u"][i], events["v"][i])))


def _explain_cover_failure(faces, mesh, group, direction, point):
    """Message naming the unit face nearest to a boundary mismatch whose exact coverage is wrong.

    ``group`` is (axis, layer, sign, material); ``point`` the in-plane lattice
    point where the boundaries differ, on a line of ``direction``.
    """
    group = tuple(int(x) for x in group)
    coverage = unit_face_coverage(mesh, group)
    in_group = np.all(faces[:, [AXIS, LAYER, SIGN, MATERIAL]] == group, axis=1)
    expected = {(group[0], group[1], int(u), int(v), group[2], group[3]): Fraction(1)
                for u, v in faces[in_group][:, [U, V]]}
    wrong = [(max(abs(f[U] - point[0] + 0.5), abs(f[V] - point[1] + 0.5)), f)
             for f in sorted(set(coverage) | set(expected))
             if coverage.get(f, 0) != expected.get(f, 0)]
    where = (f"the triangles' boundary and the exposed faces' boundary differ at "
             f"{tuple(int(c) for c in _to_3d([group[0]], group[1], [point[0]], [point[1]])[0])} "
             f"along direction (u, v) = {tuple(int(c) for c in direction)}")
    if not wrong:
        return (f"{where}: every unit face has the right total area but triangles overlap "
                f"there (and leave an equal gap) in plane {AXIS_NAMES[group[0]]}={group[1]}, "
                f"sign {group[2]:+d}, material {group[3]}")
    face = min(wrong)[1]
    state = "an exposed face" if face in expected else "not an exposed face of this material/orientation"
    return (f"{face_name(*face)} ({state}) is covered with total area {coverage.get(face, 0)} "
            f"(expected {expected.get(face, 0)}); {where}")


# --------------------------------------------------------------------------- watertight

def _point_keys(points):
    """One int64 per 3-D integer point (coordinates within +-2**20)."""
    p = points.astype(np.int64) + (1 << 20)
    return (p[:, 0] << 42) | (p[:, 1] << 21) | p[:, 2]


def check_watertight(mesh, allow_duplicate_positions=False):
    """Guarantee 2: watertight by position, without T-junctions.

    Positions are integer-valued and (unless ``allow_duplicate_positions``)
    unique; indices in range; after welding by position, no triangle repeats a
    vertex, every directed edge a->b occurs as often as b->a, and no vertex
    lies strictly inside any triangle edge.
    """
    positions = _integer_positions(mesh)
    triangles = _checked_indices(mesh, len(positions))
    position_keys = _point_keys(positions)
    unique_keys, first, weld = np.unique(position_keys, return_index=True, return_inverse=True)
    welded_positions = positions[first]
    if len(welded_positions) != len(positions) and not allow_duplicate_positions:
        order = np.argsort(position_keys, kind="stable")
        k = np.nonzero(position_keys[order][1:] == position_keys[order][:-1])[0][0]
        i, j = sorted((order[k], order[k + 1]))
        raise AssertionError(f"positions {i} and {j} are both {positions[i].tolist()}")
    welded = weld[triangles]
    repeated = np.nonzero((welded[:, 0] == welded[:, 1]) | (welded[:, 1] == welded[:, 2])
                          | (welded[:, 2] == welded[:, 0]))[0]
    for t in repeated[:1]:
        raise AssertionError(f"triangle {t} repeats a vertex: corners {positions[triangles[t]].tolist()}")

    n = len(welded_positions)
    tails = welded.reshape(-1)
    heads = welded[:, [1, 2, 0]].reshape(-1)
    directed, counts = np.unique(tails * n + heads, return_counts=True)
    reverse = (directed % n) * n + directed // n
    slot = np.searchsorted(directed, reverse)
    slot = np.minimum(slot, len(directed) - 1)
    reverse_counts = np.where(directed[slot] == reverse, counts[slot], 0)
    for e in np.nonzero(reverse_counts != counts)[0][:1]:
        a, b = welded_positions[directed[e] // n], welded_positions[directed[e] % n]
        raise AssertionError(f"edge {a.tolist()} -> {b.tolist()} is used {counts[e]} times but "
                             f"{b.tolist()} -> {a.tolist()} {reverse_counts[e]} times (a hole or a "
                             "flipped triangle)")

    edges = np.unique(np.minimum(tails, heads) * n + np.maximum(tails, heads))
    start, end = welded_positions[edges // n], welded_positions[edges % n]
    delta = end - start
    steps = np.gcd.reduce(np.abs(delta), axis=1)
    inner = steps - 1                                   # lattice points strictly inside each edge
    edge_of_point = np.repeat(np.arange(len(edges)), inner)
    k = np.arange(inner.sum()) - np.repeat(np.cumsum(inner) - inner, inner) + 1
    points = start[edge_of_point] + delta[edge_of_point] // steps[edge_of_point, None] * k[:, None]
    hit = np.nonzero(np.isin(_point_keys(points), unique_keys[np.unique(welded)]))[0]
    for h in hit[:1]:
        e = edge_of_point[h]
        raise AssertionError(f"T-junction: vertex {points[h].tolist()} lies inside the edge "
                             f"{start[e].tolist()} - {end[e].tolist()}")


def check_manifold(mesh):
    """Every edge (by vertex index) is in exactly two triangles, once in each direction."""
    triangles = _checked_indices(mesh, len(np.asarray(mesh.positions)))
    tails, heads = triangles.reshape(-1), triangles[:, [1, 2, 0]].reshape(-1)
    n = max(len(np.asarray(mesh.positions)), 1)
    directed, counts = np.unique(tails * n + heads, return_counts=True)
    for e in np.nonzero(counts != 1)[0][:1]:
        raise AssertionError(f"directed edge {directed[e] // n} -> {directed[e] % n} is used {counts[e]} times")
    missing = ~np.isin(heads * n + tails, directed)
    for e in np.nonzero(missing)[0][:1]:
        raise AssertionError(f"edge {tails[e]} -> {heads[e]} has no opposite edge {heads[e]} -> {tails[e]}")


# --------------------------------------------------------------------------- minimum

# Per lattice point of a plane, the 4-bit mask of which of its four unit faces
# belong to one region: bit 0 = face at (+u, +v), 1 = (-u, +v), 2 = (+u, -v), 3 = (-u, -v).
_QUADRANTS = ((0, 0, 1), (1, 0, 2), (0, 1, 4), (1, 1, 8))     # (du, dv) corner offset of the face, bit
_POPCOUNT = np.array([bin(m).count("1") for m in range(16)])
_DIAGONAL = np.isin(np.arange(16), [1 | 8, 2 | 4])
# The region's boundary turns at the point: 1 or 3 faces (corner), or 2 diagonal ones (pinch).
_TURNS = (_POPCOUNT == 1) | (_POPCOUNT == 3) | _DIAGONAL
# How often the region's boundary passes through the point: twice at a pinch.
_PASSES = np.where(_DIAGONAL, 2, np.where((_POPCOUNT > 0) & (_POPCOUNT < 4), 1, 0))


def _region_keys(faces, seams):
    """Per face the columns that, with 4-connectivity, define its region's patterns.

    Faces of one plane, orientation and material (and, with seams, one chunk
    square of the plane) that are 4-adjacent are in one region; the local
    counts below only ever compare a face with its 4 or 8 neighbours, for
    which "same key" and "same region" agree except for diagonal neighbours,
    whose contribution (a turning point passed twice) is the same either way.
    """
    key = faces[:, [AXIS, LAYER, SIGN, MATERIAL]]
    if seams is not None:
        key = np.column_stack([key, faces[:, U] // seams, faces[:, V] // seams])
    return key


def minimal_triangle_count(grid, seams=None):
    """DESIGN guarantee 3: the minimum triangle count, sum over regions of (B - 2 chi).

    Regions: maximal 4-connected sets of exposed unit faces with the same
    plane, orientation and material (with ``seams=s``, additionally cut along
    the in-plane lattice lines at multiples of s).  S: every lattice point
    where some region's boundary turns (corners, including pinch points, where
    a boundary passes twice).  B: passes of the region's boundary through
    points of S.  chi: Euler characteristic of the region's open interior,
    counted on its open cells: faces - interior edges + interior vertices.
    """
    if seams is not None and (int(seams) != seams or seams < 1):
        raise ValueError(f"seams must be a positive integer chunk size, got {seams!r}")
    faces = exposed_faces(grid)
    if len(faces) == 0:
        return 0
    _, region = np.unique(_region_keys(faces, seams), axis=0, return_inverse=True)
    region = region.reshape(-1)

    # Lattice-point records (region, u, v) with the mask of the region's faces around them.
    records = np.concatenate([np.column_stack([region, faces[:, U] + du, faces[:, V] + dv])
                              for du, dv, _ in _QUADRANTS])
    bits = np.concatenate([np.full(len(faces), bit) for _, _, bit in _QUADRANTS])
    records, masks = _sum_by_rows(records, bits)
    first_face = np.zeros(region.max() + 1, np.int64)
    first_face[region[::-1]] = np.arange(len(faces))[::-1]
    plane = faces[first_face[records[:, 0]]]
    points = _to_3d(plane[:, AXIS], plane[:, LAYER], records[:, 1], records[:, 2])

    turning = _point_keys(points[_TURNS[masks]])
    in_s = np.isin(_point_keys(points), turning)
    boundary_passes = int(_PASSES[masks][in_s].sum())

    cells = np.column_stack([region, faces[:, U], faces[:, V]])
    interior_edges = sum(int((_match_rows(cells, cells + step) >= 0).sum())
                         for step in ([0, 1, 0], [0, 0, 1]))
    interior_vertices = int((masks == 15).sum())
    chi = len(faces) - interior_edges + interior_vertices
    return boundary_passes - 2 * chi


# --------------------------------------------------------------------------- all together

def check_mesh(grid, mesh, minimal=True, seams=None, max_excess=0.0):
    """Guarantees 1-3 on one mesh of ``grid``; returns (triangles, minimum).

    With ``minimal``, the triangle count may exceed the formula's minimum by
    at most the fraction ``max_excess`` (0 for single-material data).  A valid
    mesh with fewer triangles than the formula refutes the formula itself and
    always fails.
    """
    check_exact_cover(grid, mesh)
    check_watertight(mesh)
    triangles = len(np.asarray(mesh.triangles))
    minimum = minimal_triangle_count(grid, seams)
    if triangles < minimum:
        raise AssertionError(f"valid mesh with {triangles} triangles, fewer than the formula's "
                             f"minimum {minimum}: the formula (or a check) is wrong")
    if minimal and triangles > minimum * (1 + max_excess):
        raise AssertionError(f"{triangles} triangles but the minimum is {minimum} "
                             f"(allowed excess {max_excess:.1%})")
    return triangles, minimum


# --------------------------------------------------------------------------- failure reports

def oriented_triangles(mesh):
    """Rows (9 corner coordinates, material, face) of the mesh's triangles, each
    rotated to start at its smallest corner, sorted: equal for equal triangle sets."""
    corners = _integer_positions(mesh)[_checked_indices(mesh, len(mesh.positions))]
    keys = _point_keys(corners.reshape(-1, 3)).reshape(-1, 3)
    order = (np.argmin(keys, axis=1)[:, None] + np.arange(3)) % 3
    rotated = np.take_along_axis(corners, order[:, :, None], axis=1).reshape(-1, 9)
    rows = np.column_stack([rotated, np.asarray(mesh.materials, np.int64), np.asarray(mesh.faces, np.int64)])
    return rows[np.lexsort(rows.T[::-1])]


def shrink_failing_grid(grid, fails, budget=300):
    """A grid with fewer solid voxels and materials on which ``fails(grid)`` still holds.

    Greedy delta debugging within ``budget`` calls of ``fails``; the shape is
    kept (chunk meshers need 32^3).
    """
    grid = as_grid(grid).copy()
    calls = 0
    block = max(1, int(np.count_nonzero(grid)) // 2)
    while block >= 1 and calls < budget:
        solid = np.argwhere(grid != 0)
        removed_any = False
        for start in range(0, len(solid), block):
            if calls >= budget:
                break
            trial = grid.copy()
            trial[tuple(solid[start:start + block].T)] = 0
            calls += 1
            if np.any(trial) and fails(trial):
                grid, removed_any = trial, True
        if not removed_any:
            block //= 2
    for material in np.unique(grid[grid != 0])[1:]:
        if calls >= budget:
            break
        trial = np.where(grid == material, np.unique(grid[grid != 0])[0], grid).astype(np.uint16)
        calls += 1
        if fails(trial):
            grid = trial
    return grid


def grid_literal(grid):
    """Python source that rebuilds ``grid``: zeros of its shape plus the bounding box of its solids."""
    grid = as_grid(grid)
    lines = [f"grid = np.zeros({grid.shape}, np.uint16)"]
    if np.any(grid):
        solid = np.argwhere(grid != 0)
        low, high = solid.min(axis=0), solid.max(axis=0) + 1
        box = grid[low[0]:high[0], low[1]:high[1], low[2]:high[2]]
        where = ", ".join(f"{a}:{b}" for a, b in zip(low, high))
        lines.append(f"grid[{where}] = np.array({box.tolist()}, np.uint16)")
    return "\n".join(lines)
