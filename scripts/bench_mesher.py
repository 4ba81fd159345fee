"""Benchmark the chunk mesher against a vectorised numpy culled-face mesher.

    .venv/bin/python scripts/bench_mesher.py [--repeats N] [--cpu]

For each scenario of ``reticulate_core.samples`` prints the median time per
chunk (one thread) of ``mesh_chunk`` (the layer scan of a dense chunk), of
the seed's double walk over the chunk's octree (``Mesher(walks=True)``,
the octree built in the timed call), of the callback API
``Mesher.make_triangles`` (identity ``to_material``, no-op ``on_triangle``),
and of the numpy baseline (two triangles per exposed unit face), the
triangle counts, the speed-up over the baseline and the target time,
after the voxel row kernels in use (``row_kernel()``).
"""
import argparse
import statistics
import time

import numpy as np

import reticulate_core as rc
from reticulate_core.mesher import row_kernel
from reticulate_core.samples import SCENARIOS, scenario_chunk

from culled_faces import culled_face_mesh

TARGET_US = {"empty": 5, "full": 20, "terrain": 60, "sphere": 80, "noise": 1000, "checkerboard": 2000}

CLOCK = time.perf_counter


def median_seconds(function, repeats):
    """Median over ``repeats`` samples of the time per call, each sample a
    batch of calls lasting about a millisecond, so that reading the clock
    (several microseconds for the thread's CPU clock on some machines) does
    not count as mesher time."""
    start = CLOCK()
    function()
    once = max(CLOCK() - start, 1e-7)
    batch = max(1, min(200, int(1e-3 / once)))
    times = []
    for _ in range(repeats):
        start = CLOCK()
        for _ in range(batch):
            function()
        times.append((CLOCK() - start) / batch)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed samples per measurement")
    parser.add_argument("--cpu", action="store_true",
                        help="time with the thread's CPU clock (steadier on a loaded machine)")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.thread_time
    mesher = rc.Mesher()
    walker = rc.Mesher(walks=True)
    # The baseline's temporaries of a few hundred KB come from fresh pages
    # (glibc maps them, or trims the heap after each call) until a larger
    # block has been freed, which raises glibc's thresholds: the terrain's
    # baseline took 1.6 ms before and 1.0 ms after.  One run on the noise
    # chunk first gives every scenario's baseline that steady state.
    culled_face_mesh(scenario_chunk("noise"))
    print(f"voxel row kernels: {row_kernel()}")
    header = (f"{'scenario':14} {'mesh_chunk us':>13} {'triangles':>9} {'walks us':>8} {'callback us':>11} "
              f"{'numpy us':>9} {'numpy tris':>10} {'speed-up':>8} {'target us':>9}  met")
    print(header)
    print("-" * len(header))
    for name in SCENARIOS:
        voxels = scenario_chunk(name)
        repeats = max(5, args.repeats // 10) if name == "noise" else args.repeats
        mesh = rc.mesh_chunk(voxels)
        t_mesh = median_seconds(lambda: rc.mesh_chunk(voxels), repeats)
        t_walks = median_seconds(lambda: walker.mesh(voxels), repeats)
        t_callback = median_seconds(
            lambda: mesher.make_triangles(voxels, int, lambda triangle: None), max(3, repeats // 10))
        baseline = culled_face_mesh(voxels)
        t_numpy = median_seconds(lambda: culled_face_mesh(voxels), max(3, repeats // 4))
        target = TARGET_US.get(name)
        met = "-" if target is None else ("yes" if t_mesh * 1e6 <= target else "no")
        print(f"{name:14} {t_mesh * 1e6:13.1f} {mesh.n_triangles:9d} {t_walks * 1e6:8.1f} {t_callback * 1e6:11.1f} "
              f"{t_numpy * 1e6:9.1f} {baseline.n_triangles:10d} {t_numpy / t_mesh:7.1f}x "
              f"{target if target else '-':>9}  {met}")


if __name__ == "__main__":
    main()
