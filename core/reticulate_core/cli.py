"""Command line: ``python -m reticulate_core mesh|stats INPUT...``.

``mesh`` writes one .obj (with .mtl) or .ply per input: to ``-o FILE`` for a
single input, or into ``-o DIRECTORY`` as ``<stem>.<format>``.  A .vox input
becomes one output holding all of its models, each placed by its transform
(material = palette index, .mtl colours from the palette); .npy/.npz/.vdb
inputs are read with ``io.load_grid_with_info`` (``--threshold`` for float
grids) and placed by their transform.  ``--voxel-size`` scales the result.

``stats`` prints, per input (per model of a .vox), the dimensions, the solid
voxels, the non-empty and total chunks, and the triangles and time of
``mesh_grid``.

Errors (missing file, bad format, bad options) print one line on stderr and
exit with status 1; usage errors exit with status 2 (argparse).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

from . import io
from .export import write_mesh
from .grid import CHUNK, mesh_grid
from .mesh import Mesh

INPUT_SUFFIXES = (".vox", ".npy", ".npz", ".vdb")
OUTPUT_FORMATS = ("obj", "ply")


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("reticulate: interrupted", file=sys.stderr)
        return 1
    except (OSError, ValueError, TypeError, MemoryError, io.OpenVDBUnavailable) as error:
        print(f"reticulate: error: {_describe(error)}", file=sys.stderr)
        return 1


def _describe(error):
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    if isinstance(error, MemoryError):
        return "not enough memory for this grid"
    return str(error)


def _parser():
    parser = argparse.ArgumentParser(prog="python -m reticulate_core",
                                     description="Minimal watertight meshes of voxel files.")
    commands = parser.add_subparsers(dest="command", required=True)

    mesh = commands.add_parser("mesh", help="mesh voxel files into .obj or .ply")
    mesh.add_argument("inputs", nargs="+", metavar="INPUT", help=".vox, .npy, .npz or .vdb file")
    mesh.add_argument("-o", "--output", required=True, metavar="OUT",
                      help="output .obj/.ply file (one input) or directory")
    mesh.add_argument("--format", choices=OUTPUT_FORMATS, default=None,
                      help="output format when OUT is a directory (default obj)")
    mesh.add_argument("--manifold", action="store_true",
                      help="split edge and corner contacts so every edge has two triangles")
    mesh.set_defaults(run=_run_mesh)

    stats = commands.add_parser("stats", help="print grid and mesh statistics")
    stats.add_argument("inputs", nargs="+", metavar="INPUT", help=".vox, .npy, .npz or .vdb file")
    stats.set_defaults(run=_run_stats)

    for command in (mesh, stats):
        command.add_argument("--threshold", type=float, default=None,
                             help="float grids: values above it are solid (level sets: inside their surface)")
        command.add_argument("--workers", type=int, default=None,
                             help="meshing threads (default: all cores)")
    mesh.add_argument("--voxel-size", type=float, default=1.0, help="world size of one voxel")
    return parser


# ---------------------------------------------------------------- inputs


class _Model:
    """One grid to mesh: voxels, 4x4 voxel-corner -> world transform, colours or None."""

    def __init__(self, label, voxels, transform, colours):
        self.label, self.voxels, self.transform, self.colours = label, voxels, transform, colours


def _load(path, threshold):
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in INPUT_SUFFIXES:
        raise ValueError(f"{path}: unsupported input format {suffix or '(no suffix)'!r} "
                         f"(expected {', '.join(INPUT_SUFFIXES)})")
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    if suffix == ".vox":
        scene = io.read_vox(path)
        if not scene.models:
            raise ValueError(f"{path}: the .vox file has no models")
        return [_Model(f"{path.name} model {i}", model.voxels, model.transform, scene.palette)
                for i, model in enumerate(scene.models)]
    loaded = io.load_grid_with_info(path, threshold)
    return [_Model(path.name, loaded.voxels, loaded.transform, None)]


def _placed(mesh, transform, voxel_size):
    """The mesh moved by a 4x4 affine (then scaled); winding kept outward under mirroring."""
    transform = np.asarray(transform, dtype=np.float64)
    linear = transform[:3, :3]
    positions = (mesh.positions.astype(np.float64) @ linear.T + transform[:3, 3]) * voxel_size
    triangles = mesh.triangles
    if np.linalg.det(linear) < 0:
        triangles = triangles[:, ::-1]
    normals = np.zeros((len(mesh.faces), 3))
    normals[np.arange(len(mesh.faces)), mesh.faces // 2] = np.where(mesh.faces % 2 == 1, 1.0, -1.0)
    normals = normals @ linear.T
    axis = np.argmax(np.abs(normals), axis=1)
    faces = 2 * axis + (normals[np.arange(len(axis)), axis] > 0)
    return Mesh(positions, triangles, mesh.materials, faces)


def _concatenate(meshes):
    offsets = np.cumsum([0] + [m.n_vertices for m in meshes])
    return Mesh(np.concatenate([m.positions for m in meshes]),
                np.concatenate([m.triangles + o for m, o in zip(meshes, offsets)]),
                np.concatenate([m.materials for m in meshes]),
                np.concatenate([m.faces for m in meshes]))


class _ProgressBar:
    """A progress line on stderr, shown once the work has taken more than a second."""

    def __init__(self, label):
        self.label = label
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, done, total):
        if not self.shown and time.perf_counter() - self.start < 1.0:
            return
        self.shown = True
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done}/{total} chunks")
        sys.stderr.flush()

    def close(self):
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _mesh_model(model, args, manifold=False):
    bar = _ProgressBar(model.label)
    try:
        return mesh_grid(model.voxels, workers=args.workers, progress=bar, manifold=manifold)
    finally:
        bar.close()


# ---------------------------------------------------------------- commands


def _outputs(args):
    out = Path(args.output)
    if out.is_dir() or args.output.endswith(("/", "\\")):
        fmt = args.format or "obj"
        return [out / f"{Path(name).stem}.{fmt}" for name in args.inputs]
    if len(args.inputs) > 1:
        raise ValueError(f"{len(args.inputs)} inputs need -o to be an existing directory")
    if out.suffix.lower().lstrip(".") not in OUTPUT_FORMATS:
        raise ValueError(f"{out}: output must end in .obj or .ply (or be a directory)")
    if args.format and out.suffix.lower() != "." + args.format:
        raise ValueError(f"{out}: --format {args.format} does not match the file suffix")
    return [out]


def _run_mesh(args):
    if not 0 < args.voxel_size < float("inf"):
        raise ValueError(f"--voxel-size must be a positive finite number, got {args.voxel_size}")
    outputs = _outputs(args)
    if outputs[0].parent and not outputs[0].parent.exists():
        outputs[0].parent.mkdir(parents=True)
    for name, out in zip(args.inputs, outputs):
        models = _load(name, args.threshold)
        start = time.perf_counter()
        placed = [_placed(_mesh_model(model, args, args.manifold), model.transform, args.voxel_size)
                  for model in models]
        mesh = _concatenate(placed)
        seconds = time.perf_counter() - start
        write_mesh(out, mesh, models[0].colours)
        print(f"{out}: {mesh.n_triangles} triangles, {mesh.n_vertices} vertices, "
              f"{len(np.unique(mesh.materials))} materials, {seconds:.3f} s")
    return 0


def _run_stats(args):
    for name in args.inputs:
        for model in _load(name, args.threshold):
            voxels = model.voxels
            n_chunks = [-(-n // CHUNK) for n in voxels.shape]
            non_empty = sum(
                bool(voxels[x * CHUNK:(x + 1) * CHUNK, y * CHUNK:(y + 1) * CHUNK,
                            z * CHUNK:(z + 1) * CHUNK].any())
                for x, y, z in np.ndindex(*n_chunks))
            start = time.perf_counter()
            mesh = _mesh_model(model, args)
            seconds = time.perf_counter() - start
            print(f"{model.label}\n"
                  f"  dimensions  {' x '.join(str(n) for n in voxels.shape)}\n"
                  f"  voxels      {int(np.count_nonzero(voxels))} solid of {voxels.size}\n"
                  f"  chunks      {non_empty} non-empty / {int(np.prod(n_chunks))}\n"
                  f"  triangles   {mesh.n_triangles}\n"
                  f"  vertices    {mesh.n_vertices}\n"
                  f"  materials   {len(np.unique(mesh.materials))}\n"
                  f"  time        {seconds:.3f} s")
    return 0
