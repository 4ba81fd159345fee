# C-level contract of padded chunk blocks (see halo.pyx): a (34, 34, 34)
# C-contiguous uint16 block is one 32^3 chunk and its one-voxel halo.
from libc.stdint cimport uint16_t

# block = the voxels of volume at (x0 - 1 .. x0 + 32, y0 - 1 .., z0 - 1 ..),
# 0 outside the volume; any strides for volume.
cdef void fill_block(const uint16_t[:, :, :] volume, Py_ssize_t x0, Py_ssize_t y0,
                     Py_ssize_t z0, uint16_t[:, :, ::1] block) noexcept nogil

# Whether all n values (a multiple of 34) equal the first.
cdef bint uniform_block(const uint16_t* block, Py_ssize_t n) noexcept nogil
