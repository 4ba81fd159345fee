"""reticulate_core: the smallest exact watertight meshes of voxel data.

A voxel grid is a numpy array indexed ``[x, y, z]`` of dtype ``uint16``; 0 is
empty and any other value is the material id of a solid voxel.  The meshers
return a :class:`Mesh` whose vertices are voxel-corner coordinates.

Names are loaded lazily from their modules so that importing the package is
cheap and each compiled kernel is only loaded when used.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Mesh": "mesh",
    "Morton2": "morton",
    "Morton3": "morton",
    "CompactOctree": "octree",
    "Fixed8Octree": "octree",
    "Walker": "octree",
    "DenseWalker": "octree",
    "memory_report": "octree",
    "scenario_chunk": "samples",
    "Mesher": "mesher",
    "Triangle": "mesher",
    "mesh_chunk": "mesher",
    "mesh_grid": "grid",
    "mesh_chunks": "grid",
}

__all__ = sorted(_EXPORTS) + ["io"]


def __getattr__(name):
    if name == "io":
        return importlib.import_module(".io", __name__)
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'reticulate_core' has no attribute {name!r}") from None
    value = getattr(importlib.import_module("." + module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
