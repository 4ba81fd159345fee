# C-level contract of the piece weaver (see pieces.pyx); st.region holds a
# filled region of the current layer (set_frame), rows st.rv0..st.rv1.
from libc.stdint cimport uint16_t

from reticulate_core.chunk_state cimport State

# Weave the region as pieces of single-run rows cut along row lines, else of
# single-run columns cut along column lines; False, emitting nothing, when
# neither way's cuts all end at nodes and its pieces all weave (then trace
# and weave it whole).
cdef bint weave_run_pieces(State* st, int a, int positive, uint16_t material) noexcept nogil
