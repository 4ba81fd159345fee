# cython: language_level=3
"""Sparse voxel octrees of one 32^3 chunk: Compact (read) and Fixed8 (edit).

Both hold the same canonical tree: a cell is a leaf when it is uniformly one
material, absent (empty) when uniformly 0, and a branch otherwise, so a given
dense chunk has exactly one tree.  Layout of the Compact node stream, walk
events and the C visitor type: ``octree.pxd``.

Fixed8 storage: a slot is a uint32 holding 0 (empty), a material 1..65535
(leaf) or ``BRANCH_FLAG | block`` (branch; its 8 children are the slots
``8*block .. 8*block+7``, in octant order).  The root is one slot outside the
blocks.  Edits write slots in place; a branch whose 8 children become equal
leaves (or all empty) collapses back into its slot and its block goes on a
free list (a free block's slot 0 holds the next free block + 1, 0 ending the
list) that allocation reuses first.

Dense input (``from_dense``, ``memory_report``): any array of shape
(32, 32, 32) indexed [x, y, z] with an integer dtype holding 0..65535, or a
bool array (True is material 1).
"""
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from reticulate_core.morton cimport CHUNK, MAX_DEPTH, compact3, morton3_encode, spread3

import operator
import time

import numpy as np

from reticulate_core.morton import Morton3

cdef enum:
    # value of a cell that is not uniform (any value above 65535 would do)
    MIXED = 0x10000
    # cells of depth 0..4 (depth-5 cells are the voxels themselves)
    N_CELLS = 4681
    # most events one walk can emit: every cell at most a start and an end
    MAX_WALK_EVENTS = 2 * MAX_COMPACT_NODES

cdef uint32_t BRANCH_INDEX_MASK = 0x7FFFFFFF
cdef uint64_t PAIR_LANES = 0x0000FFFF0000FFFFULL    # lanes 0 and 2 of a 4 x 16-bit word


cdef inline int level_start(int depth) noexcept nogil:
    """Index of the first depth-`depth` cell in the cells array: (8^d - 1) / 7."""
    return ((1 << (3 * depth)) - 1) // 7


cdef inline int popcount8(uint32_t mask) noexcept nogil:
    mask = (mask & 0x55) + ((mask >> 1) & 0x55)
    mask = (mask & 0x33) + ((mask >> 2) & 0x33)
    return <int>((mask & 0x0F) + (mask >> 4))


# ---------------------------------------------------------------------------
# Dense input

def _as_chunk(array):
    """``array`` as a (32, 32, 32) uint16 numpy array, or a clear error."""
    a = np.asarray(array)
    if a.shape != (CHUNK, CHUNK, CHUNK):
        raise ValueError(f"a chunk must have shape (32, 32, 32), got {a.shape}")
    if a.dtype == np.bool_:
        return a.astype(np.uint16)
    if not np.issubdtype(a.dtype, np.integer):
        raise TypeError(
            f"chunk dtype must be an integer type holding material ids 0..65535 "
            f"(or bool), got {a.dtype}")
    if a.dtype != np.uint16:
        low = a.min()
        if low < 0:
            at = tuple(int(i) for i in np.unravel_index(np.argmin(a), a.shape))
            raise ValueError(f"material ids must be in 0..65535, got {low} at {at}")
        high = a.max()
        if high > 65535:
            at = tuple(int(i) for i in np.unravel_index(np.argmax(a), a.shape))
            raise ValueError(f"material ids must be in 0..65535, got {high} at {at}")
        a = a.astype(np.uint16)
    return a


cdef object _index(str name, object value):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None


cdef int _coordinate(str axis, object value) except -1:
    v = _index(axis, value)
    if not 0 <= v < CHUNK:
        raise ValueError(f"coordinate {axis}={v} is outside the chunk (0..31)")
    return v


cdef int _material(object value) except -1:
    v = _index("material", value)
    if not 0 <= v <= 65535:
        raise ValueError(f"material must be in 0..65535 (0 clears), got {v}")
    return v


# ---------------------------------------------------------------------------
# Building from dense: uniform cells bottom-up, then emission top-down

cdef inline uint32_t _at(const char* row, int z, Py_ssize_t sz) noexcept nogil:
    """Voxel z of a row of a dense chunk, whose voxels are sz bytes apart."""
    return (<const uint16_t*>(row + z * sz))[0]


cdef inline uint64_t _quad(const char* row, int k) noexcept nogil:
    """Voxels 4k .. 4k + 3 of a contiguous row as one 64-bit word (byte order aside)."""
    cdef uint64_t word
    memcpy(&word, row + 8 * k, 8)
    return word


# the bits of a _quad that hold its first two voxels, in this machine's byte order
cdef uint64_t FIRST_PAIR
memcpy(&FIRST_PAIR, b"\xff\xff\xff\xff\x00\x00\x00\x00", 8)


