# C-level contract of the boundary trace (see trace.pyx); st.region holds a filled
# region of the current layer (set_frame), rows st.rv0..st.rv1.
from libc.stdint cimport uint64_t

from reticulate_core.chunk_state cimport State

# Boundary cycles of the region into the node pool; ERR_NONE or an error code.
cdef int trace_region(State* st) noexcept nogil
# The cycle of a region whose rows st.rv0..st.rv1 are the single runs
# st.run_lo[v]..st.run_hi[v] - 1 into the node pool, with its row lines' cut nodes.
cdef void trace_runs(State* st) noexcept nogil
# Its nodes, when no row line's steps conflict, straight in the sweep order of
# mirror_rows (weave.run_orders) for weave.weave_sweep, with no links.
cdef void trace_runs_in_order(State* st, uint64_t mirror_rows) noexcept nogil
