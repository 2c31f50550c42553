"""Configuration: defaults, then the environment, then a test override.

Read only inside the app factory; nothing here runs at import time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def _bool(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def maybe_set(
    settings: dict[str, Any],
    name: str,
    envvar: str,
    coercer: Callable[[str], T] | None = None,
    default: T | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Set ``settings[name]`` from ``envvar`` (coerced), or to ``default`` if given."""
    env = os.environ if environ is None else environ
    if envvar in env:
        raw = env[envvar]
        settings[name] = coercer(raw) if coercer is not None else raw
    elif default is not None:
        settings[name] = default


def normalize_database_url(url: str) -> str:
    """Map ``postgres://`` and ``postgresql://`` to the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def load_settings(instance_path: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Build the settings dict from defaults and the environment."""
    settings: dict[str, Any] = {
        "SECRET_KEY": "dev-only-change-me",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{os.path.join(instance_path, 'errata.db')}",
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        "MAX_CONTENT_LENGTH": 1024 * 1024,
        "ERRATA_PUBLIC_URL": "",
        "ERRATA_BROKER_URL": "redis://127.0.0.1:6379/0",
        "ERRATA_CORS_ORIGINS": "",
    }
    maybe_set(settings, "SECRET_KEY", "SECRET_KEY", environ=environ)
    maybe_set(
        settings,
        "SQLALCHEMY_DATABASE_URI",
        "DATABASE_URL",
        normalize_database_url,
        environ=environ,
    )
    maybe_set(settings, "MAX_CONTENT_LENGTH", "ERRATA_MAX_BODY_BYTES", int, environ=environ)
    maybe_set(settings, "ERRATA_PUBLIC_URL", "ERRATA_PUBLIC_URL", environ=environ)
    maybe_set(settings, "ERRATA_BROKER_URL", "ERRATA_BROKER_URL", environ=environ)
    maybe_set(settings, "ERRATA_CORS_ORIGINS", "ERRATA_CORS_ORIGINS", environ=environ)
    maybe_set(settings, "SQLALCHEMY_ECHO", "ERRATA_SQL_ECHO", _bool, environ=environ)
    return settings
