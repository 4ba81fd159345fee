"""Scene-graph placement of hand-built files, against cells computed by hand."""
import numpy as np
from hypothesis import given, settings, strategies as st

from example_budget import examples
from reticulate_core.io import read_vox_bytes
from vox_chunks import chunk, ints, ngrp, nshp, ntrn, size, vdict, vox, xyzi

MODEL = size(3, 2, 1) + xyzi((0, 0, 0, 1))  # pivot = size // 2 = (1, 1, 0)


def world_cell(model, voxel):
    """Lowest corner of the world cube onto which ``voxel``'s unit cube maps."""
    corner = np.append(np.array(voxel, dtype=float), 1)
    a = (model.transform @ corner)[:3]
    b = (model.transform @ (corner + [1, 1, 1, 0]))[:3]
    assert np.array_equal(np.abs(b - a), [1, 1, 1])
    return tuple(np.minimum(a, b).astype(int).tolist())


def test_translation_places_the_pivot_voxel():
    scene = read_vox_bytes(vox(MODEL, ntrn(0, 1, {"_t": "10 20 30"}), nshp(1, 0)))
    assert world_cell(scene.models[0], (0, 0, 0)) == (9, 19, 30)
    assert world_cell(scene.models[0], (1, 1, 0)) == (10, 20, 30)


def test_mirror_turns_about_the_pivot_corner():
    # _r = 20: row 0 -> column 0 negative, row 1 -> column 1, row 2 -> column 2.
    # x turns about the grid plane x = 1 (= 3 // 2), which lands on 10: the cells
    # [0, 1], [1, 2], [2, 3] go to [10, 11], [9, 10], [8, 9]
    scene = read_vox_bytes(vox(MODEL, ntrn(0, 1, {"_t": "10 20 30", "_r": "20"}), nshp(1, 0)))
    assert world_cell(scene.models[0], (0, 0, 0)) == (10, 19, 30)
    assert world_cell(scene.models[0], (1, 1, 0)) == (9, 20, 30)
    assert world_cell(scene.models[0], (2, 0, 0)) == (8, 19, 30)


def test_nested_transforms_compose_parent_first():
    # root: turn 90 degrees about z (_r = 17), then move by (100, 0, 0); child: move by (1, 2, 3).
    # child translation seen from the root: Rz (1, 2, 3) = (-2, 1, 3), plus (100, 0, 0).
    # centre of voxel (0, 0, 0) - pivot corner = (-1/2, -1/2, 1/2) -> Rz -> (1/2, -1/2, 1/2)
    # -> floor (0, -1, 0) -> + (98, 1, 3) = (98, 0, 3)
    scene = read_vox_bytes(vox(MODEL, ntrn(0, 1, {"_t": "100 0 0", "_r": "17"}), ngrp(1, 2),
                               ntrn(2, 3, {"_t": "1 2 3"}), nshp(3, 0)))
    assert world_cell(scene.models[0], (0, 0, 0)) == (98, 0, 3)


def test_instances_share_voxels_and_keep_names_layers_hidden():
    layers = (chunk(b"LAYR", ints(0) + vdict({"_name": "shown"}) + ints(-1))
              + chunk(b"LAYR", ints(1) + vdict({"_name": "off", "_hidden": "1"}) + ints(-1)))
    data = vox(MODEL, ntrn(0, 1), ngrp(1, 2, 4, 6),
               ntrn(2, 3, {"_t": "0 0 0"}, {"_name": "first"}, layer=0), nshp(3, 0),
               ntrn(4, 5, {"_t": "5 0 0"}, {"_name": "second", "_hidden": "1"}, layer=0), nshp(5, 0),
               ntrn(6, 7, {"_t": "9 0 0"}, {"_name": "third"}, layer=1), nshp(7, 0), layers)
    scene = read_vox_bytes(data)
    assert [m.name for m in scene.models] == ["first", "second", "third"]
    assert [m.hidden for m in scene.models] == [False, True, True]
    assert [m.layer for m in scene.models] == [0, 0, 1]
    assert scene.models[0].voxels is scene.models[1].voxels is scene.models[2].voxels
    assert [world_cell(m, (1, 1, 0)) for m in scene.models] == [(0, 0, 0), (5, 0, 0), (9, 0, 0)]
    assert scene.layers[1].name == "off" and scene.layers[1].hidden and not scene.layers[0].hidden


