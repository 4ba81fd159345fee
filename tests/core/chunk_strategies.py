"""Hypothesis strategies and plain-numpy oracles for 32^3 chunks (tests/core)."""
import numpy as np
from hypothesis import strategies as st

SHAPE = (32, 32, 32)
TOP_MATERIAL = 65535


def palette(rng, n_materials):
    """n distinct material ids in 1..65535, always including 65535 when n > 1."""
    if n_materials == 1:
        return np.array([rng.integers(1, TOP_MATERIAL + 1)], dtype=np.uint16)
    ids = rng.choice(np.arange(1, TOP_MATERIAL, dtype=np.int64), size=n_materials - 1,
                     replace=False)
    return np.concatenate([ids, [TOP_MATERIAL]]).astype(np.uint16)


def random_cells(rng, side, density, n_materials):
    """(side, side, side) uint16 cells: solid with probability density, material
    drawn from a palette of n_materials ids."""
    solid = rng.random((side, side, side)) < density
    ids = palette(rng, n_materials)[rng.integers(0, n_materials, size=solid.shape)]
    return np.where(solid, ids, 0).astype(np.uint16)


@st.composite
def noise_chunks(draw):
    """White noise of any density (0..1) and any material count (1..65535)."""
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.floats(0.0, 1.0))
    n_materials = draw(st.sampled_from([1, 2, 3, 7, 256, 65535]))
    return random_cells(np.random.default_rng(seed), 32, density, n_materials)


@st.composite
def blocky_chunks(draw):
    """Noise at resolution 2^level blown up to 32^3 (uniform cells at depth
    `level`), then optionally a few single voxels changed: trees with leaves
    and empties at every depth."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    level = draw(st.integers(0, 5))
    density = draw(st.floats(0.0, 1.0))
    n_materials = draw(st.sampled_from([1, 2, 5, 65535]))
    cells = random_cells(rng, 1 << level, density, n_materials)
    factor = 32 >> level
    chunk = cells.repeat(factor, 0).repeat(factor, 1).repeat(factor, 2)
    for _ in range(draw(st.integers(0, 4))):
        x, y, z = rng.integers(0, 32, size=3)
        chunk[x, y, z] = draw(st.sampled_from([0, 1, 2, TOP_MATERIAL]))
    return chunk


@st.composite
def structured_chunks(draw):
    """Uniform chunks, a single voxel, and octant blocks (depth-1 cells)."""
    kind = draw(st.sampled_from(["uniform", "voxel", "octants"]))
    material = draw(st.sampled_from([0, 1, 2, 300, TOP_MATERIAL]))
    chunk = np.zeros(SHAPE, np.uint16)
    if kind == "uniform":
        chunk[:] = material
    elif kind == "voxel":
        x, y, z = (draw(st.integers(0, 31)) for _ in range(3))
        chunk[x, y, z] = draw(st.sampled_from([1, 7, TOP_MATERIAL]))
    else:
        for octant in range(8):
            x, y, z = (octant & 1) * 16, ((octant >> 1) & 1) * 16, ((octant >> 2) & 1) * 16
            chunk[x:x + 16, y:y + 16, z:z + 16] = draw(st.sampled_from([0, 1, 2, TOP_MATERIAL]))
    return chunk


any_chunk = st.one_of(noise_chunks(), blocky_chunks(), structured_chunks())


def cube(code, depth):
    """Slices of the voxels of cell (code, depth), decoded bit by bit (an
    oracle independent of the compiled Morton functions)."""
    x = y = z = 0
    for i in range(depth):
        x |= ((code >> (3 * i)) & 1) << i
        y |= ((code >> (3 * i + 1)) & 1) << i
        z |= ((code >> (3 * i + 2)) & 1) << i
    size = 32 >> depth
    return (slice(x * size, (x + 1) * size), slice(y * size, (y + 1) * size),
            slice(z * size, (z + 1) * size))


def reference_stream(chunk):
    """The canonical compact stream, straight from its definition: pre-order,
    uniform solid cell -> leaf, uniformly empty cell -> absent, else a branch
    with the mask of its non-empty children."""
    nodes = []

    def visit(code, depth):
        values = chunk[cube(code, depth)]
        first = values.flat[0]
        if (values == first).all():
            nodes.append(int(first))
            return
        children = [(code << 3) | i for i in range(8)]
        mask = sum(1 << i for i, c in enumerate(children) if chunk[cube(c, depth + 1)].any())
        nodes.append(0x80000000 | mask)
        for i, c in enumerate(children):
            if mask >> i & 1:
                visit(c, depth + 1)

    if chunk.any():
        visit(0, 0)
    return np.array(nodes, dtype=np.uint32)


class Recorder:
    """Visitor recording every walk event as (kind, code, depth, material)."""

    def __init__(self):
        self.events = []

    def on_branch_start(self, code):
        self.events.append(("start", code.code, code.depth, 0))

    def on_leaf(self, code, material):
        self.events.append(("leaf", code.code, code.depth, material))

    def on_empty(self, code):
        self.events.append(("empty", code.code, code.depth, 0))

    def on_branch_end(self, code):
        self.events.append(("end", code.code, code.depth, 0))


def walk_events(tree, dense):
    recorder = Recorder()
    tree.walk(recorder, dense=dense)
    return recorder.events
