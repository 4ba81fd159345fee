"""``reticulate.mesh_array``: a .npy / .npz voxel array file -> one meshed object.

Integer arrays are material ids, bool arrays material 1, float arrays solid
above ``threshold`` (the core's ``load_grid`` rules); ``axis_order`` names
the array's axes (``ZYX`` for arrays stored ``[z, y, x]``).  Vertex ``p`` lands at
``voxel_size * (placement @ p)`` where ``placement`` is the file's own
(an .npz may carry ``voxel_size`` and ``origin`` arrays; identity otherwise).
"""

import bpy
import numpy as np
import reticulate_core as rc
from bpy.props import EnumProperty, FloatProperty, StringProperty

from .operator_base import FileSource, MaterialChoice, Outcome, ReticulateOperator, grid_objects, split_scale
from .properties import AXIS_ORDER_DESCRIPTION, AXIS_ORDER_ITEMS


class RETICULATE_OT_mesh_array(FileSource, ReticulateOperator, bpy.types.Operator):  # type: ignore[misc]
    """Mesh a numpy voxel array (.npy / .npz) into a minimal watertight mesh"""

    bl_idname = "reticulate.mesh_array"
    bl_label = "Mesh NumPy Voxels"
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".npy"
    filter_glob: StringProperty(default="*.npy;*.npz", options={'HIDDEN'})
    file_kind = ".npy / .npz"
    filepath: StringProperty(name="File Path", subtype='FILE_PATH', options={'SKIP_SAVE'})
    threshold: FloatProperty(name="Threshold", default=0.5,
                             description="Float arrays: values above this are solid")
    voxel_size: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0, unit='LENGTH')
    grid_name: StringProperty(name="Array", description=".npz: the array to mesh (empty: the only one)")
    axis_order: EnumProperty(name="Axis Order", items=AXIS_ORDER_ITEMS, default='XYZ',
                             description=AXIS_ORDER_DESCRIPTION)

    def build(self, context, progress):
        path = self.source_path()
        loaded = rc.io.load_grid_with_info(path, self.threshold, grid=self.grid_name or None,
                                           axis_order=self.axis_order.lower())
        core = self.mesh_voxels(loaded.voxels, progress)
        placement = np.diag([self.voxel_size] * 3 + [1.0]) @ loaded.transform
        matrix, scale = split_scale(placement)
        outcome = Outcome()
        choice = MaterialChoice(self.material_mode, self.reuse_materials)
        grid_objects(outcome, path.stem, core, choice, matrix, self.output_mode, scale=scale)
        return outcome
