# cython: language_level=3
"""Padded chunk blocks for the grid mesher (DESIGN.md, "Chunk seeding").

A padded block is a (34, 34, 34) C-contiguous uint16 array: block[1:33,
1:33, 1:33] is one 32^3 chunk and its one-voxel border is the halo (the
neighbouring voxels across faces, edges and corners; 0 beyond the grid).
Both functions release the GIL, so worker threads fill blocks in parallel.
"""
from libc.string cimport memcpy, memset

cdef enum:
    CHUNK = 32
    PADDED = 34


cdef bint uniform_block(const uint16_t* block, Py_ssize_t n) noexcept nogil:
    """All n values (a multiple of 34) equal to the first; stops at the first row that differs."""
    cdef uint16_t first = block[0]
    cdef uint16_t diff
    cdef Py_ssize_t row, k
    for row in range(n // PADDED):
        diff = 0
        for k in range(row * PADDED, (row + 1) * PADDED):
            diff |= block[k] ^ first
        if diff:
            return False
    return True


cdef void fill_block(const uint16_t[:, :, :] volume, Py_ssize_t x0, Py_ssize_t y0,
                     Py_ssize_t z0, uint16_t[:, :, ::1] block) noexcept nogil:
    cdef Py_ssize_t nx = volume.shape[0], ny = volume.shape[1], nz = volume.shape[2]
    cdef Py_ssize_t i, j, k, x, y
    # the block's k range that lies inside the grid: z = z0 - 1 + k in [0, nz)
    cdef Py_ssize_t k_lo = max(0, 1 - z0), k_hi = min(PADDED, nz - z0 + 1)
    cdef bint unit_z = volume.strides[2] == sizeof(uint16_t)
    for i in range(PADDED):
        x = x0 - 1 + i
        for j in range(PADDED):
            y = y0 - 1 + j
            if x < 0 or x >= nx or y < 0 or y >= ny or k_lo >= k_hi:
                memset(&block[i, j, 0], 0, PADDED * sizeof(uint16_t))
                continue
            for k in range(k_lo):
                block[i, j, k] = 0
            if unit_z:
                memcpy(&block[i, j, k_lo], &volume[x, y, z0 - 1 + k_lo],
                       (k_hi - k_lo) * sizeof(uint16_t))
            else:
                for k in range(k_lo, k_hi):
                    block[i, j, k] = volume[x, y, z0 - 1 + k]
            for k in range(k_hi, PADDED):
                block[i, j, k] = 0


def _check_block(uint16_t[:, :, ::1] block):
    if block.shape[0] != PADDED or block.shape[1] != PADDED or block.shape[2] != PADDED:
        raise ValueError(f"padded block must have shape (34, 34, 34), got "
                         f"{(block.shape[0], block.shape[1], block.shape[2])}")


def fill_padded(const uint16_t[:, :, :] volume, Py_ssize_t cx, Py_ssize_t cy,
                Py_ssize_t cz, uint16_t[:, :, ::1] block):
    """Fill ``block`` with chunk (cx, cy, cz) of ``volume`` and its halo.

    Any strides are accepted for ``volume``.  Returns True when the whole
    block holds one value (then the chunk has no faces to emit).
    """
    _check_block(block)
    if cx < 0 or cy < 0 or cz < 0:
        raise ValueError(f"chunk coordinates must be >= 0, got {(cx, cy, cz)}")
    cdef bint uniform
    with nogil:
        fill_block(volume, cx * CHUNK, cy * CHUNK, cz * CHUNK, block)
        uniform = uniform_block(&block[0, 0, 0], PADDED * PADDED * PADDED)
    return uniform


def is_uniform(uint16_t[:, :, ::1] block):
    """True when every voxel of the padded block has the same value."""
    _check_block(block)
    cdef bint uniform
    with nogil:
        uniform = uniform_block(&block[0, 0, 0], PADDED * PADDED * PADDED)
    return uniform
