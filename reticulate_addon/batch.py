"""Batch meshing: many input files -> one output file each, and a summary table.

Shared by ``scripts/batch_mesh.py`` (``blender -b -P scripts/batch_mesh.py --
INPUT... --out DIR`` or ``python scripts/batch_mesh.py INPUT... --out DIR``)
and the ``blender -c reticulate INPUT... --out DIR`` command.  Every input is
meshed in an emptied scene through the add-on's operators and written as
``DIR/<stem>.<format>`` (``DIR/<stem>_<suffix>.<format>`` for inputs that
share a stem, see :func:`output_targets`); a failing input is reported and
the others still run.  Exit code 0 when every input succeeded, 1 otherwise
(2 for bad usage, before anything is written).
"""
import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import bpy

from .properties import AXIS_ORDER_ITEMS, settings_of

FORMATS = ("blend", "glb", "obj")
SUFFIXES = {".vox": "vox", ".npy": "array", ".npz": "array", ".vdb": "volume"}


def parse_args(argv, prog):
    parser = argparse.ArgumentParser(prog=prog, description="Mesh voxel files with Reticulate, one output each.")
    parser.add_argument("inputs", nargs="+", type=Path, help=".vox, .npy, .npz or .vdb files")
    parser.add_argument("--out", required=True, type=Path, help="output folder (created if missing)")
    parser.add_argument("--format", choices=FORMATS, default="blend")
    parser.add_argument("--voxel-size", type=float, default=0.1, help="edge length of a voxel (.vox, .npy/.npz)")
    parser.add_argument("--threshold", type=float, default=0.5,
                        help="float grids: solid above this (level sets: inside their surface)")
    parser.add_argument("--grid", default="", help=".vdb grid / .npz array name (default: the first / only one)")
    parser.add_argument("--axis-order", default="xyz", choices=[item[0].lower() for item in AXIS_ORDER_ITEMS],
                        help=".npy/.npz: the order of the array's axes (zyx for arrays stored [z, y, x])")
    parser.add_argument("--output", choices=("OBJECT", "MODEL", "CHUNK"), default="MODEL",
                        help="one object, one per .vox model, or one per 32^3 chunk")
    return parser.parse_args(argv)


def output_targets(inputs, out, fmt):
    """The output file of each input: ``out/<stem>.<fmt>``, or
    ``out/<stem>_<suffix>.<fmt>`` for inputs whose stems clash (``two.npy``
    and ``two.vdb`` -> ``two_npy``, ``two_vdb``).  Names are compared
    without case, as macOS and Windows file systems do.  ValueError when two
    inputs would still write one file."""
    stems = Counter(path.stem.casefold() for path in inputs)
    names = [path.stem if stems[path.stem.casefold()] == 1 else f"{path.stem}_{path.suffix.lstrip('.')}"
             for path in inputs]
    first: dict[str, Path] = {}
    for path, name in zip(inputs, names):
        other = first.setdefault(name.casefold(), path)
        if other is not path:
            raise ValueError(f"{other} and {path} would both be written to {out / f'{name}.{fmt}'}")
    return [out / f"{name}.{fmt}" for name in names]


def clear_scene():
    """Remove every object and the data it used, leaving an empty scene."""
    doomed = [*bpy.data.objects, *bpy.data.meshes, *bpy.data.materials, *bpy.data.volumes,
              *bpy.data.lights, *bpy.data.cameras]
    if doomed:
        bpy.data.batch_remove(doomed)


def mesh_file(path, args):
    """Run the operator for ``path`` in the current scene (RuntimeError on failure)."""
    ops = getattr(bpy.ops, "reticulate")   # registered at run time
    context = bpy.context
    assert context.scene is not None and context.view_layer is not None
    kind = SUFFIXES.get(path.suffix.lower())
    common = {"output_mode": args.output}
    if kind == "vox":
        ops.import_vox(filepath=str(path), voxel_size=args.voxel_size, **common)
    elif kind == "array":
        ops.mesh_array(filepath=str(path), threshold=args.threshold, voxel_size=args.voxel_size,
                       grid_name=args.grid, axis_order=args.axis_order.upper(), **common)
    elif kind == "volume":
        volume = bpy.data.volumes.new(path.stem)
        volume.filepath = str(path)
        ob = bpy.data.objects.new(path.stem, volume)
        context.scene.collection.objects.link(ob)
        context.view_layer.objects.active = ob
        try:
            ops.mesh_volume(grid_name=args.grid, threshold=args.threshold, **common)
        finally:
            bpy.data.batch_remove([ob, volume])
    else:
        raise ValueError(f"unsupported input type {path.suffix!r} (use {', '.join(SUFFIXES)})")


def export(target, fmt):
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "blend":
        bpy.ops.wm.save_as_mainfile(filepath=str(target), copy=True, check_existing=False)
    elif fmt == "obj":
        bpy.ops.wm.obj_export(filepath=str(target), export_materials=True, check_existing=False)
    else:
        bpy.ops.export_scene.gltf(filepath=str(target), export_format='GLB', check_existing=False)


def run(argv, prog="batch_mesh.py"):
    try:
        args = parse_args(argv, prog)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        targets = output_targets(args.inputs, args.out, args.format)
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr, flush=True)
        return 2
    rows = []
    for path, target in zip(args.inputs, targets):
        clear_scene()
        start = time.perf_counter()
        print(f"[reticulate] {path} ...", flush=True)
        try:
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such file")
            mesh_file(path, args)
            export(target, args.format)
            result = settings_of(bpy.context.scene)
            rows.append((str(path), "ok", result.last_triangles, result.last_vertices, result.last_materials,
                         time.perf_counter() - start, str(target)))
        except Exception as error:
            message = str(error).strip().replace("\n", " ")
            print(f"[reticulate] {path}: FAILED: {message}", file=sys.stderr, flush=True)
            rows.append((str(path), "FAILED", 0, 0, 0, time.perf_counter() - start, message))
    clear_scene()
    print_summary(rows)
    return 0 if all(row[1] == "ok" for row in rows) else 1


def print_summary(rows):
    header = ("input", "status", "triangles", "vertices", "materials", "seconds", "output")
    cells = [header] + [(r[0], r[1], str(r[2]), str(r[3]), str(r[4]), f"{r[5]:.2f}", r[6]) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header) - 1)]
    for row in cells:
        print("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))) + "  " + row[-1])
    failed = sum(1 for r in rows if r[1] != "ok")
    print(f"{len(rows) - failed} succeeded, {failed} failed")


def cli(argv):
    """``blender -c reticulate INPUT... --out DIR [--format ...]``."""
    return run(list(argv), prog="blender -c reticulate")
