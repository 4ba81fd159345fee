"""scripts/demo.py (what scripts/demo.sh runs after bootstrap), at a tiny render size."""
import os
import subprocess
import sys

from conftest import REPO


def test_demo_writes_blend_and_both_renders(tmp_path):
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "demo.py"), "--out", str(tmp_path),
                           "--size", "64", "48", "--samples", "1"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for name in ("demo.blend", "demo.png", "demo_naive.png"):
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("demo.png", "demo_naive.png"):
        assert str(tmp_path).encode() not in (tmp_path / name).read_bytes(), "a machine path in the PNG's metadata"
    assert "naive culled faces: 3048 triangles" in done.stdout   # rt_torture's count in the samples README