cdef void _uniform_cells(const uint16_t[:, :, :] dense, uint32_t* cells) noexcept nogil:
    """cells[level_start(d) + code] = the material of cell (code, d) if it is
    uniform (0 = empty), else MIXED, for depths 0..4."""
    cdef uint32_t* level4 = cells + level_start(4)
    cdef uint32_t* parent
    cdef const uint32_t* child
    cdef int i, j, k, depth, c, o
    cdef uint32_t sxy, v, a
    cdef uint64_t q, d
    # raw rows: voxel (x, y, z) is at base + x * sx + y * sy + z * sz bytes
    cdef const char* base = <const char*>&dense[0, 0, 0]
    cdef Py_ssize_t sx = dense.strides[0], sy = dense.strides[1], sz = dense.strides[2]
    cdef const char* r00
    cdef const char* r10
    cdef const char* r01
    cdef const char* r11
    cdef uint32_t zbits[16]            # the z bits of level-4 codes
    for k in range(16):
        zbits[k] = spread3(k) << 2
    for i in range(16):
        for j in range(16):
            sxy = spread3(i) | (spread3(j) << 1)
            r00 = base + 2 * i * sx + 2 * j * sy
            r10 = r00 + sx
            r01 = r00 + sy
            r11 = r10 + sy
            if sz == 2:
                # contiguous rows: compare z quads (two cells) of the four rows as
                # 64-bit words, and the z pair of each cell (lanes 0|1 and 2|3)
                for k in range(8):
                    q = _quad(r00, k)
                    d = ((q ^ _quad(r10, k)) | (q ^ _quad(r01, k)) | (q ^ _quad(r11, k))
                         | ((q ^ (q >> 16)) & PAIR_LANES))
                    level4[sxy | zbits[2 * k]] = _at(r00, 4 * k, sz) if (d & FIRST_PAIR) == 0 else MIXED
                    level4[sxy | zbits[2 * k + 1]] = (_at(r00, 4 * k + 2, sz) if (d & ~FIRST_PAIR) == 0
                                                      else MIXED)
            else:
                for k in range(16):
                    a = _at(r00, 2 * k, sz)
                    v = ((a ^ _at(r10, 2 * k, sz)) | (a ^ _at(r01, 2 * k, sz))
                         | (a ^ _at(r11, 2 * k, sz)) | (a ^ _at(r00, 2 * k + 1, sz))
                         | (a ^ _at(r10, 2 * k + 1, sz)) | (a ^ _at(r01, 2 * k + 1, sz))
                         | (a ^ _at(r11, 2 * k + 1, sz)))
                    level4[sxy | zbits[k]] = a if v == 0 else MIXED
    for depth in range(3, -1, -1):
        parent = cells + level_start(depth)
        child = cells + level_start(depth + 1)
        for c in range(1 << (3 * depth)):
            v = child[8 * c]
            for o in range(1, 8):
                if child[8 * c + o] != v:
                    v = MIXED
                    break
            parent[c] = v


cdef inline uint16_t _voxel_of_child(const uint16_t[:, :, :] dense, uint32_t code4,
                                     int octant) noexcept nogil:
    """Voxel `octant` of the depth-4 cell `code4`."""
    cdef uint32_t x = compact3(code4) * 2 + (octant & 1)
    cdef uint32_t y = compact3(code4 >> 1) * 2 + ((octant >> 1) & 1)
    cdef uint32_t z = compact3(code4 >> 2) * 2 + ((octant >> 2) & 1)
    return dense[x, y, z]


cdef int _emit_compact(const uint32_t* cells, const uint16_t[:, :, :] dense, int depth,
                       uint32_t code, uint32_t* nodes, int n) noexcept nogil:
    """Append the pre-order nodes of the non-empty cell (code, depth < 5)."""
    cdef uint32_t v = cells[level_start(depth) + code]
    cdef uint32_t mask = 0
    cdef uint16_t voxels[8]
    cdef const uint32_t* child
    cdef int i
    if v != MIXED:
        nodes[n] = v
        return n + 1
    if depth == MAX_DEPTH - 1:
        for i in range(8):
            voxels[i] = _voxel_of_child(dense, code, i)
            if voxels[i]:
                mask |= 1u << i
        nodes[n] = BRANCH_FLAG | mask
        n += 1
        for i in range(8):
            if voxels[i]:
                nodes[n] = voxels[i]
                n += 1
        return n
    child = cells + level_start(depth + 1) + (code << 3)
    for i in range(8):
        if child[i]:
            mask |= 1u << i
    nodes[n] = BRANCH_FLAG | mask
    n += 1
    for i in range(8):
        if child[i]:
            n = _emit_compact(cells, dense, depth + 1, (code << 3) | i, nodes, n)
    return n


cdef int compact_from_dense_c(const uint16_t[:, :, :] dense, uint32_t* nodes) noexcept nogil:
    cdef uint32_t cells[N_CELLS]
    if dense.shape[0] != CHUNK or dense.shape[1] != CHUNK or dense.shape[2] != CHUNK:
        return -1
    _uniform_cells(dense, cells)
    if cells[0] == 0:
        return 0
    return _emit_compact(cells, dense, 0, 0, nodes, 0)


