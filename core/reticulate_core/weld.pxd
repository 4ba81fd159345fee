# C-level contract of seam keys (see weld.pyx).
from libc.stdint cimport int64_t

# Key of the chunk-local corner p (coordinates 0..32, integer-valued) of a
# chunk whose origin lies (kx, ky, kz) above the volume box's lower corner:
# the number (x * dy + y) * dz + z of its grid corner within the box (dy, dz:
# the box's corner counts along y and z), or -1 when p is inside the chunk
# (no coordinate 0 or 32), where no other chunk has a vertex.
cdef int64_t seam_key(const float* p, int64_t kx, int64_t ky, int64_t kz,
                      int64_t dy, int64_t dz) noexcept nogil
