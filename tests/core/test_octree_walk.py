"""Walk events: z-order tiling, nesting, maximal cells, Compact == Fixed8."""
import numpy as np
import pytest
from chunk_strategies import SHAPE, any_chunk, walk_events
from example_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from reticulate_core import CompactOctree, DenseWalker, Fixed8Octree, Morton3, Walker
from reticulate_core.octree import _brick_walk_records, benchmark_walk
from reticulate_core.samples import SCENARIOS, scenario_chunk

walk_settings = settings(max_examples=examples(100))


def morton_ordered(chunk):
    """The chunk's voxels listed by depth-5 Morton code (bit-by-bit oracle),
    so the voxels of cell (code, depth) are the slice [start, start + 8^(5-depth))
    with start = code << 3*(5-depth)."""
    codes = np.arange(32768)
    xyz = [sum(((codes >> (3 * i + k)) & 1) << i for i in range(5)) for k in range(3)]
    return chunk[tuple(xyz)]


def uniform_values(ordered):
    """Per depth, a list over codes: the cell's value if uniform, else -1."""
    levels = []
    for depth in range(6):
        blocks = ordered.reshape(8 ** depth, -1).astype(np.int64)
        low, high = blocks.min(axis=1), blocks.max(axis=1)
        levels.append(np.where(low == high, low, -1).tolist())
    return levels


def check_walk(chunk, events, dense):
    """Nesting, z-order, exact tiling, materials and maximality of the cells."""
    uniform = uniform_values(morton_ordered(chunk))
    open_branches = []
    next_free = 0      # first voxel (in z-order) after the last leaf or empty
    covered = 0
    for kind, code, depth, material in events:
        assert 0 <= depth <= 5 and 0 <= code < 8 ** depth
        if kind == "end":
            assert open_branches.pop() == (code, depth)
            continue
        if open_branches:
            # every other event lies inside the innermost open branch
            parent_code, parent_depth = open_branches[-1]
            assert depth > parent_depth
            assert code >> (3 * (depth - parent_depth)) == parent_code
        else:
            assert depth == 0 and next_free == 0 and covered == 0  # one root, first
        if kind == "start":
            assert depth < 5 and uniform[depth][code] == -1
            open_branches.append((code, depth))
            continue
        assert kind == "leaf" or (kind == "empty" and dense)
        assert (kind == "leaf") == (material != 0)
        start = code << (3 * (5 - depth))
        assert start >= next_free  # z-order, no overlap
        next_free = start + 8 ** (5 - depth)
        covered += 8 ** (5 - depth)
        assert uniform[depth][code] == material
        if depth > 0:
            assert uniform[depth - 1][code >> 3] != material  # maximal cell
    assert not open_branches
    assert covered == (32768 if dense else np.count_nonzero(chunk))


@walk_settings
@given(any_chunk)
def test_walks_tile_the_chunk_in_z_order(chunk):
    compact = CompactOctree.from_dense(chunk)
    for dense in (False, True):
        check_walk(chunk, walk_events(compact, dense), dense)


@walk_settings
@given(any_chunk)
def test_walker_and_dense_walker_agree_and_fixed8_matches_compact(chunk):
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    sparse = walk_events(compact, False)
    dense = walk_events(compact, True)
    assert sparse == [e for e in dense if e[0] != "empty"]
    assert walk_events(fixed8, False) == sparse
    assert walk_events(fixed8, True) == dense


@walk_settings
@given(any_chunk)
def test_the_brick_walk_is_the_dense_walk_of_cells_with_last_level_branches_whole(chunk):
    """compact_walk_bricks_c (the mesher's walk): the dense walk's cells, each
    depth-4 branch arriving as one brick of eight voxels in octant order, and
    no branch events."""
    kinds = ("start", "leaf", "empty", "end")
    compact = CompactOctree.from_dense(chunk)
    bricks = [(kinds[e], code, depth, m) for e, code, depth, m in _brick_walk_records(compact)]
    dense = walk_events(compact, True)
    assert bricks == [e for e in dense if e[0] in ("leaf", "empty")]


