"""The nightly schedule comes from the settings loader, validated there."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from celery.schedules import crontab

from app.config import SettingsError, schedule_settings
from app.jobs.schedule import beat_schedule

pytestmark = pytest.mark.unit


def test_defaults_are_two_oclock_blackwell_and_hopper_every_15_minutes():
    settings = schedule_settings({})
    assert settings == {
        "ERRATA_NIGHTLY_HOUR": 2,
        "ERRATA_NIGHTLY_PLATFORMS": ["blackwell", "hopper"],
        "ERRATA_CATCH_UP_MINUTES": 15,
    }
    schedule = beat_schedule(settings)
    assert schedule["nightly-repro"]["schedule"] == crontab(hour="2", minute="0")
    assert schedule["nightly-catch-up"]["schedule"] == crontab(minute="*/15")


def test_environment_sets_hour_platforms_and_catch_up():
    settings = schedule_settings(
        {
            "ERRATA_NIGHTLY_HOUR": "0",
            "ERRATA_NIGHTLY_PLATFORMS": " cpu, ,hopper ",
            "ERRATA_CATCH_UP_MINUTES": "1",
        }
    )
    assert settings["ERRATA_NIGHTLY_PLATFORMS"] == ["cpu", "hopper"]
    schedule = beat_schedule(settings)
    assert schedule["nightly-repro"]["schedule"] == crontab(hour="0", minute="0")
    assert schedule["nightly-catch-up"]["schedule"] == crontab(minute="*/1")


@pytest.mark.parametrize(
    ("name", "value"),
    [("ERRATA_NIGHTLY_HOUR", "24"), ("ERRATA_CATCH_UP_MINUTES", "0"), ("ERRATA_NIGHTLY_HOUR", "x")],
)
def test_a_bad_value_stops_the_loader(name, value):
    with pytest.raises(SettingsError, match=f"^{name}='{value}': "):
        schedule_settings({name: value})


def test_a_bad_setting_is_one_clear_line_from_the_cli_not_a_traceback(tmp_path):
    env = {**os.environ, "ERRATA_NIGHTLY_HOUR": "25", "FLASK_APP": "app:create_app"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'x.db'}"
    done = subprocess.run(
        [sys.executable, "-m", "flask", "records", "export", "-o", str(tmp_path / "out.jsonl")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert (
        done.stderr.strip()
        == "errata: bad setting: ERRATA_NIGHTLY_HOUR='25': must be an hour 0-23 (UTC)"
    )
