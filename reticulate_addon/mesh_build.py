"""Core meshes (numpy arrays) -> ``bpy.types.Mesh`` datablocks, fast.

Uses the attribute ``foreach_set`` path (BLENDER_NOTES.md §5): positions,
corner vertices and loop starts are written straight into the attribute
arrays, edges are derived by ``update()``.  Every polygon is a triangle of the
core mesh in the same order, so polygon i carries triangle i's material:
``material_index`` points at the slot of its id and the INT face attribute
``reticulate_material`` keeps the raw 16-bit id.  Faces are flat shaded.
"""
from typing import NamedTuple

import bpy
import numpy as np

from . import materials as mats

MATERIAL_ATTRIBUTE = "reticulate_material"
CHUNK = 32


class Piece(NamedTuple):
    """Welded triangle arrays of one output mesh (positions in its object's space)."""
    positions: np.ndarray   # (V, 3) float32
    triangles: np.ndarray   # (T, 3) int32, CCW from outside
    materials: np.ndarray   # (T,) uint16 material id per triangle

    @classmethod
    def from_core(cls, mesh, scale=1.0, offset=(0.0, 0.0, 0.0)):
        """Positions ``offset + scale * p`` (``scale`` a number or one per axis)."""
        positions = np.asarray(mesh.positions, dtype=np.float32)
        if np.any(np.asarray(scale) != 1.0) or np.any(np.asarray(offset) != 0.0):
            positions = positions * np.asarray(scale, dtype=np.float32) + np.asarray(offset, dtype=np.float32)
        return cls(np.ascontiguousarray(positions, dtype=np.float32),
                   np.ascontiguousarray(mesh.triangles, dtype=np.int32),
                   np.ascontiguousarray(mesh.materials, dtype=np.uint16))

    @property
    def n_triangles(self):
        return len(self.triangles)


def distinct_ids(*pieces):
    """Sorted distinct material ids over all pieces."""
    if not pieces:
        return np.zeros(0, dtype=np.uint16)
    return np.unique(np.concatenate([p.materials for p in pieces]))


def split_by_chunk(mesh, chunk=CHUNK):
    """Split a core mesh (voxel-corner coordinates) into its 32^3 chunks.

    The core cuts regions at chunk seams, so every triangle lies inside one
    chunk box; a triangle belongs to the chunk of the solid voxel behind it
    (half a voxel from its centroid against its normal, read from
    ``mesh.faces``), so faces on a seam plane go with their voxel.  Returns
    ``[(chunk_coords, Piece)]`` in chunk order, each piece in coordinates
    relative to its chunk's origin corner, vertices re-indexed.
    """
    if mesh.n_triangles == 0:
        return []
    inside = mesh.positions[mesh.triangles].mean(axis=1)            # (T, 3) centroids
    axis = mesh.faces // 2
    inside[np.arange(len(axis)), axis] -= np.where(mesh.faces & 1, 0.5, -0.5)
    cells = np.floor(inside / chunk).astype(np.int64)
    keys, inverse = np.unique(cells, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(keys) + 1))
    pieces = []
    for k, key in enumerate(keys):
        tris = order[bounds[k]:bounds[k + 1]]
        sub = mesh.triangles[tris]
        used, local = np.unique(sub.reshape(-1), return_inverse=True)
        origin = key.astype(np.float32) * chunk
        pieces.append((tuple(int(c) for c in key), Piece(
            np.ascontiguousarray(mesh.positions[used] - origin, dtype=np.float32),
            local.reshape(-1, 3).astype(np.int32),
            np.ascontiguousarray(mesh.materials[tris]))))
    return pieces


def transform_points(points, matrix):
    """Apply a 4x4 affine matrix to (N, 3) points."""
    m = np.asarray(matrix, dtype=np.float64)
    return (np.asarray(points, dtype=np.float64) @ m[:3, :3].T + m[:3, 3]).astype(np.float32)


def join(pieces_with_matrices):
    """One piece from ``[(Piece, 4x4 matrix)]``: each piece transformed, then concatenated.

    Pieces stay separate shells (no welding across pieces), so each keeps its
    own watertightness.  A matrix with negative determinant flips the winding
    back to counter-clockwise-from-outside.
    """
    positions, triangles, materials = [], [], []
    base = 0
    for piece, matrix in pieces_with_matrices:
        tris = piece.triangles
        if np.linalg.det(np.asarray(matrix, dtype=np.float64)[:3, :3]) < 0:
            tris = tris[:, ::-1]
        positions.append(transform_points(piece.positions, matrix))
        triangles.append(tris + base)
        materials.append(piece.materials)
        base += len(piece.positions)
    if not positions:
        return Piece(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int32), np.zeros(0, np.uint16))
    return Piece(np.concatenate(positions), np.concatenate(triangles).astype(np.int32),
                 np.concatenate(materials))


def build_mesh(name, piece, slot_ids, slot_materials, *, colors=None):
    """A new mesh datablock for ``piece``.

    ``slot_ids``: sorted distinct ids, one material slot each (``slot_materials``
    in the same order); every id in ``piece.materials`` must be among them.
    ``colors``: ``(len(slot_ids), 4)`` linear RGBA to write as the per-corner
    colour attribute ``reticulate_color`` (the colour-attribute material mode,
    where ``slot_materials`` is one shared material and every polygon uses slot 0).
    """
    me = bpy.data.meshes.new(name)
    try:
        _fill(me, piece, np.asarray(slot_ids), slot_materials, colors)
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def _fill(me, piece, slot_ids, slot_materials, colors):
    n_tris = piece.n_triangles
    if n_tris and (piece.triangles.min() < 0 or piece.triangles.max() >= len(piece.positions)):
        # Blender takes any corner vertex index and crashes on the first redraw or bmesh
        raise ValueError(f"mesh triangles index vertices {piece.triangles.min()}..{piece.triangles.max()}, "
                         f"outside its {len(piece.positions)} positions")
    me.vertices.add(len(piece.positions))
    me.attributes["position"].data.foreach_set("vector", piece.positions.reshape(-1))
    me.loops.add(3 * n_tris)
    me.attributes[".corner_vert"].data.foreach_set("value", piece.triangles.reshape(-1))
    me.polygons.add(n_tris)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * n_tris, 3, dtype=np.int32))
    me.update()

    slot = np.searchsorted(slot_ids, piece.materials).astype(np.int32)
    if n_tris and (slot.max() >= len(slot_ids) or np.any(slot_ids[slot] != piece.materials)):
        raise ValueError("mesh has material ids without a material slot")
    for material in slot_materials:
        me.materials.append(material)
    if colors is None:
        _face_int(me, "material_index", slot)
    else:
        corner_colors = np.repeat(np.asarray(colors, dtype=np.float32)[slot], 3, axis=0)
        attribute = me.color_attributes.new(mats.COLOR_ATTRIBUTE, 'FLOAT_COLOR', 'CORNER')
        attribute.data.foreach_set("color", corner_colors.reshape(-1))
    _face_int(me, MATERIAL_ATTRIBUTE, piece.materials.astype(np.int32))
    sharp = me.attributes.get("sharp_face") or me.attributes.new("sharp_face", 'BOOLEAN', 'FACE')
    sharp.data.foreach_set("value", np.ones(n_tris, dtype=bool))


def _face_int(me, name, values):
    attribute = me.attributes.get(name) or me.attributes.new(name, 'INT', 'FACE')
    attribute.data.foreach_set("value", values)
