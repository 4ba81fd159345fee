"""Benchmark the Blender side: file -> finished object, split into core and mesh-building time.

    .venv/bin/python scripts/bench_blender.py [--repeat N]

Cases: the largest sample .vox (``rt_terrain256.vox``, through
``reticulate.import_vox``), a 256^3 terrain grid and an 80^3 white-noise grid
(about 1.1 million triangles) saved as .npy (through ``reticulate.mesh_array``).  For each: reading the file, the core mesher
(``mesh_grid``), building the Blender mesh with its materials
(``mesh_build.build_mesh``), and the operator end to end (file to linked
object).  Target: end to end <= 1 s.  Prints the median of N runs.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="reticulate-bench-"))

import numpy as np  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent
SAMPLES = SCRIPTS.parent.parent / "shared" / "samples" / "vox"


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def bench_case(bpy, addon, rc, label, read, run_operator, repeat):
    rows = {"read": [], "core": [], "build": [], "operator": []}
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        grid, t_read = timed(read)
        mesh, t_core = timed(lambda: rc.mesh_grid(grid))
        piece = addon.mesh_build.Piece.from_core(mesh)
        ids = addon.mesh_build.distinct_ids(piece)

        def build():
            materials = addon.materials.materials_for_ids(ids)
            return addon.mesh_build.build_mesh("bench", piece, ids, materials)

        _, t_build = timed(build)
        bpy.ops.wm.read_homefile(use_empty=True)
        _, t_op = timed(run_operator)
        rows["read"].append(t_read)
        rows["core"].append(t_core)
        rows["build"].append(t_build)
        rows["operator"].append(t_op)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{label:<28} {mesh.n_triangles:>9} {mesh.n_vertices:>9} {med['read']:>7.3f} {med['core']:>7.3f} "
          f"{med['build']:>7.3f} {med['operator']:>9.3f}  {'ok' if med['operator'] <= 1.0 else 'SLOW'}")
    return med


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    import bpy
    sys.path.insert(0, str(SCRIPTS))
    from batch_mesh import addon_module

    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon = addon_module()
    import reticulate_core as rc
    from reticulate_core.samples import noise_grid, terrain_grid

    print(f"{'case':<28} {'tris':>9} {'verts':>9} {'read':>7} {'core':>7} {'build':>7} {'end2end':>9}  (seconds)")
    vox = SAMPLES / "rt_terrain256.vox"
    bench_case(bpy, addon, rc, vox.name, lambda: rc.io.read_vox(vox).models[0].voxels,
               lambda: bpy.ops.reticulate.import_vox(filepath=str(vox), output_mode='OBJECT'), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        npy = Path(tmp) / "terrain256.npy"
        np.save(npy, terrain_grid((256, 256, 256), materials=4, seed=1))
        bench_case(bpy, addon, rc, "terrain 256^3 (.npy)", lambda: rc.io.load_grid(npy),
                   lambda: bpy.ops.reticulate.mesh_array(filepath=str(npy)), args.repeat)
        noise = Path(tmp) / "noise80.npy"
        np.save(noise, noise_grid((80, 80, 80), 0.3, seed=2))
        bench_case(bpy, addon, rc, "noise 80^3 (~1.1M tris)", lambda: rc.io.load_grid(noise),
                   lambda: bpy.ops.reticulate.mesh_array(filepath=str(noise)), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
