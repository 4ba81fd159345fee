"""load_grid on .npy / .npz: value rules, axis order, metadata and hostile headers."""
import tracemalloc

import numpy as np
import pytest

from reticulate_core.io import load_grid, load_grid_with_info


def saved(tmp_path, array, name="grid.npy"):
    path = tmp_path / name
    np.save(path, array)
    return path


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint64])
def test_integer_arrays_are_material_ids(tmp_path, dtype):
    rng = np.random.default_rng(1)
    array = rng.integers(0, min(np.iinfo(dtype).max, 65535) + 1, size=(5, 6, 7)).astype(dtype)
    grid = load_grid(saved(tmp_path, array))
    assert grid.dtype == np.uint16 and grid.flags.c_contiguous
    assert np.array_equal(grid, array.astype(np.int64))


def test_full_uint16_range_and_threshold_ignored_for_ids(tmp_path):
    array = np.array([0, 1, 65535, 300], dtype=np.int32).reshape(1, 2, 2)
    assert np.array_equal(load_grid(saved(tmp_path, array), threshold=1000), array)


@pytest.mark.parametrize("low, high", [(-1, 5), (0, 65536), (-70000, 70000)])
def test_ids_out_of_range_name_the_range(tmp_path, low, high):
    array = np.zeros((2, 2, 2), dtype=np.int64)
    array[0, 0, 0], array[1, 1, 1] = low, high
    with pytest.raises(ValueError, match=f"range from {low} to {high}.*0..65535"):
        load_grid(saved(tmp_path, array))


def test_bool_is_material_one(tmp_path):
    array = np.zeros((3, 3, 3), dtype=bool)
    array[1, 2, 0] = True
    grid = load_grid(saved(tmp_path, array))
    assert grid.dtype == np.uint16 and grid.sum() == 1 and grid[1, 2, 0] == 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_needs_a_threshold_and_keeps_values_above_it(tmp_path, dtype):
    array = np.linspace(-1, 1, 27).reshape(3, 3, 3).astype(dtype)
    path = saved(tmp_path, array)
    with pytest.raises(ValueError, match="threshold"):
        load_grid(path)
    grid = load_grid(path, threshold=0.25)
    assert np.array_equal(grid, (array > 0.25).astype(np.uint16))


def test_nan_is_counted(tmp_path):
    array = np.zeros((4, 4, 4), dtype=np.float32)
    array[0, 0, :3] = np.nan
    with pytest.raises(ValueError, match="3 NaN"):
        load_grid(saved(tmp_path, array), threshold=0.5)


@pytest.mark.parametrize("array, words", [
    (np.zeros((4, 4), np.uint8), "3 dimensions"),
    (np.zeros((2, 2, 2, 2), np.uint8), "3 dimensions"),
    (np.zeros((2, 2, 2), np.complex64), "unsupported dtype complex64"),
    (np.zeros((2, 2, 2), "U3"), "unsupported dtype"),
    (np.zeros((2, 2, 2), "S3"), "unsupported dtype"),
    (np.zeros((2, 2, 2), [("a", np.uint8), ("b", np.uint8)]), "unsupported dtype"),
    (np.zeros((2, 2, 2), "datetime64[s]"), "unsupported dtype"),
    (np.zeros((0, 4, 4), np.uint8), "empty"),
])
def test_bad_arrays(tmp_path, array, words):
    with pytest.raises(ValueError, match=words):
        load_grid(saved(tmp_path, array))


def test_object_arrays_are_refused_without_unpickling(tmp_path):
    array = np.empty((1, 1, 1), dtype=object)
    array[0, 0, 0] = {"not": "voxels"}
    path = tmp_path / "objects.npy"
    np.save(path, array, allow_pickle=True)
    with pytest.raises(ValueError, match="unsupported dtype object"):
        load_grid(path)


@pytest.mark.parametrize("order", ["xyz", "zyx", "yxz", "xzy", "zxy", "yzx"])
def test_axis_order(tmp_path, order):
    grid = np.random.default_rng(2).integers(0, 9, size=(2, 3, 4)).astype(np.uint16)
    stored = np.einsum(f"xyz->{order}", grid)
    loaded = load_grid(saved(tmp_path, stored), axis_order=order)
    assert loaded.flags.c_contiguous
    assert np.array_equal(loaded, grid)


def test_bad_axis_order(tmp_path):
    with pytest.raises(ValueError, match="permutation of 'xyz'"):
        load_grid(saved(tmp_path, np.zeros((1, 1, 1), np.uint8)), axis_order="xxy")


def test_fortran_order_arrays(tmp_path):
    grid = np.asfortranarray(np.arange(24, dtype=np.uint16).reshape(2, 3, 4))
    assert np.array_equal(load_grid(saved(tmp_path, grid)), np.arange(24).reshape(2, 3, 4))


def hostile_header(shape, dtype="<u2"):
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1, 1), np.uint16))
    header["shape"], header["descr"] = shape, dtype
    return header


