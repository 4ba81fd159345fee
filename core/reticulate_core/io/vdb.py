"""OpenVDB grids to dense voxels, through an ``openvdb`` module found at run time.

``openvdb`` is not a dependency: Blender ships it inside its own Python, and
the ``bpy`` wheel ships it under ``bpy/<version>/python/lib/python3.X/site-packages``,
which is not on ``sys.path``. :func:`find_openvdb` tries a plain import, then
those bundled folders.
"""
import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

_DENSE_DTYPES = {"float": np.float32, "double": np.float64, "int32": np.int32,
                 "int64": np.int64, "bool": np.bool_}


class OpenVDBUnavailable(ImportError):
    """No importable ``openvdb`` module."""


def bundled_site_packages():
    """site-packages folders of the Python inside an installed ``bpy`` wheel (not importing bpy)."""
    try:
        spec = importlib.util.find_spec("bpy")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    return sorted(Path(spec.origin).parent.glob("*/python/lib/python3*/site-packages"))


def find_openvdb(search_dirs=None):
    """The ``openvdb`` module: imported as is, else from ``search_dirs`` (default: bpy's bundle)."""
    try:
        return importlib.import_module("openvdb")
    except ImportError:
        pass
    candidates = bundled_site_packages() if search_dirs is None else [Path(d) for d in search_dirs]
    for folder in candidates:
        if not any(folder.glob("openvdb*")):
            continue
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        try:
            return importlib.import_module("openvdb")
        except ImportError:
            sys.path.remove(str(folder))
    searched = ", ".join(str(c) for c in candidates) or "no bundled folder found"
    raise OpenVDBUnavailable(
        "reading .vdb files needs the 'openvdb' Python module, which was not found "
        f"(searched: {searched}). Run inside Blender, install the 'bpy' package "
        "(it bundles openvdb), or install OpenVDB's Python bindings.")


def read_vdb_grid(path, grid=None, max_voxels=None):
    """Dense copy of one grid's active bounding box.

    Returns ``(values, name, index_to_world, index_min, level_set)``:
    ``values`` indexed ``[i, j, k]`` from ``index_min``, ``index_to_world``
    the grid's 4x4 map from index space (voxel centres at integer indices) to
    world, ``level_set`` whether the grid's class is "level set" (signed
    distances, negative inside; its active voxels are the narrow band around
    the surface, whose box holds the inside too).
    """
    openvdb = find_openvdb()
    path = str(path)
    try:
        names = [g.name for g in openvdb.readAllGridMetadata(path)]
    except Exception as exc:  # openvdb raises its own IoError/ValueError/RuntimeError types
        raise ValueError(f"{path}: not a readable OpenVDB file ({exc})") from exc
    if not names:
        raise ValueError(f"{path}: the file holds no grid")
    name = names[0] if grid is None else grid
    if name not in names:
        raise ValueError(f"{path}: no grid named {name!r}; grids: {names}")
    try:
        vdb_grid = openvdb.read(path, name)
    except Exception as exc:  # a corrupt file: openvdb's own error types, or std::bad_alloc as MemoryError
        raise ValueError(f"{path}: grid {name!r} cannot be read, the file is damaged "
                         f"({type(exc).__name__}: {exc})") from exc
    dtype = _DENSE_DTYPES.get(vdb_grid.valueTypeName)
    if dtype is None:
        raise ValueError(f"{path}: grid {name!r} holds {vdb_grid.valueTypeName} values; "
                         f"supported: {sorted(_DENSE_DTYPES)}")
    if not vdb_grid.transform.isLinear:
        raise ValueError(f"{path}: grid {name!r} has a non-linear (frustum) transform")
    if vdb_grid.activeVoxelCount() == 0:
        raise ValueError(f"{path}: grid {name!r} has no active voxels")
    low, high = vdb_grid.evalActiveVoxelBoundingBox()
    shape = tuple(int(b) - int(a) + 1 for a, b in zip(low, high))
    count = shape[0] * shape[1] * shape[2]
    if max_voxels is not None and count > max_voxels:
        raise ValueError(f"{path}: grid {name!r} spans {shape} = {count} voxels, "
                         f"above the limit of {max_voxels}")
    values = np.zeros(shape, dtype=dtype)
    vdb_grid.copyToArray(values, ijk=tuple(int(v) for v in low))
    origin = np.array(vdb_grid.transform.indexToWorld((0, 0, 0)), dtype=np.float64)
    index_to_world = np.eye(4)
    for axis in range(3):
        unit = [0, 0, 0]
        unit[axis] = 1
        index_to_world[:3, axis] = np.array(vdb_grid.transform.indexToWorld(tuple(unit))) - origin
    index_to_world[:3, 3] = origin
    return values, name, index_to_world, np.array(low, dtype=np.int64), vdb_grid.gridClass == "level set"
