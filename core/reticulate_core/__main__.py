"""``python -m reticulate_core``: see :mod:`reticulate_core.cli`."""
import sys

from .cli import main

sys.exit(main())
