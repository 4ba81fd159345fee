# C-level contract of the weavers (see weave.pyx); st holds the cycles that
# trace.trace_region found for a region of layer L on axis a.
from libc.stdint cimport uint16_t

from reticulate_core.chunk_state cimport State

# Triangulate traced cycles (outer and holes); ERR_NONE or an error code.
cdef int weave_region(State* st, int a, int L, int positive, uint16_t material) noexcept nogil
# Triangulate the polygon of node head's cycle, monotone in sweep order (v, u);
# False, emitting nothing, when it is not.
cdef bint weave_monotone(State* st, int head, int a, int positive, uint16_t material) noexcept nogil
# weave_monotone, else the same in the mirrored sweep order (v, -u); False,
# emitting nothing and keeping the keys, when neither order is monotone.
cdef bint weave_cycle(State* st, int head, int a, int positive, uint16_t material) noexcept nogil
# Triangulate traced cycles cut into monotone pieces; False, emitting nothing
# and leaving the cycles as traced, at a pinch point.
cdef bint weave_partitioned(State* st, int a, int positive, uint16_t material) noexcept nogil
# Weave a region one cell wide (a run of one row or of one column) without
# a trace; False, doing nothing, for any other region.
cdef bint weave_strip(State* st, int a, int positive, uint16_t material) noexcept nogil
