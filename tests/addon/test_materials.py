"""MagicaVoxel MATL properties -> Principled BSDF inputs (hand-written MATL dicts as the reader returns them)."""
import numpy as np
import pytest


def bsdf_of(addon, material_id, props, palette=None):
    (material,) = addon.materials.materials_for_ids([material_id], palette=palette,
                                                    vox_materials={material_id: props})
    return material, material.node_tree.nodes["Principled BSDF"].inputs


def test_metal(addon):
    _, inputs = bsdf_of(addon, 3, {"type": "metal", "metal": 0.8, "rough": 0.2, "sp": 0.7})
    assert inputs["Metallic"].default_value == pytest.approx(0.8)
    assert inputs["Roughness"].default_value == pytest.approx(0.2)
    assert inputs["Specular IOR Level"].default_value == pytest.approx(0.7)
    assert inputs["Transmission Weight"].default_value == 0


def test_glass_ior_is_stored_minus_one(addon):
    _, inputs = bsdf_of(addon, 4, {"_type": "_glass", "_trans": 0.9, "_ior": 0.45, "_rough": 0.05})
    assert inputs["Transmission Weight"].default_value == pytest.approx(0.9)
    assert inputs["IOR"].default_value == pytest.approx(1.45)
    assert inputs["Metallic"].default_value == 0


def test_emit_uses_the_palette_colour(addon):
    palette = np.zeros((256, 4), np.uint8)
    palette[5] = (255, 128, 0, 255)
    material, inputs = bsdf_of(addon, 5, {"type": "emit", "emit": 0.5, "flux": 1.0}, palette)
    assert inputs["Emission Strength"].default_value == pytest.approx(5.0)
    assert tuple(inputs["Emission Color"].default_value) == pytest.approx(tuple(material.diffuse_color))
    assert material.diffuse_color[0] == pytest.approx(1.0) and material.diffuse_color[2] == 0
    assert 0.2 < material.diffuse_color[1] < 0.25   # sRGB 128 -> linear 0.216


def test_ids_without_palette_get_distinct_colours(addon):
    materials = addon.materials.materials_for_ids([1, 2, 3, 300])
    colours = {tuple(round(c, 4) for c in m.diffuse_color) for m in materials}
    assert len(colours) == 4
    assert [m.name for m in materials] == ["retic_1", "retic_2", "retic_3", "retic_300"]
