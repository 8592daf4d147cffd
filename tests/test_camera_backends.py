"""One camera-backend registry: the config's values, the CLI's choices and the sources follow it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.backends import CAMERA_BACKENDS, source_schemes
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.sources import open_source
from studio.cli import main
from studio.config import CameraConfig, build_config
from studio.errors import ConfigurationError


def test_the_config_takes_exactly_the_registered_backends() -> None:
    schema = CameraConfig.model_json_schema()["properties"]["backend"]
    assert schema["enum"] == list(CAMERA_BACKENDS)


@given(st.text(min_size=1, max_size=12).filter(lambda s: s not in CAMERA_BACKENDS))
def test_an_unregistered_backend_is_one_clear_error(name: str) -> None:
    with pytest.raises(ConfigurationError) as err:
        build_config({"camera": {"backend": name}})
    assert "camera" in str(err.value) and "\n" not in str(err.value).strip()


def test_run_offers_the_registered_backends(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--camera", "nonesuch"])
    err = capsys.readouterr().err
    for name in CAMERA_BACKENDS:
        assert name in err


def test_run_camera_override_needs_what_the_backend_needs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--camera", "capture", "--rounds", "1"]) == 2
    err = capsys.readouterr().err
    assert "camera.url is required" in err and "Traceback" not in err


def test_every_source_scheme_belongs_to_a_backend_and_opens() -> None:
    schemes = source_schemes()
    assert set(schemes.values()) <= set(CAMERA_BACKENDS)
    assert schemes["synthetic"] == "synthetic" and schemes["device"] == "capture"
    with open_source("synthetic://?design=jumbo&seed=3") as source:
        assert source.read().image.shape[2] == 3
    with pytest.raises(RecognizerConfigurationError) as err:
        open_source("gopher://camera")
    for scheme in schemes:
        assert scheme in str(err.value)
