"""Hypothesis strategies and structured generators of uint16 voxel grids.

Every generator is ``generator(shape, rng) -> bool mask`` (pure numpy, driven
only by the ``numpy.random.Generator`` it is given), so an example is fully
described by (kind, shape, seed, painting) and hypothesis draws just those:
arrays of 32^3 voxels drawn element by element would be far too slow.
``paint`` then turns a mask into material ids.

Kinds: random densities, spheres, terrains, caves, 3-D checkerboards, thin
walls, voxels on the chunk's corners/edges/faces, pinches (edge-only and
corner-only contacts), plates with holes, staircases, boxes, and unions of
two of them.  For grids, ``seam_structures`` puts voxels, bars, plates and
pinches across the chunk seams (coordinates 31/32, 63/64, ...).
"""
import numpy as np
from hypothesis import strategies as st

CHUNK = 32
CHUNK_SHAPE = (CHUNK, CHUNK, CHUNK)

# Grid shapes that are awkward for a 32^3 chunking.
AWKWARD_SHAPES = ((1, 1, 1), (31, 31, 31), (32, 32, 32), (33, 33, 33), (31, 32, 33), (33, 1, 65),
                  (64, 33, 2), (65, 40, 70), (100, 3, 3), (3, 100, 3), (3, 3, 100), (2, 65, 64))


def _coordinates(shape):
    return np.ogrid[tuple(slice(0, n) for n in shape)]


def density(shape, rng):
    """Independent voxels, solid with a probability drawn from 0.01..0.99."""
    return rng.random(shape) < rng.uniform(0.01, 0.99)


def spheres(shape, rng):
    """One to four balls, possibly cut by the grid's border."""
    x, y, z = _coordinates(shape)
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 5)):
        centre = rng.uniform(-0.2, 1.2, 3) * shape
        radius = rng.uniform(0.5, max(shape) / 2)
        mask |= (x - centre[0]) ** 2 + (y - centre[1]) ** 2 + (z - centre[2]) ** 2 <= radius ** 2
    return mask


def _smooth_noise(shape, rng, passes):
    """Uniform noise blurred by repeated 3-wide box filters (periodic), zero mean."""
    field = rng.random(shape) - 0.5
    for _ in range(passes):
        for axis in range(field.ndim):
            field = (np.roll(field, 1, axis) + field + np.roll(field, -1, axis)) / 3
    return field - field.mean()


def terrain(shape, rng):
    """Solid below a smooth heightmap over (x, y); z is up."""
    heights = _smooth_noise(shape[:2], rng, int(rng.integers(1, 6)))
    span = np.ptp(heights) or 1.0
    heights = (heights - heights.min()) / span * shape[2] * rng.uniform(0.2, 1.0)
    heights += rng.uniform(0, 0.5) * shape[2]
    z = np.arange(shape[2])[None, None, :]
    return z < heights[:, :, None]


def caves(shape, rng):
    """Smoothed 3-D noise thresholded near its median: blobby tunnels and chambers."""
    field = _smooth_noise(shape, rng, int(rng.integers(1, 5)))
    return field < np.quantile(field, rng.uniform(0.3, 0.7))


def checkerboard(shape, rng):
    """A 3-D checkerboard of k^3 cells (k = 1 gives only edge and corner contacts)."""
    k = int(rng.choice([1, 1, 2, 3, 4]))
    x, y, z = _coordinates(shape)
    offset = rng.integers(0, k, 3)
    return ((x + offset[0]) // k + (y + offset[1]) // k + (z + offset[2]) // k) % 2 == 1


def thin_walls(shape, rng):
    """One-voxel plates perpendicular to each axis, partial, some with holes."""
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 7)):
        axis = int(rng.integers(3))
        box = [slice(*sorted(rng.integers(0, n + 1, 2))) for n in shape]
        box[axis] = int(rng.integers(shape[axis]))
        mask[tuple(box)] = True
        if rng.random() < 0.5:
            hole = [slice(*sorted(rng.integers(0, n + 1, 2))) for n in shape]
            hole[axis] = box[axis]
            mask[tuple(hole)] = False
    return mask


def border_voxels(shape, rng):
    """Single voxels at the grid's corners, on its edges and on its faces."""
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 12)):
        at = [int(rng.integers(n)) for n in shape]
        for axis in rng.permutation(3)[:rng.integers(1, 4)]:
            at[axis] = int(rng.choice([0, shape[axis] - 1]))
        mask[tuple(at)] = True
    return mask


