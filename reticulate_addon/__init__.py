"""Reticulate for Blender: minimal exact watertight meshes of voxel data.

Registers the scene settings (``scene.reticulate``), the four operators
(``reticulate.mesh_volume``, ``import_vox``, ``mesh_array``,
``voxel_remesh``), the N-panel, File > Import > "MagicaVoxel (.vox)", and the
``blender -c reticulate`` command (the batch mesher, where Blender has
``register_cli_command``).  Intra-package imports are relative, as Blender
loads extensions as ``bl_ext.<repo>.reticulate``; the bundled core is
imported absolutely as ``reticulate_core``.
"""
import bpy

from . import batch, panel, properties
from .ops_import_vox import RETICULATE_OT_import_vox, menu_import
from .ops_mesh_array import RETICULATE_OT_mesh_array
from .ops_mesh_volume import RETICULATE_OT_mesh_volume
from .ops_voxel_remesh import RETICULATE_OT_voxel_remesh

CLASSES = (
    properties.ReticulateSettings,
    RETICULATE_OT_mesh_volume,
    RETICULATE_OT_import_vox,
    RETICULATE_OT_mesh_array,
    RETICULATE_OT_voxel_remesh,
    panel.RETICULATE_PT_main,
)

_cli_handles: list[object] = []


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    properties.register()
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    register_cli_command = getattr(bpy.utils, "register_cli_command", None)
    if register_cli_command is not None:
        _cli_handles.append(register_cli_command("reticulate", batch.cli))


def unregister():
    while _cli_handles:
        getattr(bpy.utils, "unregister_cli_command")(_cli_handles.pop())
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    properties.unregister()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
