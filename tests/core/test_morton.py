"""Morton3 / Morton2 codes against a bit-by-bit interleaving oracle."""
import itertools
import pickle

import numpy as np
import pytest
from example_budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from reticulate_core import Morton2, Morton3
from reticulate_core.morton import morton3_decode_array, morton3_encode_array


def interleave(coordinates, depth):
    """Oracle: bit i of coordinate k goes to bit len(coordinates)*i + k."""
    n = len(coordinates)
    return sum(((c >> i) & 1) << (n * i + k)
               for i in range(depth) for k, c in enumerate(coordinates))


@pytest.mark.parametrize("depth", range(6))
def test_morton3_every_coordinate_at_every_depth(depth):
    side = 1 << depth
    seen = set()
    for x, y, z in itertools.product(range(side), repeat=3):
        m = Morton3.encode(x, y, z, depth)
        assert m.code == interleave((x, y, z), depth)
        assert m.depth == depth
        assert m.decode() == (x, y, z)
        assert m.size == 32 >> depth
        assert m.voxel_origin() == (x * m.size, y * m.size, z * m.size)
        seen.add(m.code)
    assert seen == set(range(side ** 3))


@pytest.mark.parametrize("depth", range(6))
def test_morton2_every_coordinate_at_every_depth(depth):
    side = 1 << depth
    seen = set()
    for u, v in itertools.product(range(side), repeat=2):
        m = Morton2.encode(u, v, depth)
        assert m.code == interleave((u, v), depth)
        assert m.decode() == (u, v)
        assert m.voxel_origin() == (u * m.size, v * m.size)
        seen.add(m.code)
    assert seen == set(range(side ** 2))


def test_array_functions_round_trip_every_voxel():
    x, y, z = np.meshgrid(np.arange(32), np.arange(32), np.arange(32), indexing="ij")
    codes = morton3_encode_array(x, y, z)
    assert codes.dtype == np.uint32 and codes.shape == (32, 32, 32)
    expected = np.zeros_like(codes)
    for i in range(5):
        for k, c in enumerate((x, y, z)):
            expected |= (((c >> i) & 1) << (3 * i + k)).astype(np.uint32)
    np.testing.assert_array_equal(codes, expected)
    dx, dy, dz = morton3_decode_array(codes)
    for decoded, original in ((dx, x), (dy, y), (dz, z)):
        assert decoded.dtype == np.uint32
        np.testing.assert_array_equal(decoded, original)
    assert sorted(codes.ravel().tolist()) == list(range(32768))


def test_array_functions_broadcast_and_agree_with_class():
    codes = morton3_encode_array(np.arange(32)[:, None], 5, np.arange(32)[None, :])
    assert codes.shape == (32, 32)
    assert codes[3, 7] == Morton3.encode(3, 5, 7).code


def test_array_functions_reject_bad_input():
    with pytest.raises(ValueError, match="0..31"):
        morton3_encode_array([32], [0], [0])
    with pytest.raises(ValueError, match="0..31"):
        morton3_encode_array([0], [-1], [0])
    with pytest.raises(TypeError, match="integer"):
        morton3_encode_array([0.5], [0], [0])
    with pytest.raises(ValueError, match="0..32767"):
        morton3_decode_array([32768])
    with pytest.raises(TypeError, match="integer"):
        morton3_decode_array(np.array([True]))


cells3 = st.integers(0, 5).flatmap(
    lambda d: st.builds(Morton3, st.integers(0, 8 ** d - 1), st.just(d)))
cells2 = st.integers(0, 5).flatmap(
    lambda d: st.builds(Morton2, st.integers(0, 4 ** d - 1), st.just(d)))


@given(cells3)
def test_morton3_parent_children(m):
    if m.depth < 5:
        children = m.children()
        assert len(children) == 8
        assert [c.code for c in children] == [(m.code << 3) | i for i in range(8)]
        x, y, z = m.decode()
        for i, c in enumerate(children):
            assert c.parent() == m
            assert c.depth == m.depth + 1
            assert c.decode() == (2 * x + (i & 1), 2 * y + ((i >> 1) & 1), 2 * z + ((i >> 2) & 1))
            assert m.contains(c) and not c.contains(m)
        assert children == sorted(children)
    else:
        with pytest.raises(ValueError, match="no children"):
            m.children()
    if m.depth > 0:
        assert m in m.parent().children()
    else:
        with pytest.raises(ValueError, match="no parent"):
            m.parent()


