"""Fixed8 edits against the same edits on a numpy array."""
import numpy as np
import pytest
from chunk_strategies import SHAPE, TOP_MATERIAL, blocky_chunks, structured_chunks
from example_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from reticulate_core import CompactOctree, Fixed8Octree
from reticulate_core.samples import scenario_chunk

BRANCH = 0x80000000
materials = st.sampled_from([0, 0, 1, 2, TOP_MATERIAL])


@st.composite
def edits(draw):
    """("set", x, y, z, material) or ("fill", x0, y0, z0, size, material)."""
    if draw(st.booleans()):
        return ("set", *(draw(st.integers(0, 31)) for _ in range(3)), draw(materials))
    size = 1 << draw(st.integers(0, 5))
    origin = [draw(st.integers(0, 32 // size - 1)) * size for _ in range(3)]
    return ("fill", *origin, size, draw(materials))


def apply_to_array(chunk, edit):
    if edit[0] == "set":
        _, x, y, z, material = edit
        chunk[x, y, z] = material
    else:
        _, x, y, z, size, material = edit
        chunk[x:x + size, y:y + size, z:z + size] = material


def apply_to_tree(tree, edit):
    getattr(tree, edit[0])(*edit[1:])


def live_blocks(tree):
    return tree.n_blocks - tree.n_free_blocks


def check_canonical(tree, chunk):
    np.testing.assert_array_equal(tree.to_dense(), chunk)
    expected = CompactOctree.from_dense(chunk).nodes
    np.testing.assert_array_equal(tree.to_compact().nodes, expected)
    assert live_blocks(tree) == np.count_nonzero(expected & BRANCH)
    assert tree.nbytes == 4 * (8 * tree.n_blocks + 1)


start_chunks = st.one_of(st.just(np.zeros(SHAPE, np.uint16)), blocky_chunks(), structured_chunks())


@settings(max_examples=examples(200))
@given(start_chunks, st.lists(edits(), min_size=1, max_size=40))
def test_edit_sequences_match_numpy_and_stay_canonical(start, sequence):
    chunk = start.copy()
    tree = Fixed8Octree.from_dense(chunk)
    for i, edit in enumerate(sequence):
        apply_to_array(chunk, edit)
        apply_to_tree(tree, edit)
        x, y, z = edit[1:4]
        assert tree.get(x, y, z) == chunk[x, y, z]
        if i % 8 == 7:
            check_canonical(tree, chunk)
    check_canonical(tree, chunk)


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(st.integers(0, 31), st.integers(0, 31), st.integers(0, 31)),
                min_size=1, max_size=60), st.sampled_from([1, 3, TOP_MATERIAL]))
def test_setting_voxels_then_clearing_them_returns_to_empty(points, material):
    tree = Fixed8Octree()
    chunk = np.zeros(SHAPE, np.uint16)
    for x, y, z in points:
        tree.set(x, y, z, material)
        chunk[x, y, z] = material
    check_canonical(tree, chunk)
    for x, y, z in points:
        tree.set(x, y, z, 0)
    assert len(tree.to_compact()) == 0
    assert live_blocks(tree) == 0


def test_eight_equal_voxels_collapse_to_one_leaf():
    tree = Fixed8Octree()
    for octant in range(8):
        tree.set(2 + (octant & 1), 4 + ((octant >> 1) & 1), 6 + ((octant >> 2) & 1), 5)
    chunk = np.zeros(SHAPE, np.uint16)
    chunk[2:4, 4:6, 6:8] = 5
    check_canonical(tree, chunk)
    # 4 branches above the depth-4 leaf; the depth-4 block was collapsed
    assert live_blocks(tree) == 4


def test_filling_the_whole_chunk_frees_every_block():
    tree = Fixed8Octree.from_dense(scenario_chunk("noise"))
    blocks = tree.n_blocks
    tree.fill(0, 0, 0, 32, 3)
    assert tree.to_compact().nodes.tolist() == [3]
    assert tree.n_blocks == blocks and tree.n_free_blocks == blocks
    tree.fill(16, 16, 16, 16, 0)
    assert tree.get(16, 16, 16) == 0 and tree.get(15, 15, 15) == 3
    assert tree.n_blocks == blocks  # the new root block came from the free list


def test_freed_blocks_are_reused():
    tree = Fixed8Octree()
    tree.set(0, 0, 0, 1)
    assert tree.n_blocks == 5
    tree.set(0, 0, 0, 0)
    assert tree.n_free_blocks == 5
    for x in range(0, 32, 3):
        tree.set(x, 31 - x, 7, 2)
        tree.set(x, 31 - x, 7, 0)
    assert tree.n_blocks == 5
    tree.set(31, 31, 31, 4)
    tree.set(0, 0, 0, 4)
    assert tree.n_blocks == 9 and tree.n_free_blocks == 0


def test_editing_a_conversion_leaves_the_original_alone():
    compact = CompactOctree.from_dense(scenario_chunk("sphere"))
    before = compact.nodes.copy()
    fixed8 = compact.to_fixed8()
    fixed8.fill(0, 0, 0, 16, 9)
    np.testing.assert_array_equal(compact.nodes, before)
    back = fixed8.to_compact()
    fixed8.set(31, 31, 31, 2)
    assert back.get(31, 31, 31) == 0 and fixed8.get(31, 31, 31) == 2


@pytest.mark.parametrize("call, error, message", [
    (lambda t: t.set(32, 0, 0, 1), ValueError, "x=32 is outside the chunk"),
    (lambda t: t.set(0, -1, 0, 1), ValueError, "y=-1 is outside the chunk"),
    (lambda t: t.set(0, 0, 0, 65536), ValueError, "material must be in 0..65535"),
    (lambda t: t.set(0, 0, 0, -1), ValueError, "material must be in 0..65535"),
    (lambda t: t.set(0, 0, 0, 1.5), TypeError, "material must be an integer"),
    (lambda t: t.set(0, 0, 2.0, 1), TypeError, "z must be an integer"),
    (lambda t: t.fill(0, 0, 0, 3, 1), ValueError, "power of two in 1..32, got 3"),
    (lambda t: t.fill(0, 0, 0, 0, 1), ValueError, "power of two"),
    (lambda t: t.fill(0, 0, 0, 64, 1), ValueError, "power of two"),
    (lambda t: t.fill(4, 0, 0, 8, 1), ValueError, r"origin \(4, 0, 0\) is not aligned to its size 8"),
    (lambda t: t.fill(0, 0, 30, 4, 1), ValueError, "not aligned"),
    (lambda t: t.fill(0, 32, 0, 1, 1), ValueError, "y0=32 is outside the chunk"),
    (lambda t: t.fill(0, 0, 0, 32, 70000), ValueError, "material must be in 0..65535"),
])
def test_bad_edits_raise_and_change_nothing(call, error, message):
    chunk = scenario_chunk("terrain")
    tree = Fixed8Octree.from_dense(chunk)
    with pytest.raises(error, match=message):
        call(tree)
    check_canonical(tree, chunk)
