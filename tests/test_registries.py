"""One registry per kind of name: the configuration and the command line read them, never copy.

Shoe protocols (`drivers.shoe.PROTOCOLS`), card designs (`DESIGNS`), commands with their roles
(`studio.controller.COMMANDS`, which the bus's role check reads) and card sources (`SOURCES`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from drivers.camera.synthetic.designs import DESIGNS
from drivers.shoe import PROTOCOLS
from studio.bus import COMMAND_ROLES
from studio.config import build_config
from studio.controller import COMMANDS, ROLES
from studio.controller.table import SOURCES
from studio.errors import ConfigurationError
from studio.messages import CommandName, TableSettings

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_every_registered_shoe_protocol_is_a_valid_configuration(protocol: str) -> None:
    assert build_config({"shoe": {"protocol": protocol}}).shoe.protocol == protocol


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_every_registered_card_design_is_a_valid_configuration(design: str) -> None:
    assert build_config({"camera": {"design": design}}).camera.design == design


def test_an_unknown_protocol_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(ConfigurationError, match=r"shoe\.protocol") as caught:
        build_config({"shoe": {"protocol": "morse"}})
    assert all(name in str(caught.value) for name in PROTOCOLS)
    assert "\n" not in str(caught.value)


def test_the_shoe_commands_choices_are_the_registry() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "studio.cli", "shoe", "simulate", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert "{" + ",".join(sorted(PROTOCOLS)) + "}" in run.stdout


def test_commands_roles_and_names_are_one_registry() -> None:
    assert set(COMMANDS) == set(get_args(CommandName))
    assert dict(ROLES) == {name: spec.roles for name, spec in COMMANDS.items()}
    assert COMMAND_ROLES is ROLES  # the bus checks roles against the controller's registry


def test_every_card_source_setting_has_its_strategy() -> None:
    annotation = TableSettings.model_fields["card_source"].annotation
    assert set(SOURCES) == set(get_args(annotation))