cdef uint32_t _emit_fixed8(const uint32_t* cells, const uint16_t[:, :, :] dense, int depth,
                           uint32_t code, uint32_t* slots, Py_ssize_t* next_block) noexcept nogil:
    """Slot value of cell (code, depth < 5); allocates branch blocks in pre-order."""
    cdef uint32_t v = cells[level_start(depth) + code]
    cdef Py_ssize_t block
    cdef int i
    if v != MIXED:
        return v
    block = next_block[0]
    next_block[0] += 1
    for i in range(8):
        if depth == MAX_DEPTH - 1:
            slots[8 * block + i] = _voxel_of_child(dense, code, i)
        else:
            slots[8 * block + i] = _emit_fixed8(cells, dense, depth + 1, (code << 3) | i,
                                                slots, next_block)
    return BRANCH_FLAG | <uint32_t>block


# ---------------------------------------------------------------------------
# Walks

cdef inline void _compact_walk(const uint32_t* nodes, int n_nodes, bint dense,
                               volume_visitor visit, brick_visitor visit_brick,
                               void* ctx) noexcept nogil:
    """The walk of compact_walk_c; with visit_brick (dense walks only),
    branches of depth MAX_DEPTH - 1 go whole to visit_brick and no branch
    events are reported."""
    cdef uint16_t brick[8]
    # open branches, indexed by depth: child mask, code, next octant to visit
    cdef uint32_t masks[MAX_DEPTH]
    cdef uint32_t codes[MAX_DEPTH]
    cdef int next_octant[MAX_DEPTH]
    cdef int top = -1          # depth of the innermost open branch
    cdef int pos = 0, depth = 0, octant
    cdef uint32_t code = 0, node, child
    cdef bint descended
    if n_nodes <= 0:
        if dense:
            visit(ctx, ON_EMPTY, 0, 0, 0)
        return
    while True:
        if pos >= n_nodes:
            return  # truncated stream: stop rather than read past it
        node = nodes[pos]
        pos += 1
        if node & BRANCH_FLAG and visit_brick != NULL and depth == MAX_DEPTH - 1:
            for octant in range(8):
                if (node >> octant) & 1:
                    if pos >= n_nodes:
                        return  # truncated stream
                    child = nodes[pos]
                    pos += 1
                    if child & BRANCH_FLAG:
                        return  # malformed: a voxel cannot branch
                    brick[octant] = <uint16_t>child
                else:
                    brick[octant] = 0
            visit_brick(ctx, code, brick)
        elif node & BRANCH_FLAG:
            if depth >= MAX_DEPTH:
                return  # malformed: a voxel cannot branch
            if visit_brick == NULL:
                visit(ctx, ON_BRANCH_START, code, depth, 0)
            top = depth
            masks[top] = node & 0xFF
            codes[top] = code
            next_octant[top] = 0
        else:
            visit(ctx, ON_LEAF, code, depth, <uint16_t>node)
        # move to the next present cell, closing finished branches
        descended = False
        while top >= 0 and not descended:
            while next_octant[top] < 8:
                octant = next_octant[top]
                next_octant[top] = octant + 1
                child = (codes[top] << 3) | <uint32_t>octant
                if (masks[top] >> octant) & 1:
                    code = child
                    depth = top + 1
                    descended = True
                    break
                if dense:
                    visit(ctx, ON_EMPTY, child, top + 1, 0)
            if not descended:
                if visit_brick == NULL:
                    visit(ctx, ON_BRANCH_END, codes[top], top, 0)
                top -= 1
        if not descended:
            return


cdef void compact_walk_c(const uint32_t* nodes, int n_nodes, bint dense,
                         volume_visitor visit, void* ctx) noexcept nogil:
    _compact_walk(nodes, n_nodes, dense, visit, NULL, ctx)


cdef void compact_walk_bricks_c(const uint32_t* nodes, int n_nodes, volume_visitor visit,
                                brick_visitor visit_brick, void* ctx) noexcept nogil:
    _compact_walk(nodes, n_nodes, True, visit, visit_brick, ctx)


cdef void _walk_fixed8_slot(const uint32_t* slots, Py_ssize_t n_blocks, uint32_t slot,
                            uint32_t code, int depth, bint dense, volume_visitor visit,
                            void* ctx) noexcept nogil:
    cdef Py_ssize_t block
    cdef uint32_t child
    cdef int i
    if slot & BRANCH_FLAG:
        block = slot & BRANCH_INDEX_MASK
        if block >= n_blocks or depth >= MAX_DEPTH:
            return  # malformed: never follow a pointer out of the blocks
        visit(ctx, ON_BRANCH_START, code, depth, 0)
        for i in range(8):
            child = slots[8 * block + i]
            if child:
                _walk_fixed8_slot(slots, n_blocks, child, (code << 3) | i, depth + 1,
                                  dense, visit, ctx)
            elif dense:
                visit(ctx, ON_EMPTY, (code << 3) | i, depth + 1, 0)
        visit(ctx, ON_BRANCH_END, code, depth, 0)
    elif slot:
        visit(ctx, ON_LEAF, code, depth, <uint16_t>slot)
    elif dense:
        visit(ctx, ON_EMPTY, code, depth, 0)