def pinches(shape, rng):
    """Voxels and bars that touch only along an edge or only at a corner."""
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 10)):
        a = np.array([int(rng.integers(n)) for n in shape])
        step = rng.choice([-1, 1], 3) * (rng.random(3) < rng.choice([0.67, 1.0]))
        if np.count_nonzero(step) < 2:
            step[rng.permutation(3)[:2]] = rng.choice([-1, 1], 2)
        b = np.clip(a + step, 0, np.array(shape) - 1)
        length = int(rng.integers(1, 4))
        axis = int(rng.integers(3))
        for point in (a, b):
            bar = [slice(int(c), int(c) + 1) for c in point]
            if step[axis] == 0:                      # lengthen along the shared edge
                bar[axis] = slice(int(point[axis]), int(point[axis]) + length)
            mask[tuple(bar)] = True
    return mask


def plates_with_holes(shape, rng):
    """A plate 1-3 voxels thick with rectangular holes, some meeting at corners."""
    mask = np.zeros(shape, bool)
    axis = int(rng.integers(3))
    plate = [slice(None)] * 3
    start = int(rng.integers(shape[axis]))
    plate[axis] = slice(start, start + int(rng.integers(1, 4)))
    mask[tuple(plate)] = True
    for _ in range(rng.integers(1, 8)):
        hole = [slice(*sorted(rng.integers(0, n + 1, 2))) for n in shape]
        hole[axis] = plate[axis]
        mask[tuple(hole)] = False
        if rng.random() < 0.5:                       # a second hole touching its corner
            corner = [s.stop for s in hole]
            touching = [slice(c, c + int(rng.integers(1, 4))) for c in corner]
            touching[axis] = plate[axis]
            mask[tuple(touching)] = False
    return mask


def staircase(shape, rng):
    """Steps rising along one axis, in one of the other axes' directions."""
    axis_run, axis_up = rng.permutation(3)[:2]
    width, rise = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    coordinates = np.indices(shape)
    run = coordinates[axis_run]
    if rng.random() < 0.5:
        run = shape[axis_run] - 1 - run
    return coordinates[axis_up] < (run // width + 1) * rise


def boxes(shape, rng):
    """A few random axis-aligned boxes, overlapping or not."""
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 8)):
        mask[tuple(slice(*sorted(rng.integers(0, n + 1, 2))) for n in shape)] = True
    return mask


def polyomino_plates(shape, rng):
    """Plates 1-2 voxels thick whose outline is a random polyomino (holes, pinches, spikes)."""
    mask = np.zeros(shape, bool)
    for _ in range(rng.integers(1, 4)):
        axis = int(rng.integers(3))
        in_plane = [n for a, n in enumerate(shape) if a != axis]
        outline = _smooth_noise(tuple(in_plane), rng, int(rng.integers(0, 3)))
        outline = outline < np.quantile(outline, rng.uniform(0.2, 0.8))
        start = int(rng.integers(shape[axis]))
        plate = [slice(None)] * 3
        plate[axis] = slice(start, start + int(rng.integers(1, 3)))
        mask[tuple(plate)] |= np.expand_dims(outline, axis)
    return mask


def bumpy_plates(shape, rng):
    """A slab with one-voxel bumps and dents on both sides and along its rims.

    The bumps' corners land on the slab's large faces and on its straight
    rims, so those faces need vertices that no corner of their own asks for.
    """
    mask = np.zeros(shape, bool)
    axis = int(rng.integers(3))
    box = [slice(*sorted(rng.integers(0, n + 1, 2))) for n in shape]
    thickness = int(rng.integers(1, 4))
    start = int(rng.integers(0, max(1, shape[axis] - thickness)))
    box[axis] = slice(start, start + thickness)
    mask[tuple(box)] = True
    for _ in range(rng.integers(1, 40)):
        at = [int(rng.integers(max(0, b.start - 1), min(n, b.stop + 1))) for b, n in zip(box, shape)]
        where = int(rng.integers(4))                 # bump below, bump above, dent below, dent above
        at[axis] = (start - 1, start + thickness, start, start + thickness - 1)[where]
        if 0 <= at[axis] < shape[axis]:
            mask[tuple(at)] = where < 2
    return mask


