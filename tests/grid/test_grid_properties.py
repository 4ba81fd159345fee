"""Guarantees 1-4 of ``reticulate_core.mesh_grid`` across chunk seams, checked by the
independent checker ``meshcheck`` on awkward grid sizes with structures on the
chunk borders, edges and corners.

Per grid: exact cover and watertight without T-junctions over the whole
grid, the minimum taken per chunk (regions cut at the seams, ``seams=32``;
within 2% for several materials), positions within the grid's corner box,
``workers=1`` and ``workers=2`` giving identical arrays, and meshing twice
giving identical arrays.  ``manifold=True`` output is still an exact,
watertight cover (by position; positions may then repeat) in which every
edge is used by exactly two triangles.
"""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from example_budget import examples
import meshcheck as mc
import reticulate_core as rc
import voxel_strategies as vs

MULTI_MATERIAL_EXCESS = 0.02
SHAPES = st.sampled_from(vs.AWKWARD_SHAPES)
SMALL_SHAPES = st.sampled_from([s for s in vs.AWKWARD_SHAPES if np.prod(s) <= 33 ** 3])
# Kinds whose surfaces stay small on the largest shapes (the checker is numpy, not Cython).
SPARSE_KINDS = ("seam_structures", "spheres", "terrain", "thin_walls", "border_voxels", "pinches",
                "plates_with_holes", "staircase", "boxes", "union")
DENSE_KINDS = ("density", "caves", "checkerboard")
SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "vox"


def same_arrays(a, b):
    return all(np.array_equal(getattr(a, name), getattr(b, name)) and
               getattr(a, name).dtype == getattr(b, name).dtype
               for name in ("positions", "triangles", "materials", "faces"))


def check_grid_mesh(grid, mesh, max_excess):
    positions = np.asarray(mesh.positions)
    if len(positions):
        assert positions.min() >= 0 and (positions.max(axis=0) <= grid.shape).all(), \
            "positions outside the grid's corner box"
    return mc.check_mesh(grid, mesh, seams=vs.CHUNK, max_excess=max_excess)


def check_grid(description, grid):
    max_excess = MULTI_MATERIAL_EXCESS if len(np.unique(grid[grid != 0])) > 1 else 0.0
    mesh = rc.mesh_grid(grid, workers=1)
    assert same_arrays(mesh, rc.mesh_grid(grid, workers=2)), f"workers=1 and workers=2 differ on {description}"
    assert same_arrays(mesh, rc.mesh_grid(grid, workers=1)), f"mesh_grid is not deterministic on {description}"
    try:
        check_grid_mesh(grid, mesh, max_excess)
    except AssertionError as error:
        def fails(g):
            try:
                check_grid_mesh(g, rc.mesh_grid(g, workers=1), max_excess)
            except AssertionError:
                return True
            return False
        small = mc.shrink_failing_grid(grid, fails, budget=200)
        raise AssertionError(f"mesh_grid on {description}: {error}\nshrunk to:\n{mc.grid_literal(small)}") from None


@settings(max_examples=examples(150))
@given(vs.grids(shapes=SHAPES, kinds=("seam_structures",), materials=(1, 3)))
def test_structures_across_seams(example):
    check_grid(*example)


@settings(max_examples=examples(100))
@given(vs.grids(shapes=SHAPES, kinds=SPARSE_KINDS, materials=(1, 4)))
def test_structured_grids_of_awkward_sizes(example):
    check_grid(*example)


@settings(max_examples=examples(40))
@given(vs.grids(shapes=SMALL_SHAPES, kinds=DENSE_KINDS, materials=(1, 4)))
def test_dense_grids_of_awkward_sizes(example):
    check_grid(*example)


@settings(max_examples=examples(40))
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([(31, 31, 31), (32, 33, 32), (34, 34, 34)]))
def test_voxels_on_every_chunk_corner_and_edge(seed, shape):
    # Voxels on the lattice lines and points where 2, 4 or 8 chunks meet (coordinates 31/32):
    # every seam edge and corner, with edge-only and corner-only contacts across them.
    rng = np.random.default_rng(seed)
    grid = np.zeros(shape, np.uint16)
    near = [c for c in (30, 31, 32, 33) if c < min(shape)]
    for _ in range(rng.integers(1, 20)):
        grid[tuple(int(rng.choice(near)) for _ in range(3))] = rng.integers(1, 3)
    check_grid(f"seed {seed}, shape {shape}", grid)


def check_manifold_output(description, grid):
    mesh = rc.mesh_grid(grid, manifold=True)
    try:
        mc.check_exact_cover(grid, mesh)
        mc.check_watertight(mesh, allow_duplicate_positions=True)
        mc.check_manifold(mesh)
    except AssertionError as error:
        raise AssertionError(f"mesh_grid(manifold=True) on {description}: {error}") from None
    assert same_arrays(mesh, rc.mesh_grid(grid, manifold=True)), f"manifold output not deterministic on {description}"


@settings(max_examples=examples(60))
@given(vs.grids(shapes=SHAPES, kinds=("pinches", "seam_structures", "border_voxels", "plates_with_holes"),
                materials=(1, 3)))
def test_manifold_output_uses_every_edge_twice(example):
    check_manifold_output(*example)


@settings(max_examples=examples(8))
@given(vs.grids(shapes=st.sampled_from([(33, 33, 33), (31, 32, 33), (100, 3, 3)]), kinds=("checkerboard",),
                materials=(1, 2)))
def test_manifold_output_of_checkerboards(example):
    check_manifold_output(*example)


def test_edge_and_corner_contacts_across_seams_are_split_by_manifold():
    # Two voxels meeting only along the seam edge x=y=32, and two meeting only at the
    # seam corner (32,32,32): welded, those edges are used by four triangles.
    grid = np.zeros((64, 64, 64), np.uint16)
    grid[31, 31, 10] = grid[32, 32, 10] = 1
    grid[31, 31, 31] = grid[32, 32, 32] = 2
    check_grid("seam pinches", grid)
    check_manifold_output("seam pinches", grid)
    welded = rc.mesh_grid(grid)
    try:
        mc.check_manifold(welded)
    except AssertionError:
        return
    raise AssertionError("the welded mesh of an edge contact cannot be manifold; check_manifold missed it")


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.vox")))
def test_sample_models(name):
    # Real MagicaVoxel models (up to 256x256x64, up to 255 materials).
    for index, model in enumerate(rc.io.read_vox(SAMPLES / name).models):
        check_grid(f"{name} model {index}", model.voxels)


def test_every_binary_two_by_two_by_two_pattern_around_the_seam_corner():
    # All 256 occupancy patterns of the 2x2x2 block at (31..32)^3, one voxel in each of
    # the eight chunks that meet at the point (32, 32, 32).
    for bits in range(256):
        grid = np.zeros((34, 34, 34), np.uint16)
        grid[31:33, 31:33, 31:33] = (bits >> np.arange(8).reshape(2, 2, 2)) & 1
        check_grid(f"2x2x2 pattern {bits} at (31, 31, 31)", grid)
        if bits % 16 == 0:
            check_manifold_output(f"2x2x2 pattern {bits} at (31, 31, 31)", grid)