cdef void fixed8_walk_c(const uint32_t* slots, Py_ssize_t n_blocks, uint32_t root,
                        bint dense, volume_visitor visit, void* ctx) noexcept nogil:
    _walk_fixed8_slot(slots, n_blocks, root, 0, 0, dense, visit, ctx)


cdef inline const uint32_t* _nodes_pointer(const uint32_t[::1] nodes) noexcept nogil:
    return &nodes[0] if nodes.shape[0] else NULL


cdef int _walk_repeated(object tree, bint dense, volume_visitor visit, void* ctx,
                        Py_ssize_t repeats) except -1:
    """octree_walk, ``repeats`` times over."""
    cdef const uint32_t[::1] nodes
    cdef const uint32_t* first
    cdef Fixed8Octree fixed8
    cdef Py_ssize_t r
    cdef int n
    if isinstance(tree, CompactOctree):
        nodes = (<CompactOctree>tree).nodes
        first = _nodes_pointer(nodes)
        n = <int>nodes.shape[0]
        with nogil:
            for r in range(repeats):
                compact_walk_c(first, n, dense, visit, ctx)
    elif isinstance(tree, Fixed8Octree):
        fixed8 = tree
        for r in range(repeats):
            fixed8_walk_c(fixed8.slots, fixed8._n_blocks, fixed8.root, dense, visit, ctx)
    else:
        raise TypeError(
            f"expected a CompactOctree or Fixed8Octree, got {type(tree).__name__}")
    return 0


cdef int octree_walk(object tree, bint dense, volume_visitor visit, void* ctx) except -1:
    return _walk_repeated(tree, dense, visit, ctx, 1)


cdef void _paint_leaf(void* ctx, int event, uint32_t code, int depth,
                      uint16_t material) noexcept nogil:
    """Visitor writing each leaf's material into a C-contiguous 32^3 uint16 buffer."""
    cdef uint16_t* out = <uint16_t*>ctx
    cdef int shift, size, x, y, z, x0, y0, z0
    cdef uint32_t start
    if event != ON_LEAF or not 0 <= depth <= MAX_DEPTH:
        return
    shift = MAX_DEPTH - depth
    size = 1 << shift
    start = code << (3 * shift)
    x0 = compact3(start)
    y0 = compact3(start >> 1)
    z0 = compact3(start >> 2)
    for x in range(x0, x0 + size):
        for y in range(y0, y0 + size):
            for z in range(z0, z0 + size):
                out[(x * CHUNK + y) * CHUNK + z] = material


cdef void _count_event(void* ctx, int event, uint32_t code, int depth,
                       uint16_t material) noexcept nogil:
    (<Py_ssize_t*>ctx)[0] += 1


cdef struct WalkRecord:
    uint32_t code
    uint16_t material
    uint8_t event
    uint8_t depth


cdef struct WalkRecorder:
    WalkRecord* records
    Py_ssize_t count
    Py_ssize_t capacity


cdef void _record_event(void* ctx, int event, uint32_t code, int depth,
                        uint16_t material) noexcept nogil:
    cdef WalkRecorder* recorder = <WalkRecorder*>ctx
    cdef WalkRecord* record
    if recorder.count >= recorder.capacity:
        return
    record = &recorder.records[recorder.count]
    record.code = code
    record.material = material
    record.event = <uint8_t>event
    record.depth = <uint8_t>depth
    recorder.count += 1


cdef int _start_recording(WalkRecorder* recorder) except -1:
    """An empty recorder with room for the events of any walk (free its records)."""
    recorder.count = 0
    recorder.capacity = MAX_WALK_EVENTS
    recorder.records = <WalkRecord*>malloc(MAX_WALK_EVENTS * sizeof(WalkRecord))
    if recorder.records == NULL:
        raise MemoryError("cannot allocate the walk event buffer")
    return 0


cdef void _record_brick(void* ctx, uint32_t code, const uint16_t* voxels) noexcept nogil:
    """Records a brick as its eight voxel events, empties included."""
    cdef int i
    for i in range(8):
        _record_event(ctx, ON_LEAF if voxels[i] else ON_EMPTY, (code << 3) | <uint32_t>i,
                      MAX_DEPTH, voxels[i])


def _brick_walk_records(CompactOctree tree):
    """Events of compact_walk_bricks_c as (event, code, depth, material), each
    brick written out as its eight voxel events (for tests)."""
    cdef const uint32_t[::1] nodes = tree.nodes
    cdef WalkRecorder recorder
    cdef Py_ssize_t i
    _start_recording(&recorder)
    try:
        compact_walk_bricks_c(_nodes_pointer(nodes), <int>nodes.shape[0], _record_event,
                              _record_brick, &recorder)
        return [(recorder.records[i].event, recorder.records[i].code, recorder.records[i].depth,
                 recorder.records[i].material) for i in range(recorder.count)]
    finally:
        free(recorder.records)


