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
    mate = _mates(positions, triangles, faces, n_vertices, flipped)
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


def _mates(positions, triangles, faces, n_vertices, flipped):
    """For every half-edge a -> b the half-edge b -> a it is glued to (an involution)."""
    src, dst = _edge_keys(triangles, n_vertices)
    undirected = np.minimum(src, dst) * n_vertices + np.maximum(src, dst)
    backward = src > dst
    # group the half-edges of each edge, the forward ones (src < dst) first
    order = np.argsort(undirected * 2 + backward, kind="stable")
    edges = undirected[order]
    starts = np.flatnonzero(np.concatenate(([True], edges[1:] != edges[:-1])))
    sizes = np.diff(np.append(starts, len(order)))
    n_backward = np.add.reduceat(backward[order].astype(np.int64), starts)
    if np.any((sizes != 2) & (sizes != 4)) or np.any(2 * n_backward != sizes):
        raise ValueError("split_nonmanifold: the mesh is not a closed voxel surface "
                         "(an edge lacks its reverse edge or has more than four triangles)")
    mate = np.empty(len(order), dtype=np.int64)
    pair = starts[sizes == 2]
    forward, reverse = order[pair], order[pair + 1]
    mate[forward], mate[reverse] = reverse, forward
    quad = starts[sizes == 4]
    if quad.size:
        f1, f2, r1, r2 = (order[quad + k] for k in range(4))
        same_solid = np.all(_solid_side(positions, triangles, faces, f1)
                            == _solid_side(positions, triangles, faces, r1), axis=1)
        straight = same_solid != np.isin(edges[quad], flipped)
        mate[f1], mate[f2] = np.where(straight, r1, r2), np.where(straight, r2, r1)
        mate[r1], mate[r2] = np.where(straight, f1, f2), np.where(straight, f2, f1)
    return mate


def _solid_side(positions, triangles, faces, half_edges):
    """Per half-edge: the offset (-1/0/+1 per axis) from its edge to the solid voxel behind its triangle.

    For the axis-aligned edges where four triangles meet: along the face
    normal the solid is behind the face, along the remaining axis it is on the
    side where the triangle lies.
    """
    t, k = np.divmod(half_edges, 3)
    src, dst, third = triangles[t, k], triangles[t, (k + 1) % 3], triangles[t, (k + 2) % 3]
    direction = positions[dst] - positions[src]
    edge_axis = np.argmax(np.abs(direction), axis=1)
    face = faces[t].astype(np.int64)
    normal_axis = face // 2
    in_plane = 3 - edge_axis - normal_axis
    if np.any(np.count_nonzero(direction, axis=1) != 1) or np.any(edge_axis == normal_axis):
        raise ValueError("split_nonmanifold: four triangles meet at an edge that is not a voxel edge")
    rows = np.arange(len(t))
    side = np.zeros((len(t), 3), dtype=np.int64)
    side[rows, normal_axis] = np.where(face % 2 == 1, -1, 1)
    side[rows, in_plane] = np.sign(positions[third, in_plane] - positions[src, in_plane])
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
