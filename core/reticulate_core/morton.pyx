# cython: language_level=3
"""Morton codes of octree (3D) and quadtree (2D) cells of a 32^3 chunk.

A code at depth d (0..5) holds the interleaved coordinates of one cell at
resolution 2^d: zyxzyx... for :class:`Morton3`, vuvu... for :class:`Morton2`
(bit layout in ``morton.pxd``).  Depth 0 is the whole chunk (only code 0),
depth 5 one voxel (texel).  A cell covers the edge ``size = 2^(5-depth)`` of
voxels starting at ``voxel_origin()``; its voxel range in z-order starts at
``code << bits*(5-depth)``.  Codes order by that start, then by depth, so a
cell sorts before its descendants and sorting follows the z-order curve.
"""
from libc.stdint cimport uint32_t

from reticulate_core.morton cimport (
    MAX_DEPTH, compact2, compact3, morton2_encode, morton3_encode)

import operator

import numpy as np


cdef int _check_depth(object depth) except -1:
    cdef Py_ssize_t d = operator.index(depth)
    if not 0 <= d <= MAX_DEPTH:
        raise ValueError(f"depth must be in 0..{MAX_DEPTH}, got {d}")
    return <int>d


cdef uint32_t _check_code(object code, int depth, int bits) except? 0xFFFFFFFF:
    c = operator.index(code)
    if c < 0:
        raise ValueError(f"Morton code must not be negative, got {c}")
    if c >> (bits * depth):
        raise ValueError(
            f"Morton code {c:#x} has more than {bits * depth} bits, "
            f"the size of a code at depth {depth}")
    return <uint32_t>c


cdef uint32_t _check_coordinate(str axis, object value, int depth) except? 0xFFFFFFFF:
    v = operator.index(value)
    if not 0 <= v < (1 << depth):
        raise ValueError(
            f"coordinate {axis}={v} is outside 0..{(1 << depth) - 1} "
            f"(resolution 2^{depth} at depth {depth})")
    return <uint32_t>v


cdef class _MortonCode:
    """Shared behaviour of Morton3 and Morton2; ``_bits`` is 3 or 2."""
    cdef readonly uint32_t code
    cdef readonly int depth
    cdef int _bits

    def __init__(self, code, depth):
        self.depth = _check_depth(depth)
        self.code = _check_code(code, self.depth, self._bits)

    @property
    def size(self):
        """Edge length of the cell in voxels: 2^(5-depth)."""
        return 1 << (MAX_DEPTH - self.depth)

    cdef uint32_t _range_start(self):
        return self.code << (self._bits * (MAX_DEPTH - self.depth))

    def parent(self):
        """The cell one level up (ValueError for the depth-0 root)."""
        if self.depth == 0:
            raise ValueError("the depth-0 root cell has no parent")
        return type(self)(self.code >> self._bits, self.depth - 1)

    def children(self):
        """The 2^bits cells one level down, in z-order (ValueError at depth 5)."""
        if self.depth == MAX_DEPTH:
            raise ValueError(f"a depth-{MAX_DEPTH} cell is a single voxel and has no children")
        cls = type(self)
        return [cls((self.code << self._bits) | i, self.depth + 1)
                for i in range(1 << self._bits)]

    def at_depth(self, depth):
        """This cell's ancestor at a shallower depth, or at a deeper depth its
        first descendant (the lowest code, at the cell's voxel origin)."""
        cdef int d = _check_depth(depth)
        if d <= self.depth:
            return type(self)(self.code >> (self._bits * (self.depth - d)), d)
        return type(self)(self.code << (self._bits * (d - self.depth)), d)

    def contains(self, other):
        """True when ``other`` (same class) is this cell or a descendant of it."""
        if type(other) is not type(self):
            raise TypeError(f"expected {type(self).__name__}, got {type(other).__name__}")
        cdef _MortonCode o = other
        return (o.depth >= self.depth
                and (o.code >> (self._bits * (o.depth - self.depth))) == self.code)

    def _key(self):
        return (self._range_start(), self.depth)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        cdef _MortonCode o = other
        return self.code == o.code and self.depth == o.depth

    def __lt__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() <= other._key()

    def __gt__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() > other._key()

    def __ge__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() >= other._key()

    def __hash__(self):
        return hash((type(self).__name__, self.code, self.depth))

    def __repr__(self):
        # octal for 3D (one digit per octant), binary for 2D: both eval back
        digits = f"{self.code:#o}" if self._bits == 3 else f"{self.code:#b}"
        return f"{type(self).__name__}({digits}, depth={self.depth})"

    def __reduce__(self):
        return (type(self), (self.code, self.depth))


