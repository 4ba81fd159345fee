"""Errors and limits that guard the readers against malformed or hostile files."""

DEFAULT_MAX_VOXELS = 1 << 30
"""Largest number of dense voxels a reader allocates for one file (2 GiB of uint16)."""


class VoxFormatError(ValueError):
    """A .vox file that cannot be read; the message names the file and the byte offset."""

    def __init__(self, path, offset, problem):
        self.path = str(path)
        self.offset = offset
        self.problem = problem
        super().__init__(f"{self.path}: at byte {offset}: {problem}")
