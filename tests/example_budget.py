"""How many examples a hypothesis test draws.

Every suite states its ``max_examples`` as ``examples(n)``: ``n`` in a normal
run, ``n`` scaled by ``RETICULATE_EXAMPLES_SCALE`` (a positive number, at least
one example) when that is set.  The test command scales the second pass, over
the bounds-checked build of the core, down: that pass hunts out-of-bounds
accesses and needs fewer chunks than the full property run.
"""
import os


def _scale():
    text = os.environ.get("RETICULATE_EXAMPLES_SCALE", "1")
    try:
        scale = float(text)
    except ValueError:
        scale = -1.0
    if not scale > 0:
        raise ValueError(f"RETICULATE_EXAMPLES_SCALE must be a positive number, not {text!r}")
    return scale


SCALE = _scale()


def examples(n):
    """``n`` scaled by RETICULATE_EXAMPLES_SCALE, never below one."""
    return max(1, round(n * SCALE))