def test_hidden_group_hides_its_subtree():
    data = vox(MODEL, ntrn(0, 1), ngrp(1, 2, attributes={"_hidden": "1"}), ntrn(2, 3), nshp(3, 0))
    assert read_vox_bytes(data).models[0].hidden


def test_frame_zero_is_used():
    frames = vdict({"_f": "3", "_t": "50 50 50"}) + vdict({"_f": "0", "_t": "7 0 0"})
    transform = chunk(b"nTRN", ints(0) + vdict({}) + ints(1, -1, 0, 2) + frames)
    shape = chunk(b"nSHP", ints(1) + vdict({}) + ints(2, 0) + vdict({"_f": "0"}) + ints(0) + vdict({"_f": "1"}))
    scene = read_vox_bytes(vox(MODEL, transform, shape))
    assert world_cell(scene.models[0], (1, 1, 0)) == (7, 0, 0)


def test_files_without_scene_graph_give_models_in_file_order():
    data = vox(chunk(b"PACK", ints(2)), size(1, 1, 1), xyzi((0, 0, 0, 4)),
               size(2, 1, 1), xyzi((1, 0, 0, 9)), version=150)
    scene = read_vox_bytes(data)
    assert scene.version == 150
    assert [m.voxels.shape for m in scene.models] == [(1, 1, 1), (2, 1, 1)]
    assert [m.model_id for m in scene.models] == [0, 1]
    assert all(np.array_equal(m.transform, np.eye(4)) for m in scene.models)
    assert scene.models[1].voxels[1, 0, 0] == 9


def test_palette_entry_k_is_row_k_plus_one_and_materials_by_index():
    entries = np.arange(1024, dtype=np.uint32).astype(np.uint8).reshape(256, 4)
    material = chunk(b"MATL", ints(5) + vdict({"_type": "_metal", "_rough": "0.25", "_custom": "x"}))
    scene = read_vox_bytes(vox(MODEL, chunk(b"RGBA", entries.tobytes()), material))
    assert np.array_equal(scene.palette[1:], entries[:255])
    assert not scene.palette[0].any()
    assert scene.materials == {5: {"type": "metal", "rough": 0.25, "custom": "x"}}


def test_strings_are_utf8():
    data = vox(MODEL, ntrn(0, 1, attributes={"_name": "Bäume"}), nshp(1, 0))
    assert read_vox_bytes(data).models[0].name == "Bäume"


@settings(max_examples=examples(150))
@given(st.integers(0, 127), st.tuples(*[st.integers(1, 9)] * 3), st.tuples(*[st.integers(-40, 40)] * 3),
       st.data())
def test_every_rotation_turns_about_the_grid_corner_below_the_middle(r, shape, t, data):
    """MagicaVoxel's rule, as the ogt_vox, vengi and voxel-io readers apply it:
    voxel v lands on floor(R (v + 1/2 - size // 2)) + t."""
    if r & 3 == 3 or (r >> 2) & 3 == 3 or r & 3 == (r >> 2) & 3:
        return                                    # not a rotation byte
    columns = (r & 3, (r >> 2) & 3, 3 - (r & 3) - ((r >> 2) & 3))
    turn = np.zeros((3, 3), int)
    for row, column in enumerate(columns):
        turn[row, column] = -1 if r & (16 << row) else 1
    voxel = tuple(data.draw(st.integers(0, n - 1)) for n in shape)
    model = size(*shape) + xyzi((*voxel, 1))
    node = {"_t": " ".join(map(str, t)), "_r": str(r)}
    scene = read_vox_bytes(vox(model, ntrn(0, 1, node), nshp(1, 0)))
    expected = np.floor(turn @ (np.array(voxel) + 0.5 - np.array(shape) // 2)).astype(int) + t
    assert world_cell(scene.models[0], voxel) == tuple(expected.tolist())
