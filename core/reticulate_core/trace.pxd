# C-level contract of the boundary trace (see trace.pyx); st.region holds a filled
# region of the current layer (set_frame), rows st.rv0..st.rv1.
from libc.stdint cimport uint64_t

from reticulate_core.chunk_state cimport State

# Boundary cycles of the region into the node pool; ERR_NONE or an error code.
cdef int trace_region(State* st) noexcept nogil
# The nodes of rows v0..v1 of a region whose rows st.rv0..st.rv1 are the
# single runs st.run_lo[v]..st.run_hi[v] - 1, cut at row lines v0 and v1 + 1
# unless they are its ends and with no conflicting row line between them,
# into the node pool straight in the sweep order of mirror_rows
# (weave.run_orders) for weave.weave_sweep, with no links.
cdef void trace_runs_in_order(State* st, uint64_t mirror_rows, int v0, int v1) noexcept nogil
