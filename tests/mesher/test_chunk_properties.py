"""Guarantees 1-4 of ``reticulate_core.mesh_chunk`` and ``Mesher.mesh_padded``, checked by
the independent checker ``meshcheck`` on thousands of generated 32^3 chunks.

Per chunk: exact cover, watertight without T-junctions, triangle count equal
to the formula's minimum (single material) or within 2% of it (several
materials; the largest excess seen is printed at the end of the module),
determinism (meshing again, and meshing a copy, gives identical arrays), and
positions unique, integer-valued and within 0..32.  The seed's double walk
(meshing the chunk's octree, or ``Mesher(walks=True)``) must give the same
triangles as the layer scan that meshes dense input.  A failure is shrunk to
a small grid and reported as a numpy literal.
"""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from example_budget import examples
import meshcheck as mc
import reticulate_core as rc
import voxel_strategies as vs

MULTI_MATERIAL_EXCESS = 0.02
STRUCTURED = tuple(k for k in vs.KINDS if k != "density")

_excess_seen = {"max": 0.0, "grid": None, "chunks": 0, "multi": 0}


@pytest.fixture(scope="module", autouse=True)
def report_excess(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None or not _excess_seen["chunks"]:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(
            f"\nmesh_chunk: {_excess_seen['chunks']} chunks checked, {_excess_seen['multi']} multi-material; "
            f"largest multi-material excess over the minimum: {_excess_seen['max']:.3%}"
            + (f" ({_excess_seen['grid']})" if _excess_seen["grid"] else ""))


def same_arrays(a, b):
    return all(np.array_equal(getattr(a, name), getattr(b, name)) and
               getattr(a, name).dtype == getattr(b, name).dtype
               for name in ("positions", "triangles", "materials", "faces"))


def assert_same_triangles(scanned, walked, what):
    assert np.array_equal(mc.oriented_triangles(scanned), mc.oriented_triangles(walked)), \
        f"the layer scan and the double walk give different triangles on {what}"


def check_chunk_mesh(grid, mesh, max_excess):
    """All guarantees of one standalone chunk mesh; returns (triangles, minimum)."""
    positions = np.asarray(mesh.positions)
    assert positions.dtype == np.float32 and mesh.triangles.dtype == np.int32
    assert mesh.materials.dtype == np.uint16 and mesh.faces.dtype == np.uint8
    if len(positions):
        assert positions.min() >= 0 and positions.max() <= 32, "positions outside 0..32"
    return mc.check_mesh(grid, mesh, minimal=True, max_excess=max_excess)


def fails_on(grid, max_excess):
    try:
        check_chunk_mesh(grid, rc.mesh_chunk(grid), max_excess)
    except AssertionError:
        return True
    return False


def allowed_excess(grid):
    """The excess over the minimum allowed on grid: 2% with several materials, else none."""
    return MULTI_MATERIAL_EXCESS if len(np.unique(grid[grid != 0])) > 1 else 0.0


def check_chunk(description, grid, max_excess=0.0):
    mesh = rc.mesh_chunk(grid)
    assert same_arrays(mesh, rc.mesh_chunk(grid)), f"mesh_chunk is not deterministic on {description}"
    assert same_arrays(mesh, rc.mesh_chunk(np.array(grid, order="F"))), \
        f"mesh_chunk depends on the memory layout of its input on {description}"
    assert_same_triangles(mesh, rc.mesh_chunk(rc.CompactOctree.from_dense(grid)), description)
    try:
        triangles, minimum = check_chunk_mesh(grid, mesh, max_excess)
    except AssertionError as error:
        small = mc.shrink_failing_grid(grid, lambda g: fails_on(g, max_excess))
        try:
            check_chunk_mesh(small, rc.mesh_chunk(small), max_excess)
            shrunk = "(shrinking lost the failure)"
        except AssertionError as small_error:
            shrunk = f"shrunk to:\n{mc.grid_literal(small)}\nwhich fails with: {small_error}"
        raise AssertionError(f"mesh_chunk on {description}: {error}\n{shrunk}") from None
    _excess_seen["chunks"] += 1
    if len(np.unique(grid[grid != 0])) > 1:
        _excess_seen["multi"] += 1
        excess = triangles / minimum - 1 if minimum else 0.0
        if excess > _excess_seen["max"]:
            _excess_seen.update(max=excess, grid=f"{description}: {triangles} vs {minimum}")


@settings(max_examples=examples(1000))
@given(vs.grids(kinds=STRUCTURED, materials=(1, 1)))
def test_single_material_structured_chunks(example):
    check_chunk(*example)


@settings(max_examples=examples(700))
@given(vs.grids(kinds=STRUCTURED, materials=(2, 8)))
def test_multi_material_structured_chunks(example):
    check_chunk(*example, max_excess=MULTI_MATERIAL_EXCESS)


@settings(max_examples=examples(60))
@given(vs.grids(kinds=("density",), materials=(1, 8)))
def test_random_density_chunks(example):
    description, grid = example
    check_chunk(description, grid, max_excess=MULTI_MATERIAL_EXCESS if description["n_materials"] > 1 else 0.0)


@settings(max_examples=examples(300))
@given(vs.small_grids(max_side=6, materials=(1, 3)), st.tuples(*[st.integers(0, 26)] * 3))
def test_small_structures_anywhere_in_the_chunk(small, offset):
    # Voxel-by-voxel drawn structures (these shrink well in hypothesis) placed
    # anywhere, including against the chunk's faces, edges and corners.
    grid = np.zeros(vs.CHUNK_SHAPE, np.uint16)
    at = tuple(slice(o, o + n) for o, n in zip(offset, small.shape))
    grid[at] = small
    check_chunk(f"small grid {small.tolist()} at {offset}", grid, max_excess=allowed_excess(grid))


def studded_on_any_axis(draw, grid, layer):
    """A plate in slab ``layer`` of axis 0 of grid with up to 12 studs beside
    it (they put points of S on its sides), turned onto a drawn axis."""
    for _ in range(draw(st.integers(0, 12))):
        x = draw(st.sampled_from([layer - 1, layer + 1]))
        y, z = draw(st.integers(0, 31)), draw(st.integers(0, 31))
        if 0 <= x < 32:
            grid[x, y, z] = draw(st.integers(1, 3))
    return np.ascontiguousarray(np.moveaxis(grid, 0, draw(st.integers(0, 2))))


@st.composite
def single_run_plates(draw):
    """A one-voxel plate whose rows are single overlapping runs (discs,
    diamonds, T and cross shapes, staircases, zigzags: faces that are
    monotone in neither sweep order (v, u) nor (v, -u), woven in an order
    chosen per row line and cut along the row lines where both ends step
    apart), on any axis, with studs above and below that put points of S
    on its sides."""
    v0 = draw(st.integers(0, 20))
    n_rows = draw(st.integers(2, 32 - v0))
    lo = draw(st.integers(0, 30))
    hi = draw(st.integers(lo + 1, 32))
    rows = [(lo, hi)]
    for _ in range(n_rows - 1):
        lo = draw(st.integers(0, hi - 1))
        hi = draw(st.integers(max(lo, rows[-1][0]) + 1, 32))
        rows.append((lo, hi))
    layer = draw(st.integers(0, 31))
    grid = np.zeros((32, 32, 32), np.uint16)
    material = draw(st.integers(1, 3))
    for v, (lo, hi) in enumerate(rows):
        grid[layer, lo:hi, v0 + v] = material
    return studded_on_any_axis(draw, grid, layer)


@settings(max_examples=examples(400))
@given(single_run_plates())
def test_plates_whose_rows_are_single_runs(grid):
    check_chunk("a plate of single-run rows", grid, max_excess=allowed_excess(grid))


@st.composite
def notched_plates(draw):
    """A one-voxel plate of rows with ragged or aligned ends, cut by
    rectangular notches and holes: faces whose rows hold several runs (U,
    comb and ring shapes), woven as pieces of single-run rows or columns
    cut along row or column lines, or traced whole when a cut would end at
    a straight side point not in S; on any axis, with studs above and below
    that put points of S on its sides."""
    v0 = draw(st.integers(0, 26))
    n_rows = draw(st.integers(3, 32 - v0))
    ragged = draw(st.integers(0, 6))
    cells = np.zeros((32, 32), bool)            # [u, v]
    for v in range(v0, v0 + n_rows):
        cells[draw(st.integers(0, ragged)):draw(st.integers(32 - ragged, 32)), v] = True
    for _ in range(draw(st.integers(1, 6))):
        u, v = draw(st.integers(0, 31)), draw(st.integers(v0, v0 + n_rows - 1))
        cells[u:u + draw(st.integers(1, 12)), v:v + draw(st.integers(1, 12))] = False
    layer = draw(st.integers(0, 31))
    grid = np.zeros((32, 32, 32), np.uint16)
    grid[layer] = cells * np.uint16(draw(st.integers(1, 3)))
    return studded_on_any_axis(draw, grid, layer)


@settings(max_examples=examples(300))
@given(notched_plates())
def test_plates_with_notches_and_holes(grid):
    check_chunk("a plate with notches and holes", grid, max_excess=allowed_excess(grid))


@st.composite
def pinched_plates(draw):
    """A plate one voxel thick of random cells (density 0.3..0.7), on any
    axis: its faces are regions with pinch points (cells touching only at a
    corner) and holes, which the monotone partition cuts by its sweep."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = np.zeros((32, 32, 32), np.uint16)
    cells = rng.random((32, 32)) < draw(st.floats(0.3, 0.7))
    grid[draw(st.integers(0, 31))] = cells * rng.integers(1, draw(st.integers(1, 3)) + 1, (32, 32))
    return np.ascontiguousarray(np.moveaxis(grid, 0, draw(st.integers(0, 2))))


@settings(max_examples=examples(200))
@given(pinched_plates())
def test_plates_with_pinch_points(grid):
    check_chunk("a plate with pinch points", grid, max_excess=allowed_excess(grid))


def test_full_and_empty_chunks():
    check_chunk("empty chunk", np.zeros(vs.CHUNK_SHAPE, np.uint16))
    check_chunk("full chunk", np.full(vs.CHUNK_SHAPE, 65535, np.uint16))
    assert len(rc.mesh_chunk(np.full(vs.CHUNK_SHAPE, 3, np.uint16)).triangles) == 12


@settings(max_examples=examples(40))
@given(st.lists(st.integers(0, 3), min_size=8, max_size=8))
def test_chunks_of_uniform_octants(octant_materials):
    # Eight 16^3 octants of materials 0..3: the walks meet cells of 16 and 32
    # voxels whose footprints differ from the plane everywhere or in part.
    grid = np.zeros(vs.CHUNK_SHAPE, np.uint16)
    for i, material in enumerate(octant_materials):
        x, y, z = (16 * ((i >> k) & 1) for k in range(3))
        grid[x:x + 16, y:y + 16, z:z + 16] = material
    materials = len(set(octant_materials) - {0})
    check_chunk(f"octants {octant_materials}", grid,
                max_excess=MULTI_MATERIAL_EXCESS if materials > 1 else 0.0)


def mutated(mesh, triangles, materials=None, faces=None, positions=None):
    return rc.Mesh(mesh.positions if positions is None else positions, triangles,
                   mesh.materials if materials is None else materials, mesh.faces if faces is None else faces)


@settings(max_examples=examples(40))
@given(vs.grids(kinds=("spheres", "terrain", "plates_with_holes", "polyomino_plates", "boxes", "staircase"),
                materials=(1, 3)), st.integers(0, 2 ** 31))
def test_checker_rejects_mutated_mesher_output(example, pick):
    # The checker on real mesher output (long slanted edges), not only on hand-made meshes.
    _, grid = example
    mesh = rc.mesh_chunk(grid)
    assume(len(mesh.triangles) > 0)
    t = pick % len(mesh.triangles)
    keep = np.arange(len(mesh.triangles)) != t
    dropped = mutated(mesh, mesh.triangles[keep], mesh.materials[keep], mesh.faces[keep])
    flipped_triangles, flipped_faces = mesh.triangles.copy(), mesh.faces.copy()
    flipped_triangles[t] = flipped_triangles[t, [0, 2, 1]]
    flipped_faces[t] ^= 1
    doubled = np.concatenate([mesh.triangles, mesh.triangles[t:t + 1]])
    recoloured = mesh.materials.copy()
    recoloured[t] = recoloured[t] % 65535 + 1
    for bad in (dropped, mutated(mesh, flipped_triangles, faces=flipped_faces),
                mutated(mesh, doubled, np.concatenate([mesh.materials, mesh.materials[t:t + 1]]),
                        np.concatenate([mesh.faces, mesh.faces[t:t + 1]])),
                mutated(mesh, mesh.triangles, materials=recoloured)):
        with pytest.raises(AssertionError):
            mc.check_exact_cover(grid, bad)
    with pytest.raises(AssertionError):
        mc.check_watertight(dropped)

    # Split one triangle at a lattice point inside one of its edges: still an exact
    # cover, but the neighbour across that edge now has a T-junction.
    corners = mesh.positions[mesh.triangles].astype(np.int64)
    lengths = np.gcd.reduce(np.abs(corners[:, [1, 2, 0]] - corners), axis=2)     # (T, 3) lattice steps
    long = np.argwhere(lengths >= 2)
    assume(len(long) > 0)
    i, k = long[pick % len(long)]
    a, b, c = (mesh.triangles[i, (k + j) % 3] for j in range(3))
    middle = corners[i, k] + (corners[i, (k + 1) % 3] - corners[i, k]) // lengths[i, k]
    m = len(mesh.positions)
    split = np.concatenate([mesh.triangles[:i], [[a, m, c], [m, b, c]], mesh.triangles[i + 1:]])
    repeat = lambda values: np.concatenate([values[:i], values[i:i + 1], values[i:]])
    t_junction = mutated(mesh, split, repeat(mesh.materials), repeat(mesh.faces),
                         np.concatenate([mesh.positions, [middle]]))
    mc.check_exact_cover(grid, t_junction)
    with pytest.raises(AssertionError):
        mc.check_watertight(t_junction)


def mesh_from_callbacks(source, to_material):
    """The seed's callback API, collected into a welded Mesh."""
    corners, materials, faces = [], [], []

    def on_triangle(triangle):
        corners.append(triangle.outward_vertices())
        materials.append(triangle.material())
        faces.append(triangle.face())

    rc.Mesher().make_triangles(source, to_material, on_triangle)
    corners = np.array(corners, np.float64).reshape(-1, 3)
    positions, index = np.unique(corners, axis=0, return_inverse=True)
    return rc.Mesh(positions, index.reshape(-1, 3), materials, faces)


@settings(max_examples=examples(80))
@given(vs.grids(kinds=STRUCTURED, materials=(1, 5)), st.sampled_from(["compact", "fixed8", "array"]),
       st.integers(0, 2 ** 16))
def test_make_triangles_callbacks(example, source, salt):
    # to_material renames the stored values and maps some of them to 0 (empty).
    description, grid = example
    values = np.unique(grid[grid != 0])
    renamed = {int(v): (0 if (int(v) + salt) % 4 == 0 else (int(v) * 7 + salt) % 65535 + 1) for v in values}
    expected = np.zeros_like(grid)
    for value, material in renamed.items():
        expected[grid == value] = material
    tree = {"compact": rc.CompactOctree.from_dense, "fixed8": rc.Fixed8Octree.from_dense,
            "array": np.asarray}[source](grid)
    mesh = mesh_from_callbacks(tree, lambda value: renamed[int(value)])
    materials = len(np.unique(expected[expected != 0]))
    try:
        mc.check_mesh(expected, mesh, max_excess=MULTI_MATERIAL_EXCESS if materials > 1 else 0.0)
    except AssertionError as error:
        raise AssertionError(f"make_triangles({source}) on {description}, to_material {renamed}: {error}") from None


# --------------------------------------------------------------------------- padded chunks

def mesh_by_padded_chunks(grid, walks=False):
    """Mesh any grid chunk by chunk with ``Mesher(walks=walks).mesh_padded``
    and weld the pieces.

    Each chunk gets one voxel of halo from its neighbours (empty outside the
    grid); it emits its upper layer along an axis only when it is the last
    chunk along that axis.
    """
    counts = [-(-n // vs.CHUNK) for n in grid.shape]
    padded = np.zeros([c * vs.CHUNK + 2 for c in counts], np.uint16)
    padded[1:grid.shape[0] + 1, 1:grid.shape[1] + 1, 1:grid.shape[2] + 1] = grid
    mesher = rc.Mesher(walks=walks)
    parts = []
    for index in np.ndindex(*counts):
        low = [i * vs.CHUNK for i in index]
        window = padded[low[0]:low[0] + 34, low[1]:low[1] + 34, low[2]:low[2] + 34]
        emit_upper = tuple(i == c - 1 for i, c in zip(index, counts))
        part = mesher.mesh_padded(np.ascontiguousarray(window), emit_upper=emit_upper)
        parts.append((np.asarray(part.positions, np.float64) + low, part))
    positions = np.concatenate([p for p, _ in parts]) if parts else np.zeros((0, 3))
    offsets = np.cumsum([0] + [len(p) for p, _ in parts[:-1]])
    triangles = np.concatenate([m.triangles + o for (_, m), o in zip(parts, offsets)])
    welded, inverse = np.unique(positions, axis=0, return_inverse=True)
    return rc.Mesh(welded, inverse.reshape(-1)[triangles],
                   np.concatenate([m.materials for _, m in parts]), np.concatenate([m.faces for _, m in parts]))


def check_padded(description, grid, max_excess):
    mesh = mesh_by_padded_chunks(grid)
    assert_same_triangles(mesh, mesh_by_padded_chunks(grid, walks=True), f"padded chunks of {description}")
    try:
        mc.check_mesh(grid, mesh, seams=vs.CHUNK, max_excess=max_excess)
    except AssertionError as error:
        def fails(g):
            try:
                mc.check_mesh(g, mesh_by_padded_chunks(g), seams=vs.CHUNK, max_excess=max_excess)
            except AssertionError:
                return True
            return False
        small = mc.shrink_failing_grid(grid, fails, budget=150)
        raise AssertionError(f"mesh_padded chunks of {description}: {error}\n"
                             f"shrunk to:\n{mc.grid_literal(small)}") from None


@settings(max_examples=examples(150))
@given(vs.grids(shapes=st.just((64, 32, 32)), kinds=tuple(vs.GRID_KINDS), materials=(1, 3)))
def test_two_padded_chunks_make_one_seamless_mesh(example):
    description, grid = example
    check_padded(description, grid, MULTI_MATERIAL_EXCESS if description["n_materials"] > 1 else 0.0)


@settings(max_examples=examples(20))
@given(vs.grids(shapes=st.just((64, 64, 64)), kinds=("seam_structures", "pinches", "boxes", "spheres",
                                                      "thin_walls", "checkerboard"), materials=(1, 2)))
def test_eight_padded_chunks_make_one_seamless_mesh(example):
    description, grid = example
    check_padded(description, grid, MULTI_MATERIAL_EXCESS if description["n_materials"] > 1 else 0.0)


def test_padded_chunk_emits_layer_zero_faces_of_halo_voxels_and_upper_layer_on_request():
    padded = np.zeros((34, 34, 34), np.uint16)
    padded[0, 1, 1] = 4                    # halo voxel below the chunk's x layer 0: its +x face is ours
    mesh = rc.Mesher().mesh_padded(padded, emit_upper=(False, False, False))
    assert sorted(map(tuple, mesh.positions.tolist())) == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
    assert mesh.faces.tolist() == [1, 1] and mesh.materials.tolist() == [4, 4]
    padded = np.zeros((34, 34, 34), np.uint16)
    padded[32, 1, 1] = 4                   # interior voxel at x=31 next to an empty halo
    plus_x = rc.Mesher().mesh_padded(padded, emit_upper=(True, False, False))
    without = rc.Mesher().mesh_padded(padded, emit_upper=(False, False, False))
    assert len(plus_x.triangles) == 12 and len(without.triangles) == 10
    assert 1 not in without.faces.tolist()


@settings(max_examples=examples(150))
@given(vs.grids(shapes=st.just((34, 34, 34)), kinds=tuple(vs.KINDS), materials=(1, 3)),
       st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_padded_chunk_covers_exactly_its_own_faces(example, emit_upper):
    # Any padded array, halo included (not necessarily consistent with any neighbour):
    # the chunk owns the faces of layers 0..31 (0..32 where emit_upper) inside its
    # 32x32 square of every plane, in chunk coordinates (padded index - 1).
    description, padded = example
    faces = mc.exposed_faces(padded)
    faces[:, [mc.LAYER, mc.U, mc.V]] -= 1
    top = np.where(np.array(emit_upper)[faces[:, mc.AXIS]], 32, 31)
    owned = ((faces[:, mc.LAYER] >= 0) & (faces[:, mc.LAYER] <= top)
             & (faces[:, [mc.U, mc.V]] >= 0).all(axis=1) & (faces[:, [mc.U, mc.V]] < 32).all(axis=1))
    mesh = rc.Mesher().mesh_padded(padded, emit_upper=emit_upper)
    assert_same_triangles(mesh, rc.Mesher(walks=True).mesh_padded(padded, emit_upper=emit_upper),
                          f"padded {description}")
    try:
        mc.check_cover_of_faces(faces[owned], mesh)
    except AssertionError as error:
        raise AssertionError(f"mesh_padded(emit_upper={emit_upper}) on {description}: {error}") from None


@pytest.mark.parametrize("at", [(0, 0, 0), (30, 30, 30), (15, 0, 30)])
def test_every_binary_two_by_two_by_two_pattern(at):
    # All 256 occupancy patterns of a 2x2x2 block (edge-only and corner-only contacts,
    # L and T shapes, holes), at the chunk's corner, its far corner and on an edge.
    for bits in range(256):
        grid = np.zeros(vs.CHUNK_SHAPE, np.uint16)
        grid[at[0]:at[0] + 2, at[1]:at[1] + 2, at[2]:at[2] + 2] = (bits >> np.arange(8).reshape(2, 2, 2)) & 1
        check_chunk(f"2x2x2 pattern {bits} at {at}", grid)
