"""The Mesh container: it holds a mesh or raises, before any cast could hide bad data."""
import numpy as np
import pytest
from hypothesis import given, settings

import reticulate_core as rc
import voxel_strategies as vs
from example_budget import examples

SQUARE = dict(positions=np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32),
              triangles=np.array([[0, 1, 2], [0, 2, 3]]), materials=np.array([7, 7]),
              faces=np.array([5, 5]))


def test_mesh_converts_to_its_dtypes():
    mesh = rc.Mesh(**SQUARE)
    assert (mesh.positions.dtype, mesh.triangles.dtype, mesh.materials.dtype, mesh.faces.dtype) == \
        (np.float32, np.int32, np.uint16, np.uint8)
    assert mesh.triangles.tolist() == [[0, 1, 2], [0, 2, 3]]
    assert mesh.materials.tolist() == [7, 7] and mesh.faces.tolist() == [5, 5]
    empty = rc.Mesh.empty()
    assert empty.positions.shape == (0, 3) and empty.triangles.shape == (0, 3)
    assert empty.materials.shape == empty.faces.shape == (0,)


@pytest.mark.parametrize("change, error, message", [
    (dict(positions=np.zeros((6, 2))), ValueError, r"positions must have shape \(n, 3\), got \(6, 2\)"),
    (dict(triangles=np.array([0, 1, 2, 0, 2, 3])), ValueError, r"triangles must have shape \(n, 3\)"),
    (dict(triangles=np.array([[0, 1, 2], [0, 2, 4]])), ValueError, "outside the vertex indices 0..3"),
    (dict(triangles=np.array([[0, 1, 2], [0, 2, -1]])), ValueError, "outside the vertex indices 0..3"),
    (dict(triangles=np.array([[0, 1, 2], [0, 2, 2 ** 32 + 3]])), ValueError, "outside the vertex indices"),
    (dict(triangles=np.array([[0, 1, 2], [0, 2, 3.0]])), TypeError, "triangles must be integers"),
    (dict(materials=np.array([7, 65536])), ValueError, "outside the material ids 0..65535"),
    (dict(materials=np.array([7, -1])), ValueError, "outside the material ids 0..65535"),
    (dict(faces=np.array([5, 6])), ValueError, "outside the face codes 0..5"),
    (dict(materials=np.array([7])), ValueError, r"2 triangles but materials of shape \(1,\)"),
    (dict(faces=np.array([[5, 5]])), ValueError, r"faces of shape \(1, 2\)"),
    (dict(positions=np.array([[0, 0, 0], [1, 0, 0], [1, 1, np.nan], [0, 1, 0]])), ValueError, "finite"),
    (dict(positions=np.array([[0, 0, 0], [1, 0, 0], [1, 1, 1e40], [0, 1, 0]])), ValueError, "finite"),
])
def test_mesh_rejects_what_is_not_a_mesh(change, error, message):
    with pytest.raises(error, match=message):
        rc.Mesh(**(SQUARE | change))


@settings(max_examples=examples(60))
@given(vs.grids(kinds=("spheres", "terrain", "density", "pinches"), materials=(1, 4)))
def test_mesh_takes_every_mesher_output_unchanged(example):
    _, grid = example
    made = rc.mesh_chunk(grid)
    again = rc.Mesh(made.positions, made.triangles, made.materials, made.faces)
    for name in ("positions", "triangles", "materials", "faces"):
        assert np.array_equal(getattr(again, name), getattr(made, name))
        assert getattr(again, name).dtype == getattr(made, name).dtype
