"""Dense voxel grids from .npy, .npz and .vdb files, as uint16 material ids.

Value rules, whatever the file: integer arrays are material ids (0..65535,
0 empty); bool arrays give material 1 where true; float arrays need a
``threshold`` and give material 1 where the value exceeds it (NaN is an
error). ``threshold`` is ignored for integer and bool data, and for .vdb
level sets (signed distances), which give material 1 inside their surface,
where the value is negative.

Array headers are read and checked against ``max_voxels`` before any voxel
data is loaded, so a hostile header cannot make the reader allocate.

``LoadedGrid.transform`` maps voxel-corner coordinates of ``voxels`` (voxel
``(x, y, z)`` spans ``[x, x+1] x [y, y+1] x [z, z+1]``) to world coordinates:
for numpy files ``world = origin + voxel_size * p`` from the optional
``voxel_size`` (1 or 3 values, default 1) and ``origin`` (3 values, default 0)
arrays of an .npz; for .vdb the grid's own transform, whose voxel centres sit
at integer index coordinates.
"""
import math
import numbers
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from tokenize import TokenError

import numpy as np

from .errors import DEFAULT_MAX_VOXELS
from .vdb import read_vdb_grid

METADATA_ARRAYS = ("voxel_size", "origin")
"""Names of optional .npz arrays that describe the grid instead of holding it."""


@dataclass
class LoadedGrid:
    """``voxels``: C-contiguous uint16 ``[x, y, z]``; ``transform``: 4x4 voxel corner -> world;
    ``index_origin``: file index of voxel (0, 0, 0) (the .vdb active-box minimum, else zeros)."""
    voxels: np.ndarray
    transform: np.ndarray
    voxel_size: np.ndarray
    index_origin: np.ndarray
    grid_name: str = None


def load_grid(path, threshold=None, *, axis_order="xyz", grid=None, max_voxels=DEFAULT_MAX_VOXELS):
    """The uint16 ``[x, y, z]`` grid of a .npy, .npz or .vdb file (see :func:`load_grid_with_info`)."""
    return load_grid_with_info(path, threshold, axis_order=axis_order, grid=grid,
                               max_voxels=max_voxels).voxels


def load_grid_with_info(path, threshold=None, *, axis_order="xyz", grid=None,
                        max_voxels=DEFAULT_MAX_VOXELS):
    """Load a grid with its placement.

    ``axis_order``: the order of the file's array axes, a permutation of
    "xyz" (e.g. "zyx" for arrays stored ``[z, y, x]``; .vdb is always "xyz").
    ``grid``: the array name in an .npz or grid name in a .vdb (default: the
    only data array of an .npz, the first grid of a .vdb).
    """
    path = Path(path)
    if threshold is not None and (not isinstance(threshold, numbers.Real) or isinstance(threshold, bool)
                                  or math.isnan(threshold)):
        raise ValueError(f"threshold must be a number (not NaN) or None, got {threshold!r}")
    if not isinstance(axis_order, str) or sorted(axis_order) != ["x", "y", "z"]:
        raise ValueError(f"axis_order must be a permutation of 'xyz', got {axis_order!r}")
    suffix = path.suffix.lower()
    if suffix == ".vdb":
        if axis_order != "xyz":
            raise ValueError(f"{path}: .vdb grids are indexed x, y, z; axis_order must be 'xyz'")
        values, name, index_to_world, index_min, level_set = read_vdb_grid(path, grid, max_voxels)
        voxels = _material_ids(values < 0 if level_set else values, threshold, f"{path}: grid {name!r}")
        corner = np.eye(4)
        corner[:3, 3] = index_min - 0.5
        voxel_size = np.linalg.norm(index_to_world[:3, :3], axis=0)
        return LoadedGrid(voxels, index_to_world @ corner, voxel_size, index_min, name)
    if suffix == ".npy":
        with open(path, "rb") as f:
            values = _read_npy(f, path.stat().st_size, f"{path}", max_voxels)
        voxel_size, origin, name = np.ones(3), np.zeros(3), None
    elif suffix == ".npz":
        values, voxel_size, origin, name = _read_npz(path, grid, max_voxels)
    else:
        raise ValueError(f"{path}: unsupported grid file type {suffix!r} (use .npy, .npz or .vdb)")
    where = f"{path}" if name is None else f"{path}: array {name!r}"
    if values.ndim != 3:
        raise ValueError(f"{where}: a voxel grid needs 3 dimensions, got shape {values.shape}")
    values = np.transpose(values, [axis_order.index(axis) for axis in "xyz"])
    transform = np.diag(np.append(voxel_size, 1.0))
    transform[:3, 3] = origin
    return LoadedGrid(_material_ids(values, threshold, where), transform, voxel_size,
                      np.zeros(3, dtype=np.int64), name)


