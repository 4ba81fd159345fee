"""Octree benchmark over the sample scenarios: build, walk and memory per chunk.

    PYTHONPATH=core .venv/bin/python scripts/bench_octree.py [--runs N] [--seed S]

Times are medians in microseconds per chunk, single thread.  Build is the
public ``from_dense`` (validation included) of a uint16 chunk; walk is the C
walk with a counting visitor (``benchmark_walk``: no Python in the loop),
sparse (Walker) and dense (DenseWalker).  Baselines measured in the same
run: ``np.count_nonzero`` and ``np.unique`` of the same chunk.  Targets:
terrain build <= 150 us, terrain walk <= 50 us.
"""
import argparse
import statistics
import time

import numpy as np

from reticulate_core.octree import CompactOctree, Fixed8Octree, benchmark_walk, memory_report
from reticulate_core.samples import SCENARIOS, scenario_chunk

TARGETS_US = {"build": 150.0, "walk": 50.0}


def median_call_us(function, runs):
    """Median wall time of one call, in microseconds."""
    function()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        function()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1000.0


def median_walk_us(tree, dense, runs):
    """Median over batches of the mean C walk time, in microseconds."""
    batches = max(5, runs // 100)
    return statistics.median(benchmark_walk(tree, 100, dense) for _ in range(batches)) * 1e6


def measure(name, seed, runs):
    chunk = scenario_chunk(name, seed)
    compact = CompactOctree.from_dense(chunk)
    fixed8 = Fixed8Octree.from_dense(chunk)
    memory = memory_report(chunk)
    return {
        "scenario": name,
        "nodes": len(compact),
        "blocks": fixed8.n_blocks,
        "build_compact": median_call_us(lambda: CompactOctree.from_dense(chunk), runs),
        "build_fixed8": median_call_us(lambda: Fixed8Octree.from_dense(chunk), runs),
        "walk_compact": median_walk_us(compact, False, runs),
        "walk_fixed8": median_walk_us(fixed8, False, runs),
        "dense_walk_compact": median_walk_us(compact, True, runs),
        "dense_walk_fixed8": median_walk_us(fixed8, True, runs),
        "bytes_dense": memory["dense"],
        "bytes_compact": memory["compact"],
        "bytes_fixed8": memory["fixed8"],
        "count_nonzero": median_call_us(lambda: np.count_nonzero(chunk), runs),
        "unique": median_call_us(lambda: np.unique(chunk), runs),
    }


COLUMNS = [
    ("scenario", "scenario", "{}"),
    ("nodes", "nodes", "{}"),
    ("blocks", "F8 blocks", "{}"),
    ("build_compact", "build C us", "{:.1f}"),
    ("build_fixed8", "build F8 us", "{:.1f}"),
    ("walk_compact", "walk C us", "{:.1f}"),
    ("walk_fixed8", "walk F8 us", "{:.1f}"),
    ("dense_walk_compact", "dwalk C us", "{:.1f}"),
    ("dense_walk_fixed8", "dwalk F8 us", "{:.1f}"),
    ("bytes_dense", "dense B", "{}"),
    ("bytes_compact", "C B", "{}"),
    ("bytes_fixed8", "F8 B", "{}"),
    ("count_nonzero", "np.count_nonzero us", "{:.1f}"),
    ("unique", "np.unique us", "{:.1f}"),
]


def print_table(rows):
    cells = [[title for _, title, _ in COLUMNS]]
    cells += [[fmt.format(row[key]) for key, _, fmt in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    for i, line in enumerate(cells):
        print("  ".join(text.rjust(width) if i and j else text.ljust(width)
                        for j, (text, width) in enumerate(zip(line, widths))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="timed calls per figure")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random scenarios")
    args = parser.parse_args()
    rows = [measure(name, args.seed, args.runs) for name in SCENARIOS]
    print_table(rows)
    terrain = next(row for row in rows if row["scenario"] == "terrain")
    print()
    for label, key, target in (("build", "build_compact", TARGETS_US["build"]),
                               ("build", "build_fixed8", TARGETS_US["build"]),
                               ("walk", "walk_compact", TARGETS_US["walk"]),
                               ("walk", "walk_fixed8", TARGETS_US["walk"])):
        verdict = "ok" if terrain[key] <= target else "MISSED"
        print(f"terrain {key}: {terrain[key]:.1f} us (target <= {target:.0f} us) {verdict}")


if __name__ == "__main__":
    main()
