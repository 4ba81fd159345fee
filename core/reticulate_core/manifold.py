"""Split the non-manifold contacts of a welded voxel mesh.

Voxels that touch only along an edge give mesh edges used by four triangles,
and voxels that touch only at a corner give vertices where two sheets of
surface meet.  ``split_nonmanifold`` gives every sheet through such a point its
own copy of the vertex, so that every edge is used by exactly two triangles.

How: every triangle corner (t, k) sits at vertex v = triangles[t, k].  Its
outgoing edge v -> w is matched with one edge w -> v of another triangle (the
*mate*); following mates rotates around v, and each cycle of that rotation is
one sheet through v.  At an edge with four triangles the mate is the triangle
on the side of the same solid voxel (solids touching along an edge are kept
apart).  Where that leaves an edge with four triangles after splitting (both
of its ends are single sheets because the two solids are joined elsewhere,
e.g. a diagonal pair of voxels between two full layers), the edge is paired
the other way round, across the same empty voxel.

Positions are unchanged; they repeat exactly at the split points, nowhere
else.  Triangles, materials and faces keep their order.
"""
import numpy as np

from .mesh import Mesh

_MAX_ROUNDS = 8


def split_nonmanifold(mesh):
    """Return a Mesh in which every edge is used by exactly two triangles.

    Raises ValueError when the mesh is not a closed voxel surface (an edge
    without a matching reverse edge, or with more than four triangles).
    """
    triangles = mesh.triangles
    if not len(triangles):
        return mesh
    n_vertices = len(mesh.positions)
    positions = mesh.positions.astype(np.int64)
    flipped = np.zeros(0, dtype=np.int64)
    for _ in range(_MAX_ROUNDS):
        corner_vertex = _split(positions, triangles, mesh.faces, n_vertices, flipped)
        bad = _overused_edges(corner_vertex, triangles, n_vertices)
        if not bad.size:
            break
        flipped = np.union1d(flipped, bad)
    else:
        raise ValueError(f"split_nonmanifold: {bad.size} edges still have four triangles "
                         f"after {_MAX_ROUNDS} rounds")
    new_triangles = corner_vertex.reshape(-1, 3)
    source = np.arange(max(n_vertices, int(corner_vertex.max()) + 1), dtype=np.int64)
    source[corner_vertex] = triangles.ravel()
    return Mesh(mesh.positions[source], new_triangles, mesh.materials, mesh.faces)


def _edge_keys(triangles, n_vertices):
    """Directed edge keys src * V + dst of half-edge 3t+k: triangles[t, k] -> triangles[t, k+1]."""
    src = triangles.ravel().astype(np.int64)
    dst = triangles[:, [1, 2, 0]].ravel().astype(np.int64)
    return src, dst


def _split(positions, triangles, faces, n_vertices, flipped):
    """New vertex index of every corner (3T,); the first sheet of a vertex keeps its index."""
    n_half = triangles.size
    src, dst = _edge_keys(triangles, n_vertices)
    key = src * n_vertices + dst
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    reverse = dst * n_vertices + src
    lo = np.searchsorted(sorted_key, reverse, side="left")
    hi = np.searchsorted(sorted_key, reverse, side="right")
    n_reverse = hi - lo
    n_same = np.searchsorted(sorted_key, key, side="right") - np.searchsorted(sorted_key, key, side="left")
    if np.any(n_reverse != n_same) or np.any((n_reverse != 1) & (n_reverse != 2)):
        raise ValueError("split_nonmanifold: the mesh is not a closed voxel surface "
                         "(an edge lacks its reverse edge or has more than four triangles)")
    mate = order[np.minimum(lo, n_half - 1)]
    double = np.flatnonzero(n_reverse == 2)
    if double.size:
        first, second = order[lo[double]], order[lo[double] + 1]
        side = _solid_side(positions, triangles, faces, src, dst)
        same_solid = np.all(side[double] == side[first], axis=1)
        undirected = np.minimum(src, dst) * n_vertices + np.maximum(src, dst)
        across_empty = np.isin(undirected[double], flipped)
        mate[double] = np.where(same_solid != across_empty, first, second)
    # rotate around the vertex: corner 3t+k -> the mate's corner at the same vertex
    mate_triangle, mate_k = np.divmod(mate, 3)
    successor = 3 * mate_triangle + (mate_k + 1) % 3
    label = _cycle_minimum(successor, triangles, n_vertices)
    vertex = triangles.ravel().astype(np.int64)
    sheets, sheet_of_corner = np.unique(vertex * n_half + label, return_inverse=True)
    sheet_vertex = sheets // n_half
    first_sheet = np.ones(len(sheets), dtype=bool)
    first_sheet[1:] = sheet_vertex[1:] != sheet_vertex[:-1]
    index = np.where(first_sheet, sheet_vertex, 0)
    extra = np.flatnonzero(~first_sheet)
    index[extra] = n_vertices + np.arange(extra.size)
    return index[sheet_of_corner].astype(np.int32)


def _solid_side(positions, triangles, faces, src, dst):
    """Per half-edge: the offset (-1/0/+1 per axis) from the edge to the solid voxel behind its triangle.

    Only meaningful for axis-aligned edges: along the face normal the solid is
    behind the face, along the remaining axis it is where the triangle lies.
    """
    direction = positions[dst] - positions[src]
    edge_axis = np.argmax(np.abs(direction), axis=1)
    face = np.repeat(faces.astype(np.int64), 3)
    normal_axis = face // 2
    normal_sign = np.where(face % 2 == 1, 1, -1)
    in_plane = 3 - edge_axis - normal_axis
    third = triangles[:, [2, 0, 1]].ravel()
    rows = np.arange(len(src))
    spread = np.sign(positions[third, in_plane % 3] - positions[src, in_plane % 3])
    side = np.zeros((len(src), 3), dtype=np.int64)
    side[rows, normal_axis] = -normal_sign
    valid = (in_plane >= 0) & (in_plane <= 2) & (in_plane != normal_axis)
    side[rows[valid], in_plane[valid]] = spread[valid]
    return side


def _cycle_minimum(successor, triangles, n_vertices):
    """For every corner, the smallest corner index on its rotation cycle (pointer doubling)."""
    degree = np.bincount(triangles.ravel(), minlength=n_vertices)
    rounds = int(np.ceil(np.log2(max(int(degree.max()), 2))))
    label = np.arange(len(successor), dtype=np.int64)
    jump = successor.astype(np.int64)
    for _ in range(rounds + 1):
        label = np.minimum(label, label[jump])
        jump = jump[jump]
    return label


def _overused_edges(corner_vertex, triangles, n_vertices):
    """Undirected original-vertex keys of edges that still have more than two triangles."""
    t = corner_vertex.reshape(-1, 3).astype(np.int64)
    a, b = t.ravel(), t[:, [1, 2, 0]].ravel()
    n_new = int(corner_vertex.max()) + 1
    keys, counts = np.unique(np.minimum(a, b) * n_new + np.maximum(a, b), return_counts=True)
    over = keys[counts > 2]
    if not over.size:
        return over
    # translate back to original vertex ids
    src, dst = _edge_keys(triangles, n_vertices)
    new_keys = np.minimum(a, b) * n_new + np.maximum(a, b)
    hit = np.isin(new_keys, over)
    return np.unique(np.minimum(src[hit], dst[hit]) * n_vertices + np.maximum(src[hit], dst[hit]))