cdef class Morton3(_MortonCode):
    """Code of an octree cell: ``Morton3(code, depth)`` or ``Morton3.encode(x, y, z, depth)``."""

    def __cinit__(self, *args, **kwargs):
        self._bits = 3

    @classmethod
    def encode(cls, x, y, z, depth=5):
        """The cell at (x, y, z) in coordinates of resolution 2^depth."""
        cdef int d = _check_depth(depth)
        cdef uint32_t cx = _check_coordinate("x", x, d)
        cdef uint32_t cy = _check_coordinate("y", y, d)
        cdef uint32_t cz = _check_coordinate("z", z, d)
        return cls(morton3_encode(cx, cy, cz), d)

    def decode(self):
        """(x, y, z) of the cell at resolution 2^depth."""
        return (compact3(self.code), compact3(self.code >> 1), compact3(self.code >> 2))

    def voxel_origin(self):
        """(x, y, z) of the cell's lowest voxel (resolution 32)."""
        cdef uint32_t start = self._range_start()
        return (compact3(start), compact3(start >> 1), compact3(start >> 2))


cdef class Morton2(_MortonCode):
    """Code of a quadtree cell: ``Morton2(code, depth)`` or ``Morton2.encode(u, v, depth)``."""

    def __cinit__(self, *args, **kwargs):
        self._bits = 2

    @classmethod
    def encode(cls, u, v, depth=5):
        """The cell at (u, v) in coordinates of resolution 2^depth."""
        cdef int d = _check_depth(depth)
        cdef uint32_t cu = _check_coordinate("u", u, d)
        cdef uint32_t cv = _check_coordinate("v", v, d)
        return cls(morton2_encode(cu, cv), d)

    def decode(self):
        """(u, v) of the cell at resolution 2^depth."""
        return (compact2(self.code), compact2(self.code >> 1))

    def voxel_origin(self):
        """(u, v) of the cell's lowest texel (resolution 32)."""
        cdef uint32_t start = self._range_start()
        return (compact2(start), compact2(start >> 1))


def _coordinate_array(str axis, values):
    a = np.asarray(values)
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{axis} must be an integer array, got dtype {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 31):
        raise ValueError(f"{axis} values must be in 0..31, got range {a.min()}..{a.max()}")
    return a.astype(np.uint32)


def morton3_encode_array(x, y, z):
    """Depth-5 codes (uint32) of voxel coordinates 0..31 given as integer arrays
    (broadcast together)."""
    xs, ys, zs = np.broadcast_arrays(_coordinate_array("x", x), _coordinate_array("y", y),
                                     _coordinate_array("z", z))
    shape = xs.shape
    cdef const uint32_t[::1] vx = np.ascontiguousarray(xs).ravel()
    cdef const uint32_t[::1] vy = np.ascontiguousarray(ys).ravel()
    cdef const uint32_t[::1] vz = np.ascontiguousarray(zs).ravel()
    out = np.empty(vx.shape[0], np.uint32)
    cdef uint32_t[::1] vout = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(vx.shape[0]):
            vout[i] = morton3_encode(vx[i], vy[i], vz[i])
    return out.reshape(shape)


def morton3_decode_array(codes):
    """(x, y, z) uint32 arrays of depth-5 codes 0..32767 given as an integer array."""
    a = np.asarray(codes)
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"codes must be an integer array, got dtype {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 32767):
        raise ValueError(f"depth-5 codes must be in 0..32767, got range {a.min()}..{a.max()}")
    shape = a.shape
    cdef const uint32_t[::1] vc = np.ascontiguousarray(a, dtype=np.uint32).ravel()
    cdef Py_ssize_t n = vc.shape[0]
    xs = np.empty(n, np.uint32)
    ys = np.empty(n, np.uint32)
    zs = np.empty(n, np.uint32)
    cdef uint32_t[::1] vx = xs
    cdef uint32_t[::1] vy = ys
    cdef uint32_t[::1] vz = zs
    cdef Py_ssize_t i
    with nogil:
        for i in range(n):
            vx[i] = compact3(vc[i])
            vy[i] = compact3(vc[i] >> 1)
            vz[i] = compact3(vc[i] >> 2)
    return xs.reshape(shape), ys.reshape(shape), zs.reshape(shape)
