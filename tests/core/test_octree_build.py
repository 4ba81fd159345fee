"""Building octrees from dense chunks, conversions, queries and bad input."""
import pickle

import numpy as np
import pytest
from chunk_strategies import SHAPE, any_chunk, blocky_chunks, noise_chunks, reference_stream
from example_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from reticulate_core import CompactOctree, Fixed8Octree, memory_report
from reticulate_core.samples import SCENARIOS, scenario_chunk

BRANCH = 0x80000000
chunk_settings = settings(max_examples=examples(150))


@chunk_settings
@given(any_chunk)
def test_round_trips_and_conversions(chunk):
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    for dense in (compact.to_dense(), fixed8.to_dense(), compact.to_fixed8().to_dense(),
                  fixed8.to_compact().to_dense()):
        assert dense.dtype == np.uint16 and dense.shape == SHAPE
        np.testing.assert_array_equal(dense, chunk)
    np.testing.assert_array_equal(fixed8.to_compact().nodes, compact.nodes)
    np.testing.assert_array_equal(compact.to_fixed8().to_compact().nodes, compact.nodes)
    np.testing.assert_array_equal(CompactOctree.from_dense(compact.to_dense()).nodes, compact.nodes)


@settings(max_examples=examples(40))
@given(st.one_of(blocky_chunks(), noise_chunks()))
def test_stream_is_the_canonical_one(chunk):
    compact = CompactOctree.from_dense(chunk)
    assert compact.nodes.dtype == np.uint32
    np.testing.assert_array_equal(compact.nodes, reference_stream(chunk))
    assert len(compact) == compact.nodes.shape[0]
    assert compact.nbytes == 4 * len(compact)


@chunk_settings
@given(any_chunk)
def test_fixed8_from_dense_allocates_one_block_per_branch(chunk):
    fixed8 = Fixed8Octree.from_dense(chunk)
    branches = int(np.count_nonzero(CompactOctree.from_dense(chunk).nodes & BRANCH))
    assert fixed8.n_blocks == branches
    assert fixed8.n_free_blocks == 0
    assert fixed8.nbytes == 4 * (8 * branches + 1)


@chunk_settings
@given(any_chunk, st.lists(st.tuples(*[st.integers(0, 31)] * 3), min_size=1, max_size=20))
def test_get_matches_dense(chunk, points):
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    for x, y, z in points:
        assert compact.get(x, y, z) == chunk[x, y, z]
        assert fixed8.get(x, y, z) == chunk[x, y, z]


def test_get_every_voxel_of_a_scenario():
    chunk = scenario_chunk("multi_terrain", seed=3)
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    for x in range(32):
        for y in range(0, 32, 3):
            for z in range(32):
                assert compact.get(x, y, z) == fixed8.get(x, y, z) == chunk[x, y, z]


@pytest.mark.parametrize("cls", [CompactOctree, Fixed8Octree])
@pytest.mark.parametrize("args, kwargs", [((np.ones((32, 32, 32), np.uint16),), {}), ((1, 2, 3), {}),
                                          ((), {"array": np.ones((32, 32, 32), np.uint16)})])
def test_constructor_takes_no_arguments(cls, args, kwargs):
    with pytest.raises(TypeError, match=r"takes no arguments.*from_dense"):
        cls(*args, **kwargs)


def test_empty_and_uniform_chunks():
    empty = CompactOctree.from_dense(np.zeros(SHAPE, np.uint16))
    assert len(empty) == 0 and empty.nbytes == 0
    assert len(CompactOctree()) == 0
    np.testing.assert_array_equal(Fixed8Octree().to_dense(), np.zeros(SHAPE))
    full = CompactOctree.from_dense(np.full(SHAPE, 65535, np.uint16))
    assert full.nodes.tolist() == [65535]
    fixed8 = Fixed8Octree.from_dense(np.full(SHAPE, 9, np.uint16))
    assert fixed8.n_blocks == 0 and fixed8.nbytes == 4 and fixed8.get(31, 0, 5) == 9


def test_single_voxel_is_a_chain_of_branches():
    chunk = np.zeros(SHAPE, np.uint16)
    chunk[31, 0, 31] = 7
    # octant of (31, 0, 31) at every level: x=1, y=0, z=1 -> 0b101
    assert CompactOctree.from_dense(chunk).nodes.tolist() == [BRANCH | 0b100000] * 5 + [7]


def test_nodes_are_read_only():
    compact = CompactOctree.from_dense(scenario_chunk("sphere"))
    with pytest.raises(ValueError):
        compact.nodes[0] = 1
    with pytest.raises(ValueError):
        compact.nodes.flags.writeable = True
    with pytest.raises(AttributeError):
        compact.nodes = np.zeros(1, np.uint32)


