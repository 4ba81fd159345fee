# C-level contract of the table weaver (see weave_table.pyx).
from libc.stdint cimport uint16_t

from reticulate_core.chunk_state cimport State

# Weave the filled region (st.region, rows rv0..rv1; the layer's frame set)
# from the table when it fits a window of 4 x 4 cells and its boundary is
# one simple cycle; False, doing nothing, for any other region.
cdef bint weave_from_table(State* st, int a, int positive, uint16_t material) noexcept nogil
