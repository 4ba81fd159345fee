# C-level contract of the piece weaver (see pieces.pyx); st.region holds a
# filled region of the current layer (set_frame), rows st.rv0..st.rv1.
from libc.stdint cimport uint16_t

from reticulate_core.chunk_state cimport State

# Weave the region as pieces of single-run rows cut along row lines; False,
# emitting nothing, when a cut would end at a point that is no node or a
# piece does not weave (then trace and weave it whole).
cdef bint weave_run_pieces(State* st, int a, int positive, uint16_t material) noexcept nogil