def _read_npy(f, available, where, max_voxels):
    """Read one .npy stream after checking its header: dtype, size limit, truncation."""
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(f)
        elif version in ((2, 0), (3, 0)):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy format version {version}")
    except (ValueError, SyntaxError, TokenError) as exc:     # numpy parses the header as a Python literal
        raise ValueError(f"{where}: not a readable .npy array ({exc})") from None
    if any(size < 0 for size in shape):
        raise ValueError(f"{where}: not a readable .npy array (negative dimension in shape {shape})")
    _check_dtype(dtype, where)
    count = int(np.prod(shape, dtype=object))
    if count > max_voxels:
        raise ValueError(f"{where}: shape {shape} holds {count} voxels, above the limit of {max_voxels}")
    if count == 0:
        raise ValueError(f"{where}: the grid is empty (shape {shape})")
    needed = f.tell() + count * dtype.itemsize
    if available < needed:
        raise ValueError(f"{where}: truncated: header declares {count} values ({needed} bytes), "
                         f"the data holds {available}")
    raw = f.read(count * dtype.itemsize)
    if len(raw) != count * dtype.itemsize:
        raise ValueError(f"{where}: truncated: header declares {count} values, the data ends "
                         f"after {len(raw) // dtype.itemsize}")
    return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran_order else "C")


def _read_npz(path, grid, max_voxels):
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{path}: not a readable .npz archive ({exc})") from None
    with archive:
        members = {info.filename[:-4]: info for info in archive.infolist() if info.filename.endswith(".npy")}
        data_names = sorted(set(members) - set(METADATA_ARRAYS))
        if grid is None:
            if len(data_names) != 1:
                raise ValueError(f"{path}: choose the grid array with grid=...; the archive holds "
                                 f"{data_names or 'no array'}")
            grid = data_names[0]
        elif grid not in members:
            raise ValueError(f"{path}: no array named {grid!r}; arrays: {sorted(members)}")

        def read(name, limit):
            try:
                with archive.open(members[name]) as f:
                    return _read_npy(f, members[name].file_size, f"{path}: array {name!r}", limit)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
                raise ValueError(f"{path}: array {name!r} cannot be read ({exc})") from None

        values = read(grid, max_voxels)
        voxel_size = np.ones(3)
        origin = np.zeros(3)
        if "voxel_size" in members:
            voxel_size = _vector(read("voxel_size", 3), (1, 3), f"{path}: voxel_size") * np.ones(3)
            if not (voxel_size > 0).all():
                raise ValueError(f"{path}: voxel_size must be positive, got {voxel_size.tolist()}")
        if "origin" in members:
            origin = _vector(read("origin", 3), (3,), f"{path}: origin")
    return values, voxel_size, origin, grid


def _vector(values, sizes, where):
    if values.dtype.kind not in "iuf" or values.size not in sizes:
        raise ValueError(f"{where} must hold {' or '.join(map(str, sizes))} numbers, "
                         f"got {values.dtype} of shape {values.shape}")
    values = values.astype(np.float64).reshape(-1)
    if not np.isfinite(values).all():
        raise ValueError(f"{where} must be finite, got {values.tolist()}")
    return values


def _check_dtype(dtype, where):
    if dtype.hasobject or dtype.kind not in "biuf" or dtype.fields is not None or dtype.shape:
        raise ValueError(f"{where}: unsupported dtype {dtype}; use integer ids, bool or float values")


def _material_ids(values, threshold, where):
    """uint16 material ids of an integer, bool or float array (rules in the module docstring)."""
    _check_dtype(values.dtype, where)
    kind = values.dtype.kind
    if kind == "b":
        ids = values.astype(np.uint16)
    elif kind in "iu":
        low, high = int(values.min()), int(values.max())
        if low < 0 or high > 65535:
            raise ValueError(f"{where}: values range from {low} to {high}; material ids must be "
                             f"in 0..65535")
        ids = values.astype(np.uint16)
    else:
        if threshold is None:
            raise ValueError(f"{where}: float values need a threshold (voxels above it become solid)")
        nans = int(np.count_nonzero(np.isnan(values)))
        if nans:
            raise ValueError(f"{where}: {nans} NaN values")
        ids = (values > threshold).astype(np.uint16)
    return np.ascontiguousarray(ids)