def test_hostile_header_is_refused_before_allocating(tmp_path):
    path = tmp_path / "huge.npy"
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, hostile_header((100000, 100000, 100000)))
        f.write(b"\0" * 64)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="above the limit"):
            load_grid(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_max_voxels_is_a_parameter(tmp_path):
    path = saved(tmp_path, np.ones((4, 4, 4), np.uint8))
    assert load_grid(path, max_voxels=64).sum() == 64
    with pytest.raises(ValueError, match="64 voxels, above the limit of 63"):
        load_grid(path, max_voxels=63)


def test_truncated_data(tmp_path):
    path = saved(tmp_path, np.ones((8, 8, 8), np.uint16))
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(ValueError, match="truncated"):
        load_grid(path)


def test_not_an_npy(tmp_path):
    path = tmp_path / "text.npy"
    path.write_bytes(b"hello, not numpy")
    with pytest.raises(ValueError, match="not a readable .npy"):
        load_grid(path)


def test_unknown_suffix(tmp_path):
    with pytest.raises(ValueError, match="unsupported grid file type '.raw'"):
        load_grid(tmp_path / "grid.raw")


def test_npz_single_array_default_and_metadata(tmp_path):
    grid = np.zeros((3, 4, 5), np.uint16)
    grid[2, 3, 4] = 12
    path = tmp_path / "grid.npz"
    np.savez_compressed(path, density=grid, voxel_size=np.array([0.5, 0.25, 2.0]),
                        origin=np.array([1.0, -2.0, 3.0]))
    info = load_grid_with_info(path)
    assert np.array_equal(info.voxels, grid) and info.grid_name == "density"
    assert np.array_equal(info.voxel_size, [0.5, 0.25, 2.0])
    # the far corner of voxel (2, 3, 4) is corner (3, 4, 5)
    assert np.allclose(info.transform @ [3, 4, 5, 1], [1 + 1.5, -2 + 1.0, 3 + 10.0, 1])


def test_npz_scalar_voxel_size(tmp_path):
    path = tmp_path / "grid.npz"
    np.savez(path, grid=np.ones((2, 2, 2), bool), voxel_size=np.float32(0.1))
    info = load_grid_with_info(path)
    assert np.allclose(info.voxel_size, 0.1) and np.allclose(info.transform[:3, 3], 0)


def test_npz_several_arrays_need_a_name(tmp_path):
    path = tmp_path / "two.npz"
    np.savez(path, a=np.ones((2, 2, 2), np.uint8), b=np.full((2, 2, 2), 3, np.uint8))
    with pytest.raises(ValueError, match=r"grid=.*\['a', 'b'\]"):
        load_grid(path)
    assert load_grid(path, grid="b").max() == 3
    with pytest.raises(ValueError, match="no array named 'c'"):
        load_grid(path, grid="c")


@pytest.mark.parametrize("voxel_size", [np.array([1.0, 2.0]), np.array([-1.0]), np.array(["a"]),
                                        np.array([np.inf, 1, 1])])
def test_npz_bad_voxel_size(tmp_path, voxel_size):
    path = tmp_path / "grid.npz"
    np.savez(path, grid=np.ones((2, 2, 2), np.uint8), voxel_size=voxel_size)
    with pytest.raises(ValueError, match="voxel_size"):
        load_grid(path)


def test_npz_hostile_member_header(tmp_path):
    import zipfile
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("grid.npy", "w") as f:
            np.lib.format.write_array_header_1_0(f, hostile_header((65536, 65536, 65536)))
    with pytest.raises(ValueError, match="above the limit"):
        load_grid(path)


def test_not_a_zip(tmp_path):
    path = tmp_path / "fake.npz"
    path.write_bytes(b"PK but not really")
    with pytest.raises(ValueError, match="not a readable .npz"):
        load_grid(path)


def test_npz_member_shorter_than_its_header(tmp_path):
    import zipfile
    path = tmp_path / "short.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("grid.npy", "w") as f:
            np.lib.format.write_array_header_1_0(f, hostile_header((4, 4, 4)))
            f.write(b"\0" * 10)
    with pytest.raises(ValueError, match="truncated"):
        load_grid(path)


def raw_header_npy(path, header_text):
    """An .npy file whose version 1.0 header is ``header_text`` as it is, with some data after it."""
    text = header_text + " " * ((118 - len(header_text)) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + b"\0" * 64)
    return path


@pytest.mark.parametrize("header, words", [
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2, 2), ", "not a readable .npy"),   # unclosed
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (-1, 2, 2), }", "negative dimension"),
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (-2, -2, 2), }", "negative dimension"),
])
def test_malformed_header_is_a_value_error_naming_the_file(tmp_path, header, words):
    path = raw_header_npy(tmp_path / "bad.npy", header)
    with pytest.raises(ValueError, match=words) as caught:
        load_grid(path)
    assert "bad.npy" in str(caught.value)


def test_corrupt_compressed_npz_is_a_value_error(tmp_path):
    path = tmp_path / "grid.npz"
    np.savez_compressed(path, grid=np.random.default_rng(1).integers(0, 9, (40, 50, 60), np.uint16))
    data = bytearray(path.read_bytes())
    data[200:260] = bytes(b ^ 0x5A for b in data[200:260])
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="array 'grid' cannot be read"):
        load_grid(path)


@pytest.mark.parametrize("threshold", [float("nan"), np.float32("nan"), "0.5", True, np.array([0.5, 0.6])])
def test_threshold_must_be_a_number(tmp_path, threshold):
    path = saved(tmp_path, np.full((2, 2, 2), 0.7, np.float32))
    with pytest.raises(ValueError, match="threshold must be a number"):
        load_grid(path, threshold=threshold)
    assert load_grid(path, threshold=np.float64(0.5)).sum() == 8
