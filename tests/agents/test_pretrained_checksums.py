"""The shipped networks are checked on loading against the digests recorded in the package
(checksums.json, as a training checkpoint's): an altered file, or weights that are not finite,
are refused in one line naming the file."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from jaxcheckers.agents import pretrained

NAME = pretrained.SEARCH_NAME  # the smallest network that ships
STEM = pretrained.stem(NAME)


@pytest.fixture
def copy(tmp_path):
    """The network and checksums.json, copied where a test may alter them."""
    for suffix in (".msgpack", ".json"):
        shutil.copy(pretrained.DIRECTORY / f"{STEM}{suffix}", tmp_path)
    shutil.copy(pretrained.DIRECTORY / "checksums.json", tmp_path)
    return tmp_path


def _refused(directory, *words: str) -> None:
    with pytest.raises(ValueError) as error:
        pretrained.load(NAME, directory)
    message = str(error.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_every_shipped_network_has_its_checksums():
    recorded = json.loads((pretrained.DIRECTORY / "checksums.json").read_text())
    shipped = {pretrained.stem(n, g) for n in pretrained.NAMES for g in pretrained.games(n)}
    assert shipped and set(recorded) == shipped
    assert all(set(recorded[stem]) == {"params", "settings"} for stem in shipped)


def test_a_copy_as_shipped_loads(copy):
    params, _, settings = pretrained.load(NAME, copy)
    assert settings["algo"] == "alphazero" and params


def test_a_kernel_set_to_nan_is_refused_naming_the_file(copy):
    serialization = pytest.importorskip("flax.serialization")
    params = pretrained.read_params(copy / f"{STEM}.msgpack")
    layer = next(iter(params["params"].values()))
    layer["kernel"] = np.full_like(layer["kernel"], np.nan)
    (copy / f"{STEM}.msgpack").write_bytes(serialization.msgpack_serialize(params))
    _refused(copy, f"{STEM}.msgpack is damaged", "checksum")
    (copy / "checksums.json").unlink()  # a folder without checksums: still no NaN weights
    _refused(copy, f"{STEM}.msgpack holds non-finite weights")


def test_a_changed_byte_is_refused_naming_the_file(copy):
    path = copy / f"{STEM}.msgpack"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40  # inside a kernel's floats: it still reads as a params file
    path.write_bytes(bytes(data))
    _refused(copy, f"{STEM}.msgpack is damaged")


def test_altered_settings_are_refused_naming_the_file(copy):
    path = copy / f"{STEM}.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"algo": "ppo"}))
    _refused(copy, f"{STEM}.json is damaged")


def test_a_network_checksums_json_does_not_know_is_refused(copy):
    (copy / "checksums.json").write_text("{}")
    _refused(copy, "checksums.json holds no checksum for", STEM)
