"""Terminal progress in background mode: quiet for short runs, a redrawn line for long ones."""
import bpy


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_short_runs_print_nothing(addon, monkeypatch, capsys):
    clock = Clock()
    monkeypatch.setattr(addon.progress.time, "perf_counter", clock)
    assert bpy.app.background
    with addon.progress.Progress(bpy.context, "Meshing") as progress:
        clock.now += 0.2
        progress(1, 2)
        progress(2, 2)
    assert capsys.readouterr().err == ""


def test_long_runs_draw_a_line_at_most_ten_times_a_second(addon, monkeypatch, capsys):
    clock = Clock()
    monkeypatch.setattr(addon.progress.time, "perf_counter", clock)
    with addon.progress.Progress(bpy.context, "Meshing") as progress:
        clock.now += 0.6
        progress(1, 4)
        clock.now += 0.01
        progress(2, 4)          # too soon after the last line: skipped
        clock.now += 0.2
        part = progress.part(1, 2)
        part(3, 4)              # second of two parts, 3/4 done -> 7/8 overall
        progress(4, 4)          # the end is always drawn
    err = capsys.readouterr().err
    assert err == ("\r[reticulate] Meshing:  25.0%" "\r[reticulate] Meshing:  87.5%"
                   "\r[reticulate] Meshing: 100.0%" "\n")
