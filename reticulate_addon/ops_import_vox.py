"""``reticulate.import_vox``: a MagicaVoxel .vox file -> meshed objects.

One object per placed model (scene-graph transforms; instances of one model
are linked duplicates sharing one mesh datablock; hidden models as hidden
objects), or all visible models joined into one object, or one object per
32^3 chunk of each model.  Object names are the scene-graph node name, else
``<file stem>_<model id>``; the custom property ``reticulate_model`` holds
the index of the object's model in the scene.  Voxel ``p`` of a model lands
at ``voxel_size * (model.transform @ p)`` in world space.
"""

import bpy
import numpy as np
import reticulate_core as rc
from bpy.props import BoolProperty, FloatProperty, StringProperty

from .mesh_build import Piece, join
from .operator_base import (FileSource, MaterialChoice, Outcome, ReticulateOperator, as_matrix, mesh_data, mesh_object,
                            output_parts)
from .properties import HIDDEN_DESCRIPTION


def _placement(model_transform, size, voxel_size, centred):
    """(matrix_world, vertex offset) so that world = matrix_world @ (voxel_size * p + offset)."""
    centre = np.asarray(size, dtype=np.float64) / 2.0 if centred else np.zeros(3)
    matrix = np.asarray(model_transform, dtype=np.float64).copy()
    matrix[:3, 3] = voxel_size * (matrix[:3, 3] + matrix[:3, :3] @ centre)
    return matrix, -voxel_size * centre


class RETICULATE_OT_import_vox(FileSource, ReticulateOperator, bpy.types.Operator):  # type: ignore[misc]
    """Import a MagicaVoxel .vox file as minimal watertight meshes"""

    bl_idname = "reticulate.import_vox"
    bl_label = "Import MagicaVoxel (.vox)"
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".vox"
    filter_glob: StringProperty(default="*.vox", options={'HIDDEN'})
    file_kind = ".vox"
    filepath: StringProperty(name="File Path", subtype='FILE_PATH', options={'SKIP_SAVE'})
    voxel_size: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0, unit='LENGTH')
    hierarchy_empties: BoolProperty(name="Hierarchy Empty", default=False,
                                    description="Parent all models to one empty named after the file")
    center_origins: BoolProperty(name="Centre Origins", default=True,
                                 description="Origin of each object at the centre of its model")
    include_hidden: BoolProperty(name="Hidden Models", default=True, description=HIDDEN_DESCRIPTION)

    def build(self, context, progress):
        path = self.source_path()
        scene = rc.io.read_vox(path)
        joined = self.output_mode == 'OBJECT'
        # one object cannot hide a part of its mesh: One Object output leaves hidden models out
        indices = [i for i, m in enumerate(scene.models) if not m.hidden or (self.include_hidden and not joined)]
        models = [scene.models[i] for i in indices]
        if not models:
            raise ValueError(f"{path.name} has no {'visible ' if scene.models else ''}models")
        choice = MaterialChoice(self.material_mode, self.reuse_materials, scene.palette, scene.materials)
        outcome = Outcome()
        meshes = {}   # model_id -> core mesh, meshed once for all its instances
        distinct = {m.model_id: m for m in models}
        for done, model_id in enumerate(sorted(distinct)):
            meshes[model_id] = self.mesh_voxels(distinct[model_id].voxels,
                                                progress.part(done, len(distinct)))
        if joined:
            self._joined(outcome, path.stem, models, meshes, choice)
        else:
            self._per_model(outcome, path.stem, indices, models, meshes, choice)
        if self.hierarchy_empties:
            root = bpy.data.objects.new(path.stem, None)
            for ob in outcome.objects:
                ob.parent = root
            outcome.objects.insert(0, root)
            outcome.roots = [root]
        return outcome

    def _joined(self, outcome, stem, models, meshes, choice):
        parts = []
        for model in models:
            if meshes[model.model_id].n_triangles:
                matrix = np.asarray(model.transform, dtype=np.float64).copy()
                matrix[:3, :] *= self.voxel_size
                parts.append((Piece.from_core(meshes[model.model_id]), matrix))
        if not parts:
            raise ValueError("the file has no solid voxels: nothing to mesh")
        piece = join(parts)
        outcome.add_mesh_object(mesh_object(stem, piece, choice, np.eye(4)), piece)

    def _per_model(self, outcome, stem, indices, models, meshes, choice):
        shared = {}   # model_id -> [(suffix, bpy mesh, piece, local matrix)]
        for index, model in zip(indices, models):
            core = meshes[model.model_id]
            if core.n_triangles == 0:
                continue
            matrix, offset = _placement(model.transform, model.voxels.shape, self.voxel_size,
                                        self.center_origins)
            if model.model_id not in shared:
                shared[model.model_id] = self._parts(stem, model.model_id, core, choice, offset)
            name = model.name or f"{stem}_{model.model_id}"
            for suffix, me, piece, local in shared[model.model_id]:
                ob = bpy.data.objects.new(name + suffix, me)
                ob.matrix_world = as_matrix(matrix @ local)
                ob["reticulate_model"] = index
                if model.hidden:
                    ob.hide_viewport = True
                    ob.hide_render = True
                outcome.add_mesh_object(ob, piece)

    def _parts(self, stem, model_id, core, choice, offset):
        """[(suffix, mesh datablock, piece, local matrix)] of one model, shared by its instances."""
        return [(suffix, mesh_data(f"{stem}_model{model_id}{suffix}", piece, choice), piece, local)
                for suffix, piece, local in output_parts(core, self.output_mode, self.voxel_size, offset)]


def menu_import(self, context):
    self.layout.operator(RETICULATE_OT_import_vox.bl_idname, text="MagicaVoxel (.vox)")
