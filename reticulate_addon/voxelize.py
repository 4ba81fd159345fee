"""Solid voxelization of a triangle mesh by ray parity along x, y and z (numpy only).

Voxel ``(i, j, k)`` of the result spans ``origin + voxel_size * [i, i+1] x
[j, j+1] x [k, k+1]``.  Along one axis a voxel is inside when the ray from
its centre towards -axis crosses the surface an odd number of times; it is
solid when at least two of the three axes say inside (for a closed mesh all
three agree; the vote removes the streaks a hole in an open mesh leaves
along one axis).  Each column's ray is tested against every triangle whose
projection covers the column centre, with a top-left rule on the projected
edges so that a ray through a shared edge or vertex counts exactly once (or,
at a silhouette, zero or two times).  A solid voxel takes the material of
the nearest surface crossing along its six axis rays, so each face of a
mesh with several materials passes its material to the voxels behind it.
Of crossings at one place (two solids touching face to face) the one whose
face points along the ray wins, where the ray leaves the voxel's solid;
ties of distance go to -z, +z, -x, +x, -y, +y in that order.
"""
import numpy as np

MAX_VOXELS = 1 << 27
"""Largest grid the voxelizer allocates (128 M voxels)."""
PAIR_BATCH = 1 << 22
"""Triangle/column pairs tested per vectorised batch (bounds temporary memory)."""


def grid_shape(lower, upper, voxel_size):
    """Voxels per axis covering the box [lower, upper] (at least one per axis)."""
    extent = np.asarray(upper, dtype=np.float64) - np.asarray(lower, dtype=np.float64)
    return tuple(int(max(1, np.ceil(e / voxel_size - 1e-9))) for e in extent)


def voxelize(vertices, triangles, voxel_size, triangle_materials=None):
    """(grid, origin): uint16 ``[x, y, z]`` grid of ids (0 empty) and its lower corner.

    ``vertices`` (V, 3) float, ``triangles`` (T, 3) int, ``triangle_materials``
    (T,) ids >= 1 (default: all 1).  ValueError on empty input, a non-positive
    or non-finite voxel size, or a grid above ``MAX_VOXELS``.
    """
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if not np.isfinite(voxel_size) or voxel_size <= 0:
        raise ValueError(f"voxel size must be a positive number, got {voxel_size}")
    if len(triangles) == 0:
        raise ValueError("the mesh has no faces to voxelize")
    if not np.all(np.isfinite(vertices)):
        raise ValueError("the mesh has non-finite vertex coordinates")
    if triangle_materials is None:
        triangle_materials = np.ones(len(triangles), dtype=np.uint16)
    triangle_materials = np.asarray(triangle_materials, dtype=np.uint16)
    lower, upper = vertices.min(axis=0), vertices.max(axis=0)
    shape = grid_shape(lower, upper, voxel_size)
    total = shape[0] * shape[1] * shape[2]
    if total > MAX_VOXELS:
        raise ValueError(f"voxel size {voxel_size:g} gives a {shape[0]}x{shape[1]}x{shape[2]} grid "
                         f"({total} voxels, limit {MAX_VOXELS}); choose a larger voxel size")
    # voxel units, origin at the grid's lower corner
    local = (vertices - lower) / voxel_size
    corners = local[triangles]                                   # (T, 3, 3)
    several = np.any(triangle_materials != triangle_materials[0])
    votes = np.zeros(shape, dtype=np.uint8)
    if several:
        nearest = np.full(shape, np.inf, dtype=np.float32)      # distance to the nearest crossing so far
        material = np.zeros(shape, dtype=np.uint16)
    for axis in (2, 0, 1):
        order = [(axis + 1) % 3, (axis + 2) % 3, axis]            # this axis plays z; a rotation keeps facings
        back = np.argsort(order)
        hits = _crossings(corners[:, :, order], tuple(shape[a] for a in order))
        votes += np.transpose(_parity(tuple(shape[a] for a in order), hits), back)
        if several:
            for distance, near_material in _nearest_crossings(tuple(shape[a] for a in order), hits,
                                                              triangle_materials):
                distance, near_material = np.transpose(distance, back), np.transpose(near_material, back)
                closer = distance < nearest
                nearest[closer] = distance[closer]
                material[closer] = near_material[closer]
    solid = votes >= 2
    if not several:
        return np.where(solid, triangle_materials[0], 0).astype(np.uint16), lower
    common = np.bincount(triangle_materials).argmax()
    grid = np.where(solid, np.where(material > 0, material, common), 0).astype(np.uint16)
    return grid, lower


