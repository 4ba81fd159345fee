"""Progress feedback for long runs.

In the UI: the window manager's progress indicator.  In background mode
(``blender -b``, the bpy module): a terminal line on stderr, redrawn at most
ten times a second and only for runs that take longer than half a second.
``Progress`` is a callable ``progress(done, total)`` as the core's
``mesh_grid`` expects, and a context manager that ends the indicator.
"""
import sys
import time

import bpy


class Progress:
    def __init__(self, context, label):
        self._wm = getattr(context, "window_manager", None)
        self._label = label
        self._terminal = bool(bpy.app.background)
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._drawn = False
        self._began = False

    def __enter__(self):
        if self._wm is not None and not self._terminal:
            self._wm.progress_begin(0, 1000)
            self._began = True
        return self

    def __call__(self, done, total):
        fraction = (done / total) if total else 1.0
        if self._began and self._wm is not None:
            self._wm.progress_update(int(1000 * fraction))
        if self._terminal:
            now = time.perf_counter()
            if now - self._start >= 0.5 and (now - self._last_draw >= 0.1 or done >= total):
                self._last_draw = now
                self._drawn = True
                sys.stderr.write(f"\r[reticulate] {self._label}: {100 * fraction:5.1f}%")
                sys.stderr.flush()

    def part(self, index, count):
        """A ``progress(done, total)`` callback for part ``index`` of ``count`` equal parts."""
        def report(done, total):
            self(index * max(total, 1) + done, count * max(total, 1))
        return report

    def __exit__(self, exc_type, exc, tb):
        if self._began and self._wm is not None:
            self._wm.progress_end()
        if self._drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
        return False
