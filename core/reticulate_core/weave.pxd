# C-level contract of the weavers (see weave.pyx); st holds the cycles that
# trace.trace_region found for a region of layer L on axis a (or the nodes
# trace.trace_runs_in_order put in sweep order).
from libc.stdint cimport uint16_t, uint64_t

from reticulate_core.chunk_state cimport State

# Triangulate the polygon of the n-node cycle of node low, its lowest node and
# only local minimum in the sweep order of mirror_rows (by v, then by u, or
# by -u on the row lines whose bit is set); False, emitting nothing, at a
# pinch point or a degenerate triangle.
cdef bint weave_monotone(State* st, int low, int n, uint64_t mirror_rows,
                         int a, int positive, uint16_t material) noexcept nogil
# weave_monotone on traced cycle c in whichever sweep order it is monotone;
# False, emitting nothing, when neither order weaves it.
cdef bint weave_cycle(State* st, int c, int a, int positive, uint16_t material) noexcept nogil
# weave_monotone's triangles from n nodes already in sweep order, node m at
# (nu[m], nv[m]) with vertex vert[m] on chain st.chain[m]; False, emitting
# nothing, at a degenerate triangle.
cdef bint weave_sweep(State* st, int n, const int* nu, const int* nv, const int* vert,
                      int a, int positive, uint16_t material) noexcept nogil
# The per-row-line sweep order of a region of single-run rows (bit y of
# mirror_rows[0]: row line y by -u) and the row lines no order suits, into
# cuts; their number.
cdef int run_orders(State* st, uint64_t* mirror_rows, int* cuts) noexcept nogil
# Triangulate traced cycles (outer and holes, pinch points too) cut into
# monotone pieces; False, emitting nothing and leaving the cycles as traced,
# only when a guard fails (then the mesher reports an internal error).
cdef bint weave_partitioned(State* st, int a, int positive, uint16_t material) noexcept nogil
# Weave a rectangle of cells with no point of S inside two opposite sides
# (a strip one cell wide among them) without a trace; False, doing nothing,
# for any other region.
cdef bint weave_rectangle(State* st, int a, int positive, uint16_t material) noexcept nogil
