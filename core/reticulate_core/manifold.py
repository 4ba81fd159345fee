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

from .halfedges import match_half_edges, sheet_vertices
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
    mate, quads = match_half_edges(triangles, n_vertices)
    flipped = np.zeros(len(quads), dtype=bool)
    if len(quads):
        positions = mesh.positions.astype(np.int64)
        same_solid = np.all(_solid_side(positions, triangles, mesh.faces, quads[:, 0])
                            == _solid_side(positions, triangles, mesh.faces, quads[:, 2]), axis=1)
    for _ in range(_MAX_ROUNDS):
        if len(quads):
            _glue_quads(mate, quads, same_solid != flipped)
        corner_vertex, source = sheet_vertices(mate, triangles, n_vertices)
        overused = _overused(corner_vertex, quads)
        if not overused.any():
            break
        flipped |= overused
    else:
        raise ValueError(f"split_nonmanifold: {int(overused.sum())} edges still have four triangles "
                         f"after {_MAX_ROUNDS} rounds")
    return Mesh._wrap(mesh.positions[source], corner_vertex.reshape(-1, 3), mesh.materials, mesh.faces)


def _glue_quads(mate, quads, straight):
    """Glue each four-triangle edge's a -> b half-edges f1, f2 to its b -> a
    ones r1, r2: f1 with r1 and f2 with r2 where ``straight``, crosswise elsewhere."""
    f1, f2, r1, r2 = quads.T
    mate[f1], mate[f2] = np.where(straight, r1, r2), np.where(straight, r2, r1)
    mate[r1], mate[r2] = np.where(straight, f1, f2), np.where(straight, f2, f1)


def _overused(corner_vertex, quads):
    """Per four-triangle edge: whether its two a -> b half-edges still join the same two vertices."""
    f1, f2 = quads[:, 0], quads[:, 1]
    return ((corner_vertex[f1] == corner_vertex[f2])
            & (corner_vertex[_end_corner(f1)] == corner_vertex[_end_corner(f2)]))


def _end_corner(half_edges):
    """The corner at the end vertex of each half-edge (the next corner of its triangle)."""
    return half_edges - half_edges % 3 + (half_edges % 3 + 1) % 3


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
