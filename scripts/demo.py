"""Demo: mesh a sample .vox with the add-on headless, render it beside the naive mesh.

    .venv/bin/python scripts/demo.py [--sample NAME.vox] [--out DIR]   (scripts/demo.sh sets up .venv first)

Writes DIR/demo.blend, DIR/demo.png (Reticulate's mesh) and DIR/demo_naive.png
(the same model as two triangles per exposed voxel face), both with their
triangle edges drawn, from the same camera; prints the statistics.
"""
import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
SAMPLES = REPO.parent / "shared" / "samples" / "vox"
VOXEL_SIZE = 0.1


def look_at(camera, target, direction, radius):
    from mathutils import Vector
    direction = Vector(direction).normalized()
    distance = radius / math.tan(camera.data.angle / 2) * 1.05
    camera.location = Vector(target) + direction * distance
    camera.rotation_euler = (-direction).to_track_quat('-Z', 'Y').to_euler()


def wire_overlay(bpy, ob, thickness):
    """A black wireframe copy of ``ob``, drawn over it, that shows every triangle edge."""
    black = bpy.data.materials.get("demo_wire") or bpy.data.materials.new("demo_wire")
    black.diffuse_color = (0, 0, 0, 1)
    bsdf = black.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.005, 0.005, 0.005, 1)
    bsdf.inputs["Roughness"].default_value = 1.0
    me = ob.data.copy()
    me.materials.clear()
    me.materials.append(black)
    wire = bpy.data.objects.new(ob.name + "_wire", me)
    wire.matrix_world = ob.matrix_world
    modifier = wire.modifiers.new("wire", 'WIREFRAME')
    modifier.thickness = thickness
    modifier.use_replace = True
    modifier.use_even_offset = True
    return wire


def setup_render(bpy, scene, width, height, samples):
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = width, height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.use_stamp_filename = False     # no path of this machine in the PNG's metadata
    world = bpy.data.worlds.new("demo_world")
    world.color = (0.05, 0.05, 0.06)
    scene.world = world
    if world.node_tree is not None:
        world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.6, 0.65, 0.75, 1)
        world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", 'SUN'))
    sun.data.energy = 3.5
    sun.rotation_euler = (math.radians(50), math.radians(10), math.radians(35))
    scene.collection.objects.link(sun)
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(camera)
    scene.camera = camera
    return camera


def render(bpy, scene, path):
    scene.render.filepath = str(path)
    start = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default="rt_torture.vox", help="a .vox file name in the samples folder, or a path")
    parser.add_argument("--out", type=Path, default=REPO / "out")
    parser.add_argument("--size", type=int, nargs=2, default=(480, 360), metavar=("W", "H"))
    parser.add_argument("--samples", type=int, default=16, help="Cycles samples per pixel")
    args = parser.parse_args(argv)
    path = Path(args.sample) if Path(args.sample).is_file() else SAMPLES / args.sample
    if not path.is_file():
        print(f"demo: sample {path} not found", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)

    import bpy
    sys.path.insert(0, str(SCRIPTS))
    from batch_mesh import addon_module
    from culled_faces import culled_face_mesh

    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon = addon_module()
    import reticulate_core as rc

    scene = bpy.context.scene
    start = time.perf_counter()
    bpy.ops.reticulate.import_vox(filepath=str(path), voxel_size=VOXEL_SIZE, output_mode='OBJECT',
                                  material_mode='SLOTS')
    seconds = time.perf_counter() - start
    result = scene.reticulate
    (ob,) = [o for o in scene.objects if o.type == 'MESH']

    vox = rc.io.read_vox(path)
    naive_parts = []
    for model in vox.models:
        matrix = np.asarray(model.transform, dtype=np.float64).copy()
        matrix[:3, :] *= VOXEL_SIZE
        naive_parts.append((addon.mesh_build.Piece.from_core(culled_face_mesh(model.voxels)), matrix))
    naive = addon.mesh_build.join(naive_parts)
    ids = addon.mesh_build.distinct_ids(naive)
    naive_mesh = addon.mesh_build.build_mesh(f"{path.stem}_naive", naive, ids,
                                             [bpy.data.materials[f"retic_{int(i)}"] for i in ids])
    naive_ob = bpy.data.objects.new(f"{path.stem}_naive", naive_mesh)

    corners = np.array([ob.matrix_world @ v.co for v in ob.data.vertices])
    low, high = corners.min(axis=0), corners.max(axis=0)
    centre, radius = (low + high) / 2, float(np.linalg.norm(high - low) / 2)
    camera = setup_render(bpy, scene, args.size[0], args.size[1], args.samples)
    look_at(camera, centre, (1.0, -1.3, 0.9), radius * 1.25)
    wire_thickness = VOXEL_SIZE * 0.06

    wire = wire_overlay(bpy, ob, wire_thickness)
    scene.collection.objects.link(wire)
    bpy.ops.wm.save_as_mainfile(filepath=str(args.out / "demo.blend"), check_existing=False)
    render_seconds = render(bpy, scene, args.out / "demo.png")

    scene.collection.objects.unlink(ob)
    scene.collection.objects.unlink(wire)
    scene.collection.objects.link(naive_ob)
    naive_wire = wire_overlay(bpy, naive_ob, wire_thickness)
    scene.collection.objects.link(naive_wire)
    naive_seconds = render(bpy, scene, args.out / "demo_naive.png")

    print(f"demo: {path.name}: {result.last_triangles} triangles, {result.last_vertices} vertices, "
          f"{result.last_materials} materials, meshed and built in {seconds:.3f} s")
    print(f"demo: naive culled faces: {naive.n_triangles} triangles "
          f"({naive.n_triangles / max(1, result.last_triangles):.1f}x as many)")
    print(f"demo: wrote {args.out / 'demo.blend'}, {args.out / 'demo.png'} ({render_seconds:.1f} s), "
          f"{args.out / 'demo_naive.png'} ({naive_seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
