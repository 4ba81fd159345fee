"""The N-panel draws for every source kind, headless, through a recording fake layout
(BLENDER_NOTES §4: no UI region exists in background mode)."""
import bpy
import numpy as np
import pytest
import reticulate_core as rc
from conftest import sample


class Recorder:
    """Stands in for UILayout: records every call; sub-layouts record into the same log."""

    def __init__(self, log):
        self._log = log

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self._log.append((name, args, kwargs))
            if name == "operator":
                return OperatorProps(self._log)
            return Recorder(self._log)
        return call


class OperatorProps:
    def __init__(self, log):
        object.__setattr__(self, "_log", log)

    def __setattr__(self, name, value):
        self._log.append(("set", (name, value), {}))


def draw(context=None):
    log = []

    class FakePanel:
        layout = Recorder(log)

    bpy.types.RETICULATE_PT_main.draw(FakePanel(), context or bpy.context)
    return log


def props(log):
    return [args[1] for name, args, _ in log if name == "prop"]


def operator_call(log):
    (call,) = [(args, kwargs) for name, args, kwargs in log if name == "operator"]
    settings = dict(args for name, args, _ in log if name == "set")
    return call[0][0], settings


@pytest.mark.parametrize("source, operator, shown", [
    ('VOX', "reticulate.import_vox", {"filepath", "vox_scale", "hierarchy_empties", "center_origins",
                                      "include_hidden"}),
    ('ARRAY', "reticulate.mesh_array", {"filepath", "grid_name", "axis_order", "threshold", "voxel_size"}),
    ('VOLUME', "reticulate.mesh_volume", {"grid_name", "threshold"}),
    ('MESH', "reticulate.voxel_remesh", {"voxel_size"}),
])
def test_each_source_shows_its_settings_and_button(source, operator, shown):
    settings = bpy.context.scene.reticulate
    settings.source = source
    settings.filepath = "/some/file"
    settings.threshold = 0.25
    log = draw()
    drawn = set(props(log))
    assert shown <= drawn
    assert {"source", "output_mode", "material_mode", "reuse_materials", "link_to_active"} <= drawn
    idname, passed = operator_call(log)
    assert idname == operator
    for name in shown & {"filepath", "threshold", "grid_name", "voxel_size", "hierarchy_empties", "center_origins",
                         "include_hidden", "axis_order"}:
        assert passed[name] == getattr(settings, name)
    if source == 'VOX':
        assert passed["voxel_size"] == settings.vox_scale
    # every passed name is a real property of that operator
    rna = getattr(bpy.ops.reticulate, operator.split(".")[1]).get_rna_type()
    assert set(passed) <= set(rna.properties.keys())


def test_warns_without_a_suitable_active_object():
    bpy.context.scene.reticulate.source = 'VOLUME'
    labels = [kwargs.get("text", "") for name, _, kwargs in draw() if name == "label"]
    assert any("Select a volume object" in text for text in labels)
    bpy.ops.mesh.primitive_cube_add()
    bpy.context.scene.reticulate.source = 'MESH'
    labels = [kwargs.get("text", "") for name, _, kwargs in draw() if name == "label"]
    assert "Cube" in labels


def test_result_box_after_a_run():
    assert not any(kwargs.get("text", "").startswith("Last:") for n, _, kwargs in draw() if n == "label")
    bpy.ops.reticulate.import_vox(filepath=str(sample("rt_torture.vox")))
    result = bpy.context.scene.reticulate
    labels = [kwargs.get("text", "") for name, _, kwargs in draw() if name == "label"]
    assert "Last: rt_torture.vox" in labels
    assert f"{result.last_triangles:,}" in labels and f"{result.last_vertices:,}" in labels
    assert str(result.last_materials) == "9" and "9" in labels


def test_panel_button_runs_the_operator_with_the_panel_settings():
    settings = bpy.context.scene.reticulate
    settings.source = 'VOX'
    settings.filepath = str(sample("signpost.vox"))
    settings.vox_scale = 0.5
    idname, passed = operator_call(draw())
    module, name = idname.split(".")
    assert getattr(getattr(bpy.ops, module), name)(**passed) == {'FINISHED'}
    (ob,) = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    solid = np.argwhere(rc.io.read_vox(settings.filepath).models[0].voxels)
    extent = solid.max(axis=0) - solid.min(axis=0) + 1
    assert sorted(ob.dimensions) == pytest.approx(sorted(0.5 * extent))


def test_invoke_with_a_chosen_file_runs_at_once():
    """The panel button invokes; with a file already chosen no file browser is needed."""
    path = sample("hierarchy.vox")
    assert bpy.ops.reticulate.import_vox('INVOKE_DEFAULT', filepath=str(path)) == {'FINISHED'}
    assert len([ob for ob in bpy.data.objects if ob.type == 'MESH']) == 4