@given(cells2)
def test_morton2_parent_children(m):
    if m.depth < 5:
        children = m.children()
        assert len(children) == 4
        u, v = m.decode()
        for i, c in enumerate(children):
            assert c.parent() == m
            assert c.decode() == (2 * u + (i & 1), 2 * v + ((i >> 1) & 1))
    if m.depth > 0:
        assert m in m.parent().children()


@given(cells3, st.integers(0, 5))
def test_at_depth_is_ancestor_or_first_descendant(m, depth):
    other = m.at_depth(depth)
    assert other.depth == depth
    if depth <= m.depth:
        ancestor = m
        for _ in range(m.depth - depth):
            ancestor = ancestor.parent()
        assert other == ancestor
        assert other.contains(m)
    else:
        assert m.contains(other)
        assert other.voxel_origin() == m.voxel_origin()
        first = m
        for _ in range(depth - m.depth):
            first = first.children()[0]
        assert other == first


def range_start(m, bits):
    return m.code << (bits * (5 - m.depth))


@settings(max_examples=examples(300))
@given(cells3, cells3)
def test_morton3_ordering_is_range_start_then_depth(a, b):
    key_a, key_b = (range_start(a, 3), a.depth), (range_start(b, 3), b.depth)
    assert (a < b) == (key_a < key_b)
    assert (a <= b) == (key_a <= key_b)
    assert (a > b) == (key_a > key_b)
    assert (a >= b) == (key_a >= key_b)
    assert (a == b) == (key_a == key_b)
    if a == b:
        assert hash(a) == hash(b)


@given(cells2, cells2)
def test_morton2_ordering_is_range_start_then_depth(a, b):
    assert (a < b) == ((range_start(a, 2), a.depth) < (range_start(b, 2), b.depth))


def test_sorting_voxels_follows_the_z_order_curve():
    voxels = [Morton3.encode(x, y, z) for x, y, z in itertools.product(range(4), repeat=3)]
    ordered = sorted(voxels)
    # the first 8 voxels of the curve are the 2x2x2 block at the origin, x fastest
    assert [v.decode() for v in ordered[:8]] == [
        (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
    assert [v.code for v in ordered] == sorted(v.code for v in voxels)


def test_a_cell_sorts_before_its_descendants_and_after_earlier_cells():
    cell = Morton3.encode(1, 0, 0, depth=1)
    inside = Morton3.encode(16, 0, 0)
    before = Morton3.encode(15, 15, 15)
    assert before < cell < inside
    assert Morton3(0, 0) < Morton3(0, 1) < Morton3(0, 5)


def test_equality_hash_repr_pickle():
    m = Morton3.encode(3, 1, 2, depth=2)
    assert m == Morton3(m.code, 2)
    assert m != Morton3(m.code, 3)
    assert Morton3(0, 0) != Morton2(0, 0)
    assert len({Morton3(5, 1), Morton3(5, 1), Morton3(5, 2)}) == 2
    for value in (m, Morton2.encode(3, 2, depth=2)):
        assert eval(repr(value)) == value
        assert pickle.loads(pickle.dumps(value)) == value
    with pytest.raises(TypeError):
        Morton3(0, 0) < Morton2(0, 0)


@pytest.mark.parametrize("make, message", [
    (lambda: Morton3(0, 6), "depth must be in 0..5"),
    (lambda: Morton3(0, -1), "depth must be in 0..5"),
    (lambda: Morton3(8, 1), "more than 3 bits"),
    (lambda: Morton3(1, 0), "more than 0 bits"),
    (lambda: Morton3(-1, 2), "negative"),
    (lambda: Morton2(16, 2), "more than 4 bits"),
    (lambda: Morton3.encode(32, 0, 0), "x=32 is outside 0..31"),
    (lambda: Morton3.encode(0, 4, 0, depth=2), "y=4 is outside 0..3"),
    (lambda: Morton3.encode(0, 0, -1), "z=-1"),
    (lambda: Morton3.encode(0, 0, 0, depth=6), "depth must be in 0..5"),
    (lambda: Morton2.encode(0, 2, depth=1), "v=2 is outside 0..1"),
    (lambda: Morton3(0, 0).at_depth(6), "depth must be in 0..5"),
])
def test_bad_arguments_raise_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_non_integer_arguments_raise_type_error():
    with pytest.raises(TypeError):
        Morton3(1.0, 1)
    with pytest.raises(TypeError):
        Morton3.encode(0.5, 0, 0)
    with pytest.raises(TypeError):
        Morton3(0, "1")
