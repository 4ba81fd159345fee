"""The mesh the meshers return: plain numpy arrays, no Blender types.

Invariants (DESIGN.md, "Core contract"):
- ``positions``: (V, 3) float32, integer-valued voxel-corner coordinates,
  no two rows equal;
- ``triangles``: (T, 3) int32 indices into positions, counter-clockwise seen
  from outside (``cross(b - a, c - a)`` points away from the solid voxel);
- ``materials``: (T,) uint16 material id of the solid voxel behind each
  triangle;
- ``faces``: (T,) uint8, ``2 * axis + (1 if the normal points to +axis)``.
"""
import numpy as np


class Mesh:
    __slots__ = ("positions", "triangles", "materials", "faces")

    def __init__(self, positions, triangles, materials, faces):
        """The arrays in the dtypes above (converted copies where they
        differ); a ValueError or TypeError unless they hold a mesh: (V, 3)
        finite positions, (T, 3) integer triangles indexing them, T
        materials in 0..65535 and T faces in 0..5."""
        with np.errstate(over="ignore", invalid="ignore"):     # an overflow is caught just below
            self.positions = _rows(positions, np.float32, "positions")
        if not np.isfinite(self.positions).all():
            raise ValueError("Mesh: positions must be finite numbers within float32's range")
        n_vertices = len(self.positions)
        self.triangles = _rows(_ints(triangles, 0, n_vertices - 1, "triangles",
                                     f"vertex indices 0..{n_vertices - 1}"), np.int32, "triangles")
        self.materials = _ints(materials, 0, 65535, "materials", "material ids 0..65535").astype(np.uint16)
        self.faces = _ints(faces, 0, 5, "faces", "face codes 0..5").astype(np.uint8)
        n = len(self.triangles)
        if self.materials.shape != (n,) or self.faces.shape != (n,):
            raise ValueError(f"Mesh: {n} triangles but materials of shape {self.materials.shape} "
                             f"and faces of shape {self.faces.shape}")

    @classmethod
    def _wrap(cls, positions, triangles, materials, faces):
        """A Mesh of arrays that already have its dtypes and shapes (the
        meshers' own output): no copy, no check."""
        mesh = cls.__new__(cls)
        mesh.positions = positions
        mesh.triangles = triangles
        mesh.materials = materials
        mesh.faces = faces
        return mesh

    @classmethod
    def empty(cls):
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0))

    @property
    def n_triangles(self):
        return len(self.triangles)

    @property
    def n_vertices(self):
        return len(self.positions)

    def __repr__(self):
        return (f"Mesh({self.n_triangles} triangles, {self.n_vertices} vertices, "
                f"{len(np.unique(self.materials))} materials)")


def _rows(array, dtype, what):
    """``array`` as a C-contiguous (n, 3) array of ``dtype``; an empty one
    of any shape is (0, 3)."""
    array = np.ascontiguousarray(array, dtype=dtype)
    if array.size == 0:
        return array.reshape(0, 3)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"Mesh: {what} must have shape (n, 3), got {array.shape}")
    return array


def _ints(values, low, high, what, meaning):
    """``values`` as an integer array (an empty one may have any dtype),
    every value in low..high, before any cast could wrap it."""
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(array.shape, dtype=np.int64)
    if array.dtype.kind not in "iu" and array.dtype != np.bool_:
        raise TypeError(f"Mesh: {what} must be integers, got dtype {array.dtype}")
    if array.min() < low or array.max() > high:
        raise ValueError(f"Mesh: {what} hold values in {array.min()}..{array.max()}, "
                         f"outside the {meaning}")
    return array
