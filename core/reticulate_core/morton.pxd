# Morton codes for a 32^3 chunk (seed: "Morton codes").
#
# 3D codes interleave zyxzyx... in the low bits: bit 3i is x_i, bit 3i+1 is
# y_i, bit 3i+2 is z_i.  2D codes interleave vuvu...: bit 2i is u_i, bit 2i+1
# is v_i.  A code at depth d (0..5) holds 3d (or 2d) bits: the interleaved
# coordinates of one cell of the octree (quadtree) at resolution 2^d, so at
# depth 0 the only code is 0 (the whole chunk) and at depth 5 a code names one
# voxel (texel).  Child i of a cell has code (code << 3) | i, octant i being
# x offset i & 1, y offset (i >> 1) & 1, z offset (i >> 2) & 1.
from libc.stdint cimport uint32_t

cdef enum:
    MAX_DEPTH = 5
    CHUNK = 32

cdef inline uint32_t spread3(uint32_t v) noexcept nogil:
    """Bits 0..4 of v moved to bits 0, 3, 6, 9, 12."""
    v &= 0x1F
    v = (v | (v << 8)) & 0x300F
    v = (v | (v << 4)) & 0x30C3
    v = (v | (v << 2)) & 0x9249
    return v

cdef inline uint32_t compact3(uint32_t m) noexcept nogil:
    """Inverse of spread3: bits 0, 3, 6, 9, 12 of m moved to bits 0..4."""
    m &= 0x9249
    m = (m | (m >> 2)) & 0x30C3
    m = (m | (m >> 4)) & 0x300F
    m = (m | (m >> 8)) & 0x1F
    return m

cdef inline uint32_t spread2(uint32_t v) noexcept nogil:
    """Bits 0..4 of v moved to bits 0, 2, 4, 6, 8."""
    v &= 0x1F
    v = (v | (v << 4)) & 0x10F
    v = (v | (v << 2)) & 0x133
    v = (v | (v << 1)) & 0x155
    return v

cdef inline uint32_t compact2(uint32_t m) noexcept nogil:
    """Inverse of spread2."""
    m &= 0x155
    m = (m | (m >> 1)) & 0x133
    m = (m | (m >> 2)) & 0x10F
    m = (m | (m >> 4)) & 0x1F
    return m

cdef inline uint32_t morton3_encode(uint32_t x, uint32_t y, uint32_t z) noexcept nogil:
    return spread3(x) | (spread3(y) << 1) | (spread3(z) << 2)

cdef inline uint32_t morton2_encode(uint32_t u, uint32_t v) noexcept nogil:
    return spread2(u) | (spread2(v) << 1)
