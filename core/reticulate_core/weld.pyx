# cython: language_level=3
"""Seam welding of chunk meshes, without the GIL (see grid.mesh_grid).

A chunk mesh's vertices are chunk-local corners 0..32 and already unique
within the chunk; a vertex is on the seam when one of its coordinates is 0 or
32, and only seam vertices can coincide with another chunk's.  Each gets a
key that numbers its grid corner within the volume's box (``seam_key``);
``SeamWelder`` merges the vertices of equal key.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free

import numpy as np

from .mesh import Mesh

cdef enum:
    CHUNK = 32


cdef int64_t seam_key(const float* p, int64_t kx, int64_t ky, int64_t kz,
                      int64_t dy, int64_t dz) noexcept nogil:
    if not (p[0] == 0 or p[0] == CHUNK or p[1] == 0 or p[1] == CHUNK
            or p[2] == 0 or p[2] == CHUNK):
        return -1
    return ((<int64_t>p[0] + kx) * dy + (<int64_t>p[1] + ky)) * dz + (<int64_t>p[2] + kz)


cdef inline uint64_t _slot(int64_t key, int bits) noexcept nogil:
    return ((<uint64_t>key) * 0x9E3779B97F4A7C15ULL) >> (64 - bits)


cdef class SeamWelder:
    """Joins chunk meshes, added in chunk order, into one welded mesh.

    Vertices keep their order of first appearance, so the result depends only
    on what was added and in which order.  Seam vertices of equal key become
    one (an open-addressing table from key to vertex index); the others are
    kept as they are.
    """
    cdef int64_t* table_keys      # -1 = free slot
    cdef int32_t* table_index
    cdef int bits
    cdef int64_t used
    cdef int64_t n_vertices
    cdef list parts

    def __cinit__(self):
        self.bits = 0
        self.used = 0
        self.n_vertices = 0
        self.parts = []

    def __dealloc__(self):
        free(self.table_keys)
        free(self.table_index)

    cdef _reserve(self, int64_t more):
        """Room for ``more`` new keys at a load factor of at most 1/2."""
        cdef int bits = max(self.bits, 10)
        while (<int64_t>1 << bits) < 2 * (self.used + more):
            bits += 1
        if bits == self.bits:
            return
        cdef int64_t size = <int64_t>1 << bits, old_size = (<int64_t>1 << self.bits) if self.bits else 0
        cdef int64_t* keys = <int64_t*>calloc(size, sizeof(int64_t))
        cdef int32_t* index = <int32_t*>calloc(size, sizeof(int32_t))
        cdef int64_t i
        cdef uint64_t s
        if keys == NULL or index == NULL:
            free(keys)
            free(index)
            raise MemoryError("cannot grow the seam table")
        for i in range(size):
            keys[i] = -1
        for i in range(old_size):
            if self.table_keys[i] >= 0:
                s = _slot(self.table_keys[i], bits)
                while keys[s] >= 0:
                    s = (s + 1) & (size - 1)
                keys[s] = self.table_keys[i]
                index[s] = self.table_index[i]
        free(self.table_keys)
        free(self.table_index)
        self.table_keys = keys
        self.table_index = index
        self.bits = bits

    def add(self, positions, keys, triangles, materials, faces):
        """Add one mesh: grid positions (n, 3) float32, seam keys (n,) int64
        (-1 = not on a seam), triangles (t, 3) int32 into these positions
        (renumbered in place), materials, faces."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        cdef const int64_t[::1] key = keys
        cdef int32_t[:, ::1] tri = triangles
        cdef Py_ssize_t n = key.shape[0], i, t
        if len(positions) != n:
            raise ValueError(f"{len(positions)} positions but {n} seam keys")
        if tri.shape[1] != 3:
            raise ValueError(f"triangles must have shape (t, 3), got ({tri.shape[0]}, {tri.shape[1]})")
        if self.n_vertices + n >= 2**31:
            raise ValueError("more than 2**31 vertices: too many for int32 triangle indices")
        self._reserve(np.count_nonzero(keys >= 0))      # room for the seam keys only
        remap_array = np.empty(n, dtype=np.int32)
        new_array = np.empty(n, dtype=np.uint8)
        cdef int32_t[::1] remap = remap_array
        cdef uint8_t[::1] new = new_array
        cdef int64_t nv = self.n_vertices, mask = (<int64_t>1 << self.bits) - 1
        cdef uint64_t s
        cdef bint bad = False
        with nogil:
            for t in range(tri.shape[0]):
                for i in range(3):
                    if tri[t, i] < 0 or tri[t, i] >= n:
                        bad = True
        if bad:
            raise ValueError("a triangle indexes outside the mesh's positions")
        with nogil:
            for i in range(n):
                new[i] = 1
                if key[i] >= 0:
                    s = _slot(key[i], self.bits)
                    while self.table_keys[s] >= 0 and self.table_keys[s] != key[i]:
                        s = (s + 1) & mask
                    if self.table_keys[s] == key[i]:
                        remap[i] = self.table_index[s]
                        new[i] = 0
                        continue
                    self.table_keys[s] = key[i]
                    self.table_index[s] = <int32_t>nv
                    self.used += 1
                remap[i] = <int32_t>nv
                nv += 1
            for t in range(tri.shape[0]):
                for i in range(3):
                    tri[t, i] = remap[tri[t, i]]
        self.n_vertices = nv
        self.parts.append([np.compress(new_array.view(bool), positions, axis=0), triangles,
                           materials, faces])

    def mesh(self):
        """The welded Mesh of everything added; the welder is empty afterwards.

        Each kind of array is dropped from the parts as soon as it is joined,
        so the parts and the result are never held in full at once.
        """
        parts, self.parts = self.parts, []
        if not parts:
            return Mesh.empty()
        joined = []
        for k in (1, 2, 3, 0):      # triangles first: the largest arrays
            joined.append(np.concatenate([part[k] for part in parts]))
            for part in parts:
                part[k] = None
        triangles, materials, faces, positions = joined
        return Mesh._wrap(positions, triangles, materials, faces)
