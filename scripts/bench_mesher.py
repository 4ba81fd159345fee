"""Benchmark the chunk mesher against a vectorised numpy culled-face mesher.

    PYTHONPATH=core python scripts/bench_mesher.py [--repeats N]

For each scenario of ``reticulate_core.samples`` prints the median time per
chunk (one thread) of ``mesh_chunk``, of the callback API
``Mesher.make_triangles`` (identity ``to_material``, no-op ``on_triangle``),
and of the numpy baseline (two triangles per exposed unit face), the
triangle counts, the speed-up over the baseline and the target time.
"""
import argparse
import statistics
import time

import numpy as np

import reticulate_core as rc
from reticulate_core.samples import SCENARIOS, scenario_chunk

TARGET_US = {"empty": 5, "full": 20, "terrain": 60, "sphere": 80, "noise": 1000, "checkerboard": 2000}

# unit-square corners in (u, v) and the two counter-clockwise triangles over them
_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])
_QUAD_TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]])


def numpy_culled_mesh(voxels):
    """Two triangles per solid/empty unit face (no merging, no welding)."""
    padded = np.pad(voxels, 1)
    positions, triangles, materials, faces = [], [], [], []
    n_vertices = 0
    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        moved = np.moveaxis(padded, (axis, u_axis, v_axis), (0, 1, 2))[:, 1:-1, 1:-1]
        lower, upper = moved[:-1], moved[1:]
        for positive, solid, empty in ((True, lower, upper), (False, upper, lower)):
            layer, u, v = np.nonzero((solid != 0) & (empty == 0))
            corners = np.empty((len(layer), 4, 3), np.float32)
            corners[:, :, axis] = layer[:, None]
            corners[:, :, u_axis] = u[:, None] + _SQUARE[:, 0]
            corners[:, :, v_axis] = v[:, None] + _SQUARE[:, 1]
            quads = _QUAD_TRIANGLES if positive else _QUAD_TRIANGLES[:, ::-1]
            index = n_vertices + 4 * np.arange(len(layer))[:, None, None] + quads[None]
            positions.append(corners.reshape(-1, 3))
            triangles.append(index.reshape(-1, 3))
            materials.append(np.repeat(solid[layer, u, v], 2))
            faces.append(np.full(2 * len(layer), 2 * axis + int(positive), np.uint8))
            n_vertices += 4 * len(layer)
    return rc.Mesh(np.concatenate(positions), np.concatenate(triangles),
                   np.concatenate(materials), np.concatenate(faces))


CLOCK = time.perf_counter


def median_seconds(function, repeats):
    times = []
    for _ in range(repeats):
        start = CLOCK()
        function()
        times.append(CLOCK() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed runs per measurement")
    parser.add_argument("--cpu", action="store_true",
                        help="time with the thread's CPU clock (steadier on a loaded machine)")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.thread_time
    mesher = rc.Mesher()
    header = (f"{'scenario':14} {'mesh_chunk us':>13} {'triangles':>9} {'callback us':>11} "
              f"{'numpy us':>9} {'numpy tris':>10} {'speed-up':>8} {'target us':>9}  met")
    print(header)
    print("-" * len(header))
    for name in SCENARIOS:
        voxels = scenario_chunk(name)
        repeats = max(5, args.repeats // 10) if name == "noise" else args.repeats
        mesh = rc.mesh_chunk(voxels)
        t_mesh = median_seconds(lambda: rc.mesh_chunk(voxels), repeats)
        t_callback = median_seconds(
            lambda: mesher.make_triangles(voxels, int, lambda triangle: None), max(3, repeats // 10))
        baseline = numpy_culled_mesh(voxels)
        t_numpy = median_seconds(lambda: numpy_culled_mesh(voxels), max(3, repeats // 4))
        target = TARGET_US.get(name)
        met = "-" if target is None else ("yes" if t_mesh * 1e6 <= target else "no")
        print(f"{name:14} {t_mesh * 1e6:13.1f} {mesh.n_triangles:9d} {t_callback * 1e6:11.1f} "
              f"{t_numpy * 1e6:9.1f} {baseline.n_triangles:10d} {t_numpy / t_mesh:7.1f}x "
              f"{target if target else '-':>9}  {met}")


if __name__ == "__main__":
    main()
