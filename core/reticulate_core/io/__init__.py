"""Readers and writers of voxel files: MagicaVoxel .vox, numpy .npy/.npz, OpenVDB .vdb.

Pure Python and numpy; ``openvdb`` is imported only when a .vdb file is read.
"""
from .errors import DEFAULT_MAX_VOXELS, VoxFormatError
from .vox import DEFAULT_PALETTE, VoxLayer, VoxModel, VoxScene, read_vox, read_vox_bytes
from .vox_writer import write_vox
from .grids import LoadedGrid, load_grid, load_grid_with_info
from .vdb import OpenVDBUnavailable, find_openvdb

__all__ = ["DEFAULT_MAX_VOXELS", "DEFAULT_PALETTE", "LoadedGrid", "OpenVDBUnavailable",
           "VoxFormatError", "VoxLayer", "VoxModel", "VoxScene", "find_openvdb", "load_grid",
           "load_grid_with_info", "read_vox", "read_vox_bytes", "write_vox"]