def _walk_python(tree, visitor, bint dense):
    """Run the C walk collecting events, then call the visitor's methods."""
    handlers = (getattr(visitor, "on_branch_start", None), getattr(visitor, "on_leaf", None),
                getattr(visitor, "on_empty", None), getattr(visitor, "on_branch_end", None))
    cdef WalkRecorder recorder
    cdef WalkRecord record
    cdef Py_ssize_t i
    _start_recording(&recorder)
    try:
        octree_walk(tree, dense, _record_event, &recorder)
        for i in range(recorder.count):
            record = recorder.records[i]
            handler = handlers[record.event]
            if handler is None:
                continue
            if record.event == ON_LEAF:
                handler(Morton3(record.code, record.depth), record.material)
            else:
                handler(Morton3(record.code, record.depth))
    finally:
        free(recorder.records)


class Walker:
    """Walks the defined data of a tree in z-order: on_branch_start(code),
    on_leaf(code, material), on_branch_end(code), no on_empty.

    ``visitor`` may define any of those methods (missing ones are skipped);
    ``code`` is a :class:`Morton3` with the cell's depth.  A branch's
    descendants arrive between its start and end."""

    dense = False

    def __init__(self, tree):
        if not isinstance(tree, (CompactOctree, Fixed8Octree)):
            raise TypeError(
                f"expected a CompactOctree or Fixed8Octree, got {type(tree).__name__}")
        self.tree = tree

    def walk(self, visitor):
        _walk_python(self.tree, visitor, self.dense)


class DenseWalker(Walker):
    """Walks the full chunk: like :class:`Walker`, plus on_empty(code) for each
    empty cell at the largest depth where it is uniformly empty, so leaves and
    empties together tile the chunk exactly once."""

    dense = True


