# C-level contract of the octrees (seed: "Octree", "Walking").
#
# Compact node stream: the tree in pre-order, children in z-order (octant
# order), one uint32 per node:
#   branch: BRANCH_FLAG | child_mask   (bit i set = octant i is non-empty and
#                                       its node follows; absent = empty)
#   leaf:   material id 1..65535       (a uniform solid cell of any depth)
# An empty chunk has no nodes; a uniform chunk is one leaf at depth 0.  A
# branch never has 8 leaf children of one material (those collapse), so the
# stream of a given dense chunk is unique.
cimport cython
from libc.stdint cimport uint16_t, uint32_t

cdef enum:
    BRANCH_FLAG = 0x80000000
    # 1 + 8 + 64 + 512 + 4096 + 32768: every cell of depth 0..5 present
    MAX_COMPACT_NODES = 37449

cdef enum WalkEvent:
    ON_BRANCH_START = 0
    ON_LEAF = 1
    ON_EMPTY = 2
    ON_BRANCH_END = 3

# Receives every walk event: the Morton code (3*depth bits, see morton.pxd)
# and depth of the visited cell, and its material (0 for branch and empty
# events).  Cells arrive in z-order; a branch's descendants arrive between
# its ON_BRANCH_START and ON_BRANCH_END.
ctypedef void (*volume_visitor)(void* ctx, int event, uint32_t code, int depth,
                                uint16_t material) noexcept nogil

# Build the compact stream of a (32, 32, 32) [x, y, z] chunk into `nodes`
# (room for MAX_COMPACT_NODES); returns the node count (-1, writing nothing,
# when dense is not of shape (32, 32, 32)).
cdef int compact_from_dense_c(const uint16_t[:, :, :] dense, uint32_t* nodes) noexcept nogil

# One linear scan of a compact stream.  dense=False is the Walker (no
# ON_EMPTY events), dense=True the DenseWalker (empty cells reported as
# ON_EMPTY at the largest depth where they are uniformly empty).
cdef void compact_walk_c(const uint32_t* nodes, int n_nodes, bint dense,
                         volume_visitor visit, void* ctx) noexcept nogil

# Receives the eight voxels of a branch of depth MAX_DEPTH - 1 (a 2x2x2
# brick) at once: the branch's code and its voxels' materials by octant,
# 0 for empty.
ctypedef void (*brick_visitor)(void* ctx, uint32_t code,
                               const uint16_t* voxels) noexcept nogil

# The DenseWalker of compact_walk_c reporting cells only: each branch of
# depth MAX_DEPTH - 1 goes to visit_brick in place of its start, eight voxel
# events and end, and other branches report no start and end events.
cdef void compact_walk_bricks_c(const uint32_t* nodes, int n_nodes, volume_visitor visit,
                                brick_visitor visit_brick, void* ctx) noexcept nogil

# final: no subclass can stand in its own nodes or to_dense() for the
# canonical stream the walks and the mesher read without bounds checks
@cython.final
cdef class CompactOctree:
    # uint32 numpy array holding the compact stream (read-only API)
    cdef readonly object nodes

# The same walk over a Fixed8Octree's slots (see octree.pyx): `root` is the
# root slot, `slots` holds 8 slots per block, n_blocks of them.  Emits the
# same events in the same order as compact_walk_c of the same content.
cdef void fixed8_walk_c(const uint32_t* slots, Py_ssize_t n_blocks, uint32_t root,
                        bint dense, volume_visitor visit, void* ctx) noexcept nogil

# Walk either octree class (TypeError for anything else); the Compact walk
# runs without the GIL, the Fixed8 walk holds it so no edit can run meanwhile.
cdef int octree_walk(object tree, bint dense, volume_visitor visit, void* ctx) except -1
