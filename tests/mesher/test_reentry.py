"""A Mesher re-entered on its own thread during a call (a finalizer run by
the garbage collector while the call allocates its output) must not wait for
itself: mesh_chunk meshes with a one-off Mesher, a Mesher the caller holds
raises RuntimeError.  Each case runs in a child process, so a hang fails the
test by its timeout instead of stopping the suite."""
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import gc, sys
    import numpy as np
    import reticulate_core as rc

    chunk = rc.scenario_chunk("sphere")
    expected = rc.mesh_chunk(chunk)
    held = rc.Mesher()
    use_held = sys.argv[1] == "held"
    in_call, inner = [False], []

    class Cycle:
        # freed by the garbage collector only, at an allocation of its choosing
        def __init__(self):
            self.me = self

        def __del__(self):
            if not in_call[0]:
                return
            try:
                inner.append(held.mesh(chunk) if use_held else rc.mesh_chunk(chunk))
            except RuntimeError as error:
                inner.append(error)

    gc.collect()
    gc.set_threshold(1)
    for _ in range(200):
        Cycle()
        in_call[0] = True
        outer = held.mesh(chunk) if use_held else rc.mesh_chunk(chunk)
        in_call[0] = False
        assert np.array_equal(outer.triangles, expected.triangles)
    gc.set_threshold(700)
    assert inner, "no finalizer ran during a call: the test did not re-enter"
    for result in inner:
        if use_held:
            assert isinstance(result, RuntimeError) and "already meshing on this thread" in str(result), result
        else:
            assert np.array_equal(result.triangles, expected.triangles)
            assert np.array_equal(result.positions, expected.positions)
    print("re-entered", len(inner))
""")


def run(kind):
    done = subprocess.run([sys.executable, "-c", SCRIPT, kind], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("re-entered ")


def test_mesh_chunk_reentered_from_a_finalizer_meshes():
    run("mesh_chunk")


def test_held_mesher_reentered_from_a_finalizer_raises():
    run("held")
