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
        self.positions = np.ascontiguousarray(positions, dtype=np.float32).reshape(-1, 3)
        self.triangles = np.ascontiguousarray(triangles, dtype=np.int32).reshape(-1, 3)
        self.materials = np.ascontiguousarray(materials, dtype=np.uint16).reshape(-1)
        self.faces = np.ascontiguousarray(faces, dtype=np.uint8).reshape(-1)
        n = len(self.triangles)
        if len(self.materials) != n or len(self.faces) != n:
            raise ValueError(
                f"Mesh: {n} triangles but {len(self.materials)} materials and {len(self.faces)} faces")

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
