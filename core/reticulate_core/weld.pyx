# cython: language_level=3
"""Per-chunk preparation of seam welding, without the GIL (see grid._SeamKeys).

A chunk mesh's vertices are chunk-local corners 0..32; a vertex is on the seam
when one of its coordinates is 0 or 32.  Its key numbers its grid corner p
(relative to the volume box's lower corner) as (p.x * dy + p.y) * dz + p.z.
"""
from libc.stdint cimport int64_t, uint8_t

import numpy as np

cdef enum:
    CHUNK = 32


cdef inline bint _on_seam(const float* p) noexcept nogil:
    return (p[0] == 0 or p[0] == CHUNK or p[1] == 0 or p[1] == CHUNK
            or p[2] == 0 or p[2] == CHUNK)


def prepare_chunk(const float[:, ::1] local, int64_t ox, int64_t oy, int64_t oz,
                  int64_t lx, int64_t ly, int64_t lz, int64_t dy, int64_t dz):
    """(grid positions float32 (n, 3), seam mask bool (n,), keys int64 of the seam vertices).

    ``(ox, oy, oz)``: the chunk's origin in grid coordinates; ``(lx, ly, lz)``:
    the box's lower corner; ``dy``, ``dz``: the box's corner counts along y, z.
    """
    if local.shape[1] != 3:
        raise ValueError(f"positions must have shape (n, 3), got (n, {local.shape[1]})")
    cdef Py_ssize_t n = local.shape[0], i, k = 0
    positions = np.empty((n, 3), dtype=np.float32)
    seam = np.empty(n, dtype=bool)
    cdef float[:, ::1] out = positions
    cdef uint8_t[::1] on_seam = seam.view(np.uint8)
    cdef Py_ssize_t count = 0
    cdef float fx = ox, fy = oy, fz = oz
    cdef int64_t kx = ox - lx, ky = oy - ly, kz = oz - lz
    with nogil:
        for i in range(n):
            on_seam[i] = _on_seam(&local[i, 0])
            count += on_seam[i]
            out[i, 0] = local[i, 0] + fx
            out[i, 1] = local[i, 1] + fy
            out[i, 2] = local[i, 2] + fz
    keys = np.empty(count, dtype=np.int64)
    cdef int64_t[::1] key = keys
    with nogil:
        for i in range(n):
            if on_seam[i]:
                key[k] = (((<int64_t>local[i, 0] + kx) * dy + (<int64_t>local[i, 1] + ky)) * dz
                          + (<int64_t>local[i, 2] + kz))
                k += 1
    return positions, seam, keys