def _crossings(corners, shape):
    """Every (column, z, triangle, faces +z) where a column ray crosses a triangle."""
    nx, ny, _ = shape
    xy = corners[:, :, :2]
    area = ((xy[:, 1, 0] - xy[:, 0, 0]) * (xy[:, 2, 1] - xy[:, 0, 1])
            - (xy[:, 2, 0] - xy[:, 0, 0]) * (xy[:, 1, 1] - xy[:, 0, 1]))
    keep = area != 0                                             # vertical triangles are never crossed
    tri_index = np.nonzero(keep)[0]
    corners = corners[keep]
    # counter-clockwise in projection: swap two vertices of clockwise triangles
    clockwise = area[keep] < 0
    corners[clockwise] = corners[clockwise][:, [0, 2, 1]]
    lo = np.clip(np.ceil(corners[:, :, :2].min(axis=1) - 0.5), 0, [nx, ny]).astype(np.int64)
    hi = np.clip(np.floor(corners[:, :, :2].max(axis=1) - 0.5), -1, [nx - 1, ny - 1]).astype(np.int64)
    counts = np.maximum(hi - lo + 1, 0)
    per_tri = counts[:, 0] * counts[:, 1]
    facing_up = ~clockwise
    cols, zs, tris, ups = [], [], [], []
    start = 0
    cumulative = np.cumsum(per_tri)
    while start < len(per_tri):
        base = cumulative[start - 1] if start else 0
        stop = int(np.searchsorted(cumulative, base + PAIR_BATCH, side="right"))
        stop = max(stop, start + 1)
        c, z, t = _batch_crossings(corners[start:stop], lo[start:stop], counts[start:stop],
                                   per_tri[start:stop])
        cols.append(c[:, 0] * ny + c[:, 1])
        zs.append(z)
        tris.append(tri_index[start:stop][t])
        ups.append(facing_up[start:stop][t])
        start = stop
    if not cols:
        return np.zeros(0, np.int64), np.zeros(0, np.float64), np.zeros(0, np.int64), np.zeros(0, bool)
    return np.concatenate(cols), np.concatenate(zs), np.concatenate(tris), np.concatenate(ups)


def _batch_crossings(corners, lo, counts, per_tri):
    owner = np.repeat(np.arange(len(per_tri)), per_tri)
    first = np.cumsum(per_tri) - per_tri
    rank = np.arange(len(owner)) - first[owner]
    width = counts[owner, 1]
    column = np.stack([lo[owner, 0] + rank // np.maximum(width, 1), lo[owner, 1] + rank % np.maximum(width, 1)],
                      axis=1)
    p = column + 0.5
    a, b, c = corners[owner, 0], corners[owner, 1], corners[owner, 2]
    inside = np.ones(len(owner), dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):
        d = v[:, :2] - u[:, :2]
        edge = d[:, 0] * (p[:, 1] - u[:, 1]) - d[:, 1] * (p[:, 0] - u[:, 0])
        top_left = (d[:, 1] < 0) | ((d[:, 1] == 0) & (d[:, 0] < 0))
        inside &= (edge > 0) | ((edge == 0) & top_left)
    a, b, c, p, owner, column = a[inside], b[inside], c[inside], p[inside], owner[inside], column[inside]
    # z of the triangle's plane at p (barycentric interpolation)
    denom = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
    wb = ((p[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (p[:, 1] - a[:, 1])) / denom
    wc = ((b[:, 0] - a[:, 0]) * (p[:, 1] - a[:, 1]) - (p[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])) / denom
    z = a[:, 2] + wb * (b[:, 2] - a[:, 2]) + wc * (c[:, 2] - a[:, 2])
    return column, z, owner


def _parity(shape, hits):
    """Inside along z (X, Y, Z) bool: an odd number of crossings ``hits`` below the voxel centre."""
    nx, ny, nz = shape
    hits_col, hits_z = hits[0], hits[1]
    # a crossing with z below the centre of voxel k (k + 1/2) is counted from voxel k on
    first_voxel = np.clip(np.ceil(hits_z - 0.5), 0, nz).astype(np.int64)
    crossings = np.zeros((nx * ny, nz + 1), dtype=np.int32)
    np.add.at(crossings, (hits_col, first_voxel), 1)
    return (np.cumsum(crossings, axis=1)[:, :nz] & 1).astype(bool).reshape(nx, ny, nz)


def _nearest_crossings(shape, hits, triangle_materials):
    """[(distance, material)] (X, Y, Z each) of the nearest crossing below
    every voxel centre, then of the nearest above; of crossings at the same
    height the one whose face points away from the centre, down below and
    up above.  Distances in voxels, inf (material 0) where there is none."""
    nx, ny, nz = shape
    hits_col, hits_z, hits_tri, hits_up = hits
    material = triangle_materials[hits_tri]
    centre = np.arange(nz, dtype=np.float32) + 0.5
    nearest = []
    for up in (False, True):
        # cells 0..nz: going down, cell m holds the crossings that voxels m.. have
        # below their centres (z in (m - 1/2, m + 1/2]); going up, cell m the ones
        # that voxels ..m - 1 have above them (z in [m - 1/2, m + 1/2))
        cell = np.clip(np.ceil(hits_z - 0.5) if not up else np.floor(hits_z - 0.5) + 1, 0, nz).astype(np.int64)
        # sorted so that each cell's crossing nearest to the voxels that see it comes
        # last (the highest going down, the lowest going up, facing away on a tie)
        order = np.lexsort((hits_up == up, -hits_z if up else hits_z, cell, hits_col))
        col, cell = hits_col[order], cell[order]
        last = np.ones(len(col), dtype=bool)
        last[:-1] = (col[1:] != col[:-1]) | (cell[1:] != cell[:-1])
        n = int(np.count_nonzero(last))
        # numbered in (column, cell) order, a voxel's nearest is the highest numbered
        # of cells 0..k going down, the lowest of cells k + 1..nz going up; none (-1
        # or n) picks the sentinel entry n
        number = np.full((nx * ny, nz + 1), n if up else -1, dtype=np.int32)
        number[col[last], cell[last]] = np.arange(n, dtype=np.int32)
        if not up:
            seen = np.maximum.accumulate(number, axis=1)[:, :nz]
        else:
            seen = np.minimum.accumulate(number[:, ::-1], axis=1)[:, ::-1][:, 1:]
        near_z = np.append(hits_z[order][last], np.inf).astype(np.float32)
        near_material = np.append(material[order][last], 0).astype(np.uint16)
        nearest.append((np.abs(near_z[seen] - centre).reshape(nx, ny, nz), near_material[seen].reshape(nx, ny, nz)))
    return nearest