@settings(max_examples=examples(60))
@given(any_chunk, st.lists(st.tuples(st.integers(0, 31), st.integers(0, 31), st.integers(0, 31),
                                     st.sampled_from([0, 1, 65535])), max_size=30))
def test_edited_fixed8_walks_like_compact(chunk, points):
    fixed8 = Fixed8Octree.from_dense(chunk)
    chunk = chunk.copy()
    for x, y, z, material in points:
        fixed8.set(x, y, z, material)
        chunk[x, y, z] = material
    compact = CompactOctree.from_dense(chunk)
    for dense in (False, True):
        events = walk_events(fixed8, dense)
        assert events == walk_events(compact, dense)
        check_walk(chunk, events, dense)


@pytest.mark.parametrize("cls", [CompactOctree, Fixed8Octree])
def test_empty_and_root_leaf_walks(cls):
    empty = cls.from_dense(np.zeros(SHAPE, np.uint16))
    assert walk_events(empty, False) == []
    assert walk_events(empty, True) == [("empty", 0, 0, 0)]
    full = cls.from_dense(np.full(SHAPE, 65535, np.uint16))
    assert walk_events(full, False) == walk_events(full, True) == [("leaf", 0, 0, 65535)]


def test_walker_classes_match_the_walk_method_and_pass_morton3_codes():
    tree = CompactOctree.from_dense(scenario_chunk("sphere"))
    leaves = []

    class LeavesOnly:  # the other methods are missing: they are skipped
        def on_leaf(self, code, material):
            leaves.append((code, material))

    Walker(tree).walk(LeavesOnly())
    assert all(isinstance(code, Morton3) for code, _ in leaves)
    expected = [(Morton3(c, d), m) for kind, c, d, m in walk_events(tree, False) if kind == "leaf"]
    assert leaves == expected

    class Counter:
        def __init__(self):
            self.empties = 0

        def on_empty(self, code):
            self.empties += 1

    counter = Counter()
    DenseWalker(tree).walk(counter)
    assert counter.empties == sum(1 for e in walk_events(tree, True) if e[0] == "empty") > 0
    Walker(tree).walk(counter)
    Walker(tree).walk(object())  # nothing to call
    assert counter.empties == sum(1 for e in walk_events(tree, True) if e[0] == "empty")


def test_walkers_reject_other_objects():
    for walker in (Walker, DenseWalker):
        with pytest.raises(TypeError, match="CompactOctree or Fixed8Octree"):
            walker(np.zeros(SHAPE, np.uint16))
    with pytest.raises(TypeError, match="CompactOctree or Fixed8Octree"):
        benchmark_walk("tree", 1)


@pytest.mark.parametrize("name", SCENARIOS)
def test_benchmark_walk_times_both_variants(name):
    chunk = scenario_chunk(name)
    for tree in (CompactOctree.from_dense(chunk), Fixed8Octree.from_dense(chunk)):
        for dense in (False, True):
            seconds = benchmark_walk(tree, 3, dense)
            assert 0 < seconds < 1
    with pytest.raises(ValueError, match="repeats"):
        benchmark_walk(CompactOctree(), 0)


def test_the_walk_check_rejects_broken_sequences():
    chunk = scenario_chunk("multi_terrain")
    events = walk_events(CompactOctree.from_dense(chunk), True)
    check_walk(chunk, events, True)
    leaves = [i for i, e in enumerate(events) if e[0] == "leaf"]
    swapped = list(events)
    swapped[leaves[0]], swapped[leaves[1]] = swapped[leaves[1]], swapped[leaves[0]]
    recoloured = list(events)
    kind, code, depth, material = events[leaves[-1]]
    recoloured[leaves[-1]] = (kind, code, depth, material % 4 + 1)
    for broken in (events[:-1], events[:leaves[2]] + events[leaves[2] + 1:], swapped, recoloured):
        with pytest.raises(AssertionError):
            check_walk(chunk, broken, True)
