"""Deterministic sample voxel data for tests and benchmarks (pure numpy).

Every function returns a fresh ``uint16`` array indexed ``[x, y, z]`` (z is
up); 0 is empty, other values are material ids.  The same arguments always
give the same array: randomness comes only from ``numpy.random.default_rng``
seeded with ``seed``.
"""
import numpy as np

CHUNK_SHAPE = (32, 32, 32)

SCENARIOS = ("empty", "full", "sphere", "terrain", "noise", "checkerboard", "multi_terrain")


def _check_shape(shape):
    shape = tuple(int(n) for n in shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"shape must be three positive sizes (X, Y, Z), got {shape}")
    return shape


def _heightmap(shape, seed):
    """Smooth heights over (x, y), between 20% and 80% of Z.

    A sum of four plane waves with random directions and phases; the two
    longest span the whole grid, the others add detail a few voxels wide.
    """
    nx, ny, nz = shape
    rng = np.random.default_rng(seed)
    x = (np.arange(nx, dtype=np.float64) + 0.5)[:, None]
    y = (np.arange(ny, dtype=np.float64) + 0.5)[None, :]
    waves = np.zeros((nx, ny))
    wavelengths = (1.0, 0.7, 0.35, 0.2)
    amplitudes = (1.0, 0.6, 0.3, 0.15)
    size = max(nx, ny)
    for wavelength, amplitude in zip(wavelengths, amplitudes):
        angle, phase = rng.uniform(0.0, 2.0 * np.pi, size=2)
        k = 2.0 * np.pi / (wavelength * size)
        waves += amplitude * np.sin(k * (np.cos(angle) * x + np.sin(angle) * y) + phase)
    waves /= sum(amplitudes)
    return nz * (0.5 + 0.3 * waves)


def terrain_grid(shape, materials=4, seed=0):
    """Solid below a smooth heightmap; material bands by height.

    Voxel (x, y, z) is solid when z + 0.5 < height(x, y).  Its material is
    1 + z * materials // Z, so ``materials`` equal horizontal bands split the
    grid's height (materials=1 gives single-material terrain).
    """
    shape = _check_shape(shape)
    if not 1 <= int(materials) <= 65535:
        raise ValueError(f"materials must be in 1..65535, got {materials}")
    nz = shape[2]
    height = _heightmap(shape, seed)
    z_centres = np.arange(nz, dtype=np.float64) + 0.5
    solid = z_centres[None, None, :] < height[:, :, None]
    band = (1 + np.arange(nz) * int(materials) // nz).astype(np.uint16)
    return np.where(solid, band[None, None, :], np.uint16(0)).astype(np.uint16)


def sphere_shell_grid(shape, thickness):
    """Hollow ball of material 1 centred in the grid.

    The outer radius is half the smallest side; voxel centres at distance d
    with outer - thickness <= d <= outer from the grid centre are solid.
    """
    shape = _check_shape(shape)
    if thickness <= 0:
        raise ValueError(f"thickness must be positive, got {thickness}")
    outer = min(shape) / 2.0
    x, y, z = np.ogrid[: shape[0], : shape[1], : shape[2]]
    d2 = ((x + 0.5 - shape[0] / 2.0) ** 2 + (y + 0.5 - shape[1] / 2.0) ** 2
          + (z + 0.5 - shape[2] / 2.0) ** 2)
    inner = max(outer - thickness, 0.0)
    return ((d2 <= outer * outer) & (d2 >= inner * inner)).astype(np.uint16)


def noise_grid(shape, density, seed=0):
    """White noise: each voxel is material 1 with probability ``density``."""
    shape = _check_shape(shape)
    if not 0.0 <= density <= 1.0:
        raise ValueError(f"density must be in [0, 1], got {density}")
    rng = np.random.default_rng(seed)
    return (rng.random(shape) < density).astype(np.uint16)


def _sphere_chunk():
    x, y, z = np.ogrid[:32, :32, :32]
    d2 = (x + 0.5 - 16) ** 2 + (y + 0.5 - 16) ** 2 + (z + 0.5 - 16) ** 2
    return (d2 <= 14 * 14).astype(np.uint16)


def _checkerboard_chunk():
    x, y, z = np.ogrid[:32, :32, :32]
    return ((x + y + z) % 2 + 1).astype(np.uint16)


def scenario_chunk(name, seed=0):
    """One (32, 32, 32) uint16 chunk of a named benchmark scenario.

    empty, full (material 1), sphere (solid ball of radius 14 centred in the
    chunk), terrain (single-material heightmap), noise (50% white noise),
    checkerboard (every voxel solid, material (x+y+z)%2+1), multi_terrain
    (heightmap with 4 material bands).  ``seed`` only affects terrain,
    multi_terrain and noise.
    """
    if name == "empty":
        return np.zeros(CHUNK_SHAPE, np.uint16)
    if name == "full":
        return np.ones(CHUNK_SHAPE, np.uint16)
    if name == "sphere":
        return _sphere_chunk()
    if name == "terrain":
        return terrain_grid(CHUNK_SHAPE, materials=1, seed=seed)
    if name == "noise":
        return noise_grid(CHUNK_SHAPE, 0.5, seed=seed)
    if name == "checkerboard":
        return _checkerboard_chunk()
    if name == "multi_terrain":
        return terrain_grid(CHUNK_SHAPE, materials=4, seed=seed)
    raise ValueError(f"unknown scenario {name!r}; expected one of {', '.join(SCENARIOS)}")
