# cython: language_level=3
"""Padded chunk blocks for the grid mesher (DESIGN.md, "Chunk seeding").

A padded block is a (34, 34, 34) C-contiguous uint16 array: block[1:33,
1:33, 1:33] is one 32^3 chunk and its one-voxel border is the halo (the
neighbouring voxels across faces, edges and corners; 0 beyond the grid).
Blocks are filled without the GIL, so worker threads fill them in parallel:
from a dense volume (``fill_block``, for ``Mesher.mesh_volume_batch``) or
from the 27 chunks around one chunk (``fill_from_neighbours``, for sparse
volumes).
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


def fill_from_neighbours(neighbours, uint16_t[:, :, ::1] block):
    """Fill ``block`` from the 27 chunks around one chunk; True when it holds one value.

    ``neighbours[9 * (dx + 1) + 3 * (dy + 1) + (dz + 1)]`` is the chunk at
    offset (dx, dy, dz): a C-contiguous (32, 32, 32) uint16 array, or None
    for an empty one.  The middle chunk fills the interior, the others the
    halo voxels next to it.
    """
    _check_block(block)
    if len(neighbours) != 27:
        raise ValueError(f"need 27 neighbour chunks, got {len(neighbours)}")
    cdef const uint16_t* source[27]
    cdef const uint16_t[:, :, ::1] chunk
    cdef int n, x, y
    cdef int lo[3]
    cdef int hi[3]
    cdef int off[3]
    for n in range(27):
        source[n] = NULL
        if neighbours[n] is not None:
            chunk = neighbours[n]
            if chunk.shape[0] != CHUNK or chunk.shape[1] != CHUNK or chunk.shape[2] != CHUNK:
                raise ValueError(f"neighbour chunks must have shape (32, 32, 32), got "
                                 f"{(chunk.shape[0], chunk.shape[1], chunk.shape[2])}")
            source[n] = &chunk[0, 0, 0]
    cdef bint uniform
    with nogil:
        memset(&block[0, 0, 0], 0, PADDED * PADDED * PADDED * sizeof(uint16_t))
        for n in range(27):
            if source[n] == NULL:
                continue
            # along each axis: offset -1 gives the chunk's last voxel to block index 0,
            # 0 its 32 voxels to 1..32, +1 its first voxel to 33
            off[0] = n // 9 - 1
            off[1] = (n // 3) % 3 - 1
            off[2] = n % 3 - 1
            for x in range(3):
                lo[x] = CHUNK - 1 if off[x] < 0 else 0
                hi[x] = 1 if off[x] > 0 else CHUNK
            for x in range(lo[0], hi[0]):
                for y in range(lo[1], hi[1]):
                    memcpy(&block[x + 1 + CHUNK * off[0], y + 1 + CHUNK * off[1], lo[2] + 1 + CHUNK * off[2]],
                           source[n] + (x * CHUNK + y) * CHUNK + lo[2],
                           (hi[2] - lo[2]) * sizeof(uint16_t))
        uniform = uniform_block(&block[0, 0, 0], PADDED * PADDED * PADDED)
    return uniform