@pytest.mark.parametrize("cls", [CompactOctree, Fixed8Octree])
def test_trees_pickle_by_content(cls):
    chunk = scenario_chunk("multi_terrain")
    tree = cls.from_dense(chunk)
    copy = pickle.loads(pickle.dumps(tree))
    assert type(copy) is cls
    np.testing.assert_array_equal(copy.to_dense(), chunk)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenarios_round_trip_and_memory_report(name):
    chunk = scenario_chunk(name)
    report = memory_report(chunk)
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    assert report == {"dense": 65536, "compact": compact.nbytes, "fixed8": fixed8.nbytes}
    np.testing.assert_array_equal(compact.to_dense(), chunk)
    np.testing.assert_array_equal(fixed8.to_dense(), chunk)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.uint32, np.int64,
                                   np.uint64])
def test_any_integer_dtype_is_accepted(dtype):
    chunk = scenario_chunk("multi_terrain").astype(dtype)
    for cls in (CompactOctree, Fixed8Octree):
        np.testing.assert_array_equal(cls.from_dense(chunk).to_dense(), chunk)


def test_bool_chunks_are_material_one():
    solid = scenario_chunk("sphere") > 0
    for cls in (CompactOctree, Fixed8Octree):
        dense = cls.from_dense(solid).to_dense()
        assert dense.dtype == np.uint16
        np.testing.assert_array_equal(dense, solid.astype(np.uint16))


def test_strided_and_list_input():
    chunk = scenario_chunk("terrain")
    transposed = np.ascontiguousarray(chunk.transpose(2, 1, 0)).transpose(2, 1, 0)
    assert not transposed.flags.c_contiguous
    np.testing.assert_array_equal(CompactOctree.from_dense(transposed).to_dense(), chunk)
    np.testing.assert_array_equal(Fixed8Octree.from_dense(chunk[:, ::-1, :]).to_dense(),
                                  chunk[:, ::-1, :])
    np.testing.assert_array_equal(CompactOctree.from_dense(chunk.tolist()).to_dense(), chunk)


@pytest.mark.parametrize("build", [CompactOctree.from_dense, Fixed8Octree.from_dense,
                                   memory_report])
def test_bad_dense_input(build):
    with pytest.raises(ValueError, match=r"shape \(32, 32, 32\), got \(32, 32\)"):
        build(np.zeros((32, 32), np.uint16))
    with pytest.raises(ValueError, match=r"got \(32, 32, 33\)"):
        build(np.zeros((32, 32, 33), np.uint16))
    with pytest.raises(ValueError, match="shape"):
        build(np.zeros((32, 32, 32, 1), np.uint16))
    with pytest.raises(TypeError, match="integer type.*float64"):
        build(np.zeros(SHAPE, np.float64))
    with pytest.raises(TypeError, match="integer type"):
        build(np.zeros(SHAPE, np.complex64))
    with pytest.raises(TypeError, match="integer type"):
        build(np.zeros(SHAPE, object))
    negative = np.zeros(SHAPE, np.int32)
    negative[1, 2, 3] = -4
    with pytest.raises(ValueError, match=r"0..65535, got -4 at \(1, 2, 3\)"):
        build(negative)
    too_big = np.zeros(SHAPE, np.int64)
    too_big[5, 0, 31] = 65536
    with pytest.raises(ValueError, match=r"got 65536 at \(5, 0, 31\)"):
        build(too_big)


@pytest.mark.parametrize("cls", [CompactOctree, Fixed8Octree])
def test_get_rejects_bad_coordinates(cls):
    tree = cls.from_dense(scenario_chunk("full"))
    with pytest.raises(ValueError, match="x=32 is outside the chunk"):
        tree.get(32, 0, 0)
    with pytest.raises(ValueError, match="z=-1 is outside the chunk"):
        tree.get(0, 0, -1)
    with pytest.raises(ValueError, match="outside the chunk"):
        tree.get(0, 2**70, 0)
    with pytest.raises(TypeError, match="y must be an integer, got float"):
        tree.get(0, 1.0, 0)


def test_compact_octree_is_read_only():
    compact = CompactOctree.from_dense(scenario_chunk("terrain"))
    before = compact.nodes.copy()
    with pytest.raises(TypeError, match="CompactOctree is read-only.*to_fixed8"):
        compact.set(0, 0, 0, 1)
    with pytest.raises(TypeError, match="CompactOctree is read-only.*to_fixed8"):
        compact.fill(0, 0, 0, 32, 0)
    np.testing.assert_array_equal(compact.nodes, before)


@pytest.mark.parametrize("tree_class", [CompactOctree, Fixed8Octree])
def test_octree_classes_cannot_be_subclassed(tree_class):
    """The mesher reads a tree's nodes and dense copy without bounds checks, so
    no subclass may stand in its own (a (2, 2, 2) to_dense() read past its buffer)."""
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Stand_in", (tree_class,), {"to_dense": lambda self: np.ones((2, 2, 2), np.uint16)})