def seam_structures(shape, rng):
    """Voxels, bars, plates and pinches placed across chunk seams (multiples of 32).

    Near every seam coordinate (31/32, 63/64, ...) and at the grid's last
    layer; on grids smaller than a chunk this degenerates to border structures.
    """
    mask = np.zeros(shape, bool)
    def near_seam(n):
        seams = [c for c in range(CHUNK, n + 1, CHUNK)] + [n]
        return int(np.clip(rng.choice(seams) + rng.integers(-2, 2), 0, n - 1))
    for _ in range(rng.integers(1, 10)):
        at = [near_seam(n) if rng.random() < 0.7 else int(rng.integers(n)) for n in shape]
        kind = rng.integers(4)
        if kind == 0:                                # a voxel
            mask[tuple(at)] = True
        elif kind == 1:                              # a bar through a seam
            axis = int(rng.integers(3))
            bar = [slice(c, c + 1) for c in at]
            bar[axis] = slice(max(0, at[axis] - int(rng.integers(1, 5))), at[axis] + int(rng.integers(1, 5)))
            mask[tuple(bar)] = True
        elif kind == 2:                              # a plate in or across a seam plane
            axis = int(rng.integers(3))
            plate = [slice(max(0, c - int(rng.integers(0, 6))), c + int(rng.integers(1, 6))) for c in at]
            plate[axis] = slice(at[axis], at[axis] + 1)
            mask[tuple(plate)] = True
        else:                                        # an edge or corner contact across a seam
            other = [int(np.clip(c + rng.choice([-1, 1]), 0, n - 1)) for c, n in zip(at, shape)]
            if rng.random() < 0.5:                   # share one coordinate: an edge contact
                axis = int(rng.integers(3))
                other[axis] = at[axis]
            mask[tuple(at)] = True
            mask[tuple(other)] = True
    return mask


KINDS = {f.__name__: f for f in (density, spheres, terrain, caves, checkerboard, thin_walls,
                                    border_voxels, pinches, plates_with_holes, polyomino_plates, bumpy_plates,
                                    staircase, boxes)}


def union(shape, rng):
    """Two structures of different kinds in one grid."""
    first, second = rng.choice(sorted(KINDS), 2, replace=False)
    return KINDS[first](shape, rng) | KINDS[second](shape, rng)


KINDS["union"] = union
GRID_KINDS = dict(KINDS, seam_structures=seam_structures)


def palette(rng, n_materials, high_ids):
    """``n_materials`` distinct ids: small ones, or ones near 65535."""
    if high_ids:
        return (65535 - rng.choice(64, n_materials, replace=False)).astype(np.uint16)
    return (1 + rng.choice(max(8, n_materials), n_materials, replace=False)).astype(np.uint16)


def paint(mask, rng, n_materials=1, high_ids=False, mode="random"):
    """Material ids for the solid voxels of ``mask``.

    mode "random": independent per voxel; "blocks": constant over random
    boxes of a coarse partition (large same-material regions that meet);
    "layers": bands along a random axis.
    """
    ids = palette(rng, n_materials, high_ids)
    shape = mask.shape
    if n_materials == 1 or mode == "random":
        choice = rng.integers(0, n_materials, shape)
    elif mode == "blocks":
        size = int(rng.integers(2, 9))
        coarse = rng.integers(0, n_materials, tuple(-(-n // size) for n in shape))
        choice = np.repeat(np.repeat(np.repeat(coarse, size, 0), size, 1), size, 2)
        choice = choice[:shape[0], :shape[1], :shape[2]]
    else:
        axis = int(rng.integers(3))
        bands = rng.integers(0, n_materials, shape[axis])
        choice = np.broadcast_to(np.expand_dims(bands, tuple(a for a in range(3) if a != axis)), shape)
    return np.where(mask, ids[choice], 0).astype(np.uint16)


def make_grid(kind, shape, seed, n_materials=1, high_ids=False, mode="random"):
    """The grid of one example, reproducibly from its description."""
    rng = np.random.default_rng(seed)
    return paint(GRID_KINDS[kind](tuple(shape), rng), rng, n_materials, high_ids, mode)


@st.composite
def grid_descriptions(draw, shapes=st.just(CHUNK_SHAPE), kinds=tuple(KINDS), materials=(1, 1)):
    """Hypothesis strategy of example descriptions: dicts of ``make_grid``'s keyword arguments."""
    return dict(kind=draw(st.sampled_from(sorted(kinds))),
                shape=draw(shapes),
                seed=draw(st.integers(0, 2 ** 32 - 1)),
                n_materials=draw(st.integers(*materials)),
                high_ids=draw(st.sampled_from((False, False, False, True))),
                mode=draw(st.sampled_from(("random", "blocks", "layers"))))


def grids(shapes=st.just(CHUNK_SHAPE), kinds=tuple(KINDS), materials=(1, 1)):
    """Hypothesis strategy of (description, uint16 grid) pairs."""
    return grid_descriptions(shapes, kinds, materials).map(lambda d: (d, make_grid(**d)))


def small_grids(max_side=5, materials=(1, 3)):
    """Hypothesis strategy of small grids drawn voxel by voxel (these shrink well)."""
    shape = st.tuples(*[st.integers(1, max_side)] * 3)
    def fill(s):
        return st.lists(st.integers(0, materials[1]), min_size=int(np.prod(s)), max_size=int(np.prod(s))).map(
            lambda values: np.array(values, np.uint16).reshape(s))
    return shape.flatmap(fill)