def benchmark_walk(tree, Py_ssize_t repeats, bint dense=False):
    """Seconds per full C walk of ``tree`` with a counting visitor (no Python
    calls inside the timed loop)."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    cdef Py_ssize_t events = 0
    start = time.perf_counter()
    _walk_repeated(tree, dense, _count_event, &events, repeats)
    return (time.perf_counter() - start) / repeats


# ---------------------------------------------------------------------------
# Compact

cdef int _skip_subtree(const uint32_t* nodes, int n, int pos) noexcept nogil:
    """Position just after the subtree starting at `pos` (-1 if truncated)."""
    cdef int pending = 1
    cdef uint32_t node
    while pending:
        if pos >= n:
            return -1
        node = nodes[pos]
        pos += 1
        pending -= 1
        if node & BRANCH_FLAG:
            pending += popcount8(node & 0xFF)
    return pos


cdef int _compact_get(const uint32_t* nodes, int n, int x, int y, int z) noexcept nogil:
    """Material of voxel (x, y, z) in a stream (-1 if the stream is malformed)."""
    cdef int pos = 0, depth, shift, octant, i
    cdef uint32_t node, mask
    if n == 0:
        return 0
    for depth in range(MAX_DEPTH + 1):
        if pos >= n:
            return -1
        node = nodes[pos]
        pos += 1
        if not node & BRANCH_FLAG:
            return <int>(node & 0xFFFF)
        if depth == MAX_DEPTH:
            return -1
        shift = MAX_DEPTH - 1 - depth
        octant = ((x >> shift) & 1) | (((y >> shift) & 1) << 1) | (((z >> shift) & 1) << 2)
        mask = node & 0xFF
        if not (mask >> octant) & 1:
            return 0
        for i in range(octant):
            if (mask >> i) & 1:
                pos = _skip_subtree(nodes, n, pos)
                if pos < 0:
                    return -1
    return -1


cdef int _stream_to_fixed8(const uint32_t* nodes, int n, int* pos, int depth, uint32_t* slots,
                           Py_ssize_t* next_block, Py_ssize_t n_blocks,
                           uint32_t* out) noexcept nogil:
    """Write the slot of the subtree at nodes[pos] into `out`, its blocks in
    pre-order from next_block; -1 if the stream is malformed."""
    cdef uint32_t node
    cdef Py_ssize_t block
    cdef int i
    if pos[0] >= n:
        return -1
    node = nodes[pos[0]]
    pos[0] += 1
    if not node & BRANCH_FLAG:
        out[0] = node
        return 0
    if depth >= MAX_DEPTH or next_block[0] >= n_blocks:
        return -1
    block = next_block[0]
    next_block[0] += 1
    for i in range(8):
        if (node >> i) & 1:
            if _stream_to_fixed8(nodes, n, pos, depth + 1, slots, next_block, n_blocks,
                                 &slots[8 * block + i]) < 0:
                return -1
        else:
            slots[8 * block + i] = 0
    out[0] = BRANCH_FLAG | <uint32_t>block
    return 0


cdef object _read_only_nodes(const uint32_t* nodes, int n):
    """A uint32 array copy of nodes[:n] over an immutable bytes object, so
    that it cannot be made writeable again."""
    cdef bytes data = (<const char*>nodes)[:n * sizeof(uint32_t)] if n else b""
    return np.frombuffer(data, dtype=np.uint32)


_NO_NODES = _read_only_nodes(NULL, 0)


cdef class CompactOctree:
    """Read-optimised octree: the canonical pre-order node stream of a chunk.

    Read-only: edit a copy made with :meth:`to_fixed8`.  ``len(tree)`` is the
    node count, ``nbytes`` the stream's bytes (4 per node).  ``CompactOctree()``
    is the empty chunk."""

    def __cinit__(self):
        self.nodes = _NO_NODES

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("CompactOctree() takes no arguments (it is the empty chunk); "
                            "build a tree with CompactOctree.from_dense(array)")

    @classmethod
    def from_dense(cls, array):
        """Tree of a (32, 32, 32) chunk (see the module doc for accepted input)."""
        chunk = _as_chunk(array)
        cdef const uint16_t[:, :, :] dense = chunk
        cdef uint32_t* buffer = <uint32_t*>malloc(MAX_COMPACT_NODES * sizeof(uint32_t))
        cdef int n
        cdef CompactOctree tree
        if buffer == NULL:
            raise MemoryError("cannot allocate the node buffer")
        try:
            with nogil:
                n = compact_from_dense_c(dense, buffer)
            tree = cls.__new__(cls)
            tree.nodes = _read_only_nodes(buffer, n)
        finally:
            free(buffer)
        return tree

    def __len__(self):
        return self.nodes.shape[0]

    @property
    def nbytes(self):
        """Bytes of the node stream."""
        return self.nodes.nbytes

    def to_dense(self):
        """The chunk as a (32, 32, 32) uint16 array."""
        out = np.zeros((CHUNK, CHUNK, CHUNK), np.uint16)
        cdef uint16_t[:, :, ::1] view = out
        octree_walk(self, False, _paint_leaf, &view[0, 0, 0])
        return out

    def get(self, x, y, z):
        """Material of voxel (x, y, z), 0 when empty."""
        cdef int cx = _coordinate("x", x), cy = _coordinate("y", y), cz = _coordinate("z", z)
        cdef const uint32_t[::1] nodes = self.nodes
        cdef int material = _compact_get(_nodes_pointer(nodes), <int>nodes.shape[0], cx, cy, cz)
        if material < 0:
            raise ValueError("malformed compact node stream")
        return material

    def to_fixed8(self):
        """An editable Fixed8Octree of the same content."""
        cdef const uint32_t[::1] nodes = self.nodes
        cdef const uint32_t* first = _nodes_pointer(nodes)
        cdef int n = <int>nodes.shape[0], pos = 0
        cdef Py_ssize_t n_blocks = 0, next_block = 0, i
        cdef Fixed8Octree tree = Fixed8Octree()
        for i in range(n):
            if first[i] & BRANCH_FLAG:
                n_blocks += 1
        if n == 0:
            return tree
        tree._reserve(n_blocks)
        if (_stream_to_fixed8(first, n, &pos, 0, tree.slots, &next_block, n_blocks, &tree.root) < 0
                or pos != n):
            raise ValueError("malformed compact node stream")
        tree._n_blocks = n_blocks
        return tree

    def walk(self, visitor, dense=False):
        """``DenseWalker(self).walk(visitor)`` if dense else ``Walker(self).walk(visitor)``."""
        _walk_python(self, visitor, dense)

    def set(self, *args, **kwargs):
        """Always raises: CompactOctree is read-only."""
        raise TypeError("CompactOctree is read-only; convert it with to_fixed8() to edit it")

    def fill(self, *args, **kwargs):
        """Always raises: CompactOctree is read-only."""
        raise TypeError("CompactOctree is read-only; convert it with to_fixed8() to edit it")

    def __reduce__(self):
        return (CompactOctree.from_dense, (self.to_dense(),))

    def __repr__(self):
        return f"CompactOctree({len(self)} nodes)"


# ---------------------------------------------------------------------------
# Fixed8

cdef int _fixed8_emit(const uint32_t* slots, Py_ssize_t n_blocks, uint32_t slot, int depth,
                      uint32_t* nodes, int n) noexcept nogil:
    """Append the compact nodes of a non-empty slot; -1 if the slots are malformed."""
    cdef Py_ssize_t block
    cdef uint32_t mask = 0, child
    cdef int i
    if n >= MAX_COMPACT_NODES:
        return -1
    if not slot & BRANCH_FLAG:
        nodes[n] = slot
        return n + 1
    block = slot & BRANCH_INDEX_MASK
    if block >= n_blocks or depth >= MAX_DEPTH:
        return -1
    for i in range(8):
        if slots[8 * block + i]:
            mask |= 1u << i
    nodes[n] = BRANCH_FLAG | mask
    n += 1
    for i in range(8):
        child = slots[8 * block + i]
        if child:
            n = _fixed8_emit(slots, n_blocks, child, depth + 1, nodes, n)
            if n < 0:
                return -1
    return n


@cython.final      # like CompactOctree: to_compact() and to_dense() are the real ones
cdef class Fixed8Octree:
    """Write-optimised octree: blocks of 8 slots edited in place.

    ``Fixed8Octree()`` is the empty chunk.  Edits (:meth:`set`, :meth:`fill`)
    keep the tree canonical (uniform branches collapse), so
    ``to_compact()`` always equals ``CompactOctree.from_dense(to_dense())``.
    ``n_blocks`` counts allocated blocks including ``n_free_blocks`` free ones;
    ``nbytes`` is their storage plus the root slot."""

    cdef uint32_t root
    cdef uint32_t* slots
    cdef Py_ssize_t _n_blocks
    cdef Py_ssize_t _capacity
    cdef Py_ssize_t _free_head
    cdef Py_ssize_t _n_free

    def __cinit__(self):
        self.root = 0
        self.slots = NULL
        self._n_blocks = 0
        self._capacity = 0
        self._free_head = -1
        self._n_free = 0

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("Fixed8Octree() takes no arguments (it is the empty chunk); "
                            "build a tree with Fixed8Octree.from_dense(array)")

    def __dealloc__(self):
        free(self.slots)

    cdef int _reserve(self, Py_ssize_t blocks) except -1:
        """Make room for `blocks` blocks in total (slots may move)."""
        cdef Py_ssize_t capacity = max(blocks, 2 * self._capacity, 8)
        cdef uint32_t* grown
        if blocks <= self._capacity:
            return 0
        grown = <uint32_t*>realloc(self.slots, capacity * 8 * sizeof(uint32_t))
        if grown == NULL:
            raise MemoryError(f"cannot allocate {capacity} octree blocks")
        self.slots = grown
        self._capacity = capacity
        return 0

    cdef Py_ssize_t _alloc_block(self, uint32_t fill) except -1:
        """A block (reused from the free list first) with its 8 slots set to `fill`."""
        cdef Py_ssize_t block
        cdef int i
        if self._free_head >= 0:
            block = self._free_head
            self._free_head = <Py_ssize_t>self.slots[8 * block] - 1
            self._n_free -= 1
        else:
            self._reserve(self._n_blocks + 1)
            block = self._n_blocks
            self._n_blocks += 1
        for i in range(8):
            self.slots[8 * block + i] = fill
        return block

    cdef void _free_block(self, Py_ssize_t block):
        self.slots[8 * block] = <uint32_t>(self._free_head + 1)
        self._free_head = block
        self._n_free += 1

    cdef void _free_subtree(self, Py_ssize_t block):
        cdef uint32_t child
        cdef int i
        for i in range(8):
            child = self.slots[8 * block + i]
            if child & BRANCH_FLAG:
                self._free_subtree(child & BRANCH_INDEX_MASK)
        self._free_block(block)

    cdef inline uint32_t _slot(self, Py_ssize_t slot_id):
        """Value of a slot: -1 is the root, else an index into the blocks."""
        return self.root if slot_id < 0 else self.slots[slot_id]

    cdef inline void _set_slot(self, Py_ssize_t slot_id, uint32_t value):
        if slot_id < 0:
            self.root = value
        else:
            self.slots[slot_id] = value

    cdef int _fill_cell(self, uint32_t code, int depth, uint32_t material) except -1:
        """Make cell (code, depth) uniformly `material`, then collapse upward."""
        cdef Py_ssize_t path[MAX_DEPTH]   # slot ids of the branches above the cell
        cdef Py_ssize_t slot_id = -1, block
        cdef uint32_t value, first
        cdef int d, i, octant
        cdef bint uniform
        for d in range(depth):
            value = self._slot(slot_id)
            if not value & BRANCH_FLAG:
                if value == material:
                    return 0  # inside a leaf (or empty cell) of that material already
                block = self._alloc_block(value)
                self._set_slot(slot_id, BRANCH_FLAG | <uint32_t>block)
            else:
                block = value & BRANCH_INDEX_MASK
            path[d] = slot_id
            octant = (code >> (3 * (depth - 1 - d))) & 7
            slot_id = 8 * block + octant
        value = self._slot(slot_id)
        if value & BRANCH_FLAG:
            self._free_subtree(value & BRANCH_INDEX_MASK)
        self._set_slot(slot_id, material)
        for d in range(depth - 1, -1, -1):
            block = self._slot(path[d]) & BRANCH_INDEX_MASK
            first = self.slots[8 * block]
            if first & BRANCH_FLAG:
                return 0
            uniform = True
            for i in range(1, 8):
                if self.slots[8 * block + i] != first:
                    uniform = False
                    break
            if not uniform:
                return 0
            self._free_block(block)
            self._set_slot(path[d], first)
        return 0

    @classmethod
    def from_dense(cls, array):
        """Tree of a (32, 32, 32) chunk (see the module doc for accepted input)."""
        chunk = _as_chunk(array)
        cdef const uint16_t[:, :, :] dense = chunk
        cdef uint32_t cells[N_CELLS]
        cdef Py_ssize_t n_branches = 0, next_block = 0, i
        cdef Fixed8Octree tree = cls.__new__(cls)
        with nogil:
            _uniform_cells(dense, cells)
            for i in range(N_CELLS):
                if cells[i] == MIXED:
                    n_branches += 1
        tree._reserve(n_branches)
        with nogil:
            tree.root = _emit_fixed8(cells, dense, 0, 0, tree.slots, &next_block)
        tree._n_blocks = next_block
        return tree

    @property
    def n_blocks(self):
        """Allocated blocks of 8 slots, free ones included."""
        return self._n_blocks

    @property
    def n_free_blocks(self):
        """Blocks on the free list, reused by the next edits that branch."""
        return self._n_free

    @property
    def nbytes(self):
        """Bytes of the allocated blocks (free ones included) plus the root slot."""
        return (self._n_blocks * 8 + 1) * sizeof(uint32_t)

    def get(self, x, y, z):
        """Material of voxel (x, y, z), 0 when empty."""
        cdef int cx = _coordinate("x", x), cy = _coordinate("y", y), cz = _coordinate("z", z)
        cdef uint32_t slot = self.root
        cdef int shift = MAX_DEPTH - 1
        while slot & BRANCH_FLAG and shift >= 0:
            slot = self.slots[8 * (slot & BRANCH_INDEX_MASK)
                              + (((cx >> shift) & 1) | (((cy >> shift) & 1) << 1)
                                 | (((cz >> shift) & 1) << 2))]
            shift -= 1
        return slot

    def set(self, x, y, z, material):
        """Set voxel (x, y, z) to `material` (0 clears it)."""
        cdef int cx = _coordinate("x", x), cy = _coordinate("y", y), cz = _coordinate("z", z)
        self._fill_cell(morton3_encode(cx, cy, cz), MAX_DEPTH, _material(material))

    def fill(self, x0, y0, z0, size, material):
        """Set the aligned cube [x0, x0+size) x [y0, ...) x [z0, ...) to
        `material` (0 clears); size is a power of two 1..32 and each origin
        coordinate a multiple of it."""
        cdef int cx = _coordinate("x0", x0), cy = _coordinate("y0", y0), cz = _coordinate("z0", z0)
        cdef int cmaterial = _material(material), edge, level = 0
        edge_value = _index("size", size)
        if edge_value not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"size must be a power of two in 1..32, got {edge_value}")
        edge = edge_value
        if cx % edge or cy % edge or cz % edge:
            raise ValueError(
                f"cube origin ({cx}, {cy}, {cz}) is not aligned to its size {edge} "
                f"(each coordinate must be a multiple of it)")
        while (1 << level) < edge:
            level += 1
        self._fill_cell(morton3_encode(cx >> level, cy >> level, cz >> level),
                        MAX_DEPTH - level, cmaterial)

    def to_dense(self):
        """The chunk as a (32, 32, 32) uint16 array."""
        out = np.zeros((CHUNK, CHUNK, CHUNK), np.uint16)
        cdef uint16_t[:, :, ::1] view = out
        fixed8_walk_c(self.slots, self._n_blocks, self.root, False, _paint_leaf, &view[0, 0, 0])
        return out

    def to_compact(self):
        """A CompactOctree of the same content."""
        cdef uint32_t* buffer
        cdef int n = 0
        cdef CompactOctree tree = CompactOctree()
        if self.root == 0:
            return tree
        buffer = <uint32_t*>malloc(MAX_COMPACT_NODES * sizeof(uint32_t))
        if buffer == NULL:
            raise MemoryError("cannot allocate the node buffer")
        try:
            n = _fixed8_emit(self.slots, self._n_blocks, self.root, 0, buffer, 0)
            if n < 0:
                raise ValueError("malformed Fixed8 octree")
            tree.nodes = _read_only_nodes(buffer, n)
        finally:
            free(buffer)
        return tree

    def walk(self, visitor, dense=False):
        """``DenseWalker(self).walk(visitor)`` if dense else ``Walker(self).walk(visitor)``."""
        _walk_python(self, visitor, dense)

    def __reduce__(self):
        # the content, not the block layout: the copy has no free blocks
        return (Fixed8Octree.from_dense, (self.to_dense(),))

    def __repr__(self):
        return f"Fixed8Octree({self._n_blocks} blocks, {self._n_free} free)"


def memory_report(dense_array):
    """Bytes of one chunk as numpy dense uint16, CompactOctree and Fixed8Octree:
    ``{"dense": ..., "compact": ..., "fixed8": ...}``."""
    chunk = _as_chunk(dense_array)
    return {"dense": chunk.nbytes,
            "compact": CompactOctree.from_dense(chunk).nbytes,
            "fixed8": Fixed8Octree.from_dense(chunk).nbytes}
