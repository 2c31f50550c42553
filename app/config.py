"""Configuration: defaults, then the environment, then a test override.

Read only inside the app factory; nothing here runs at import time.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


class SettingsError(ValueError):
    """An environment variable's value the loader cannot use; the message names it."""


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
        try:
            settings[name] = coercer(raw) if coercer is not None else raw
        except ValueError as exc:
            raise SettingsError(f"{envvar}={raw!r}: {exc}") from None
    elif default is not None:
        settings[name] = default


def _count(value: str) -> int:
    return int(value or 0)


def _nightly_hour(value: str) -> int:
    hour = int(value)
    if not 0 <= hour <= 23:
        raise ValueError("must be an hour 0-23 (UTC)")
    return hour


def _catch_up_minutes(value: str) -> int:
    minutes = int(value)
    if not 1 <= minutes <= 59:
        raise ValueError("must be 1-59 (minutes)")
    return minutes


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def schedule_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The nightly schedule, for the app (the nightly task, ``flask jobs nightly``) and for
    the scheduler, which builds no app: hour (UTC), platforms, catch-up interval."""
    settings: dict[str, Any] = {}
    maybe_set(settings, "ERRATA_NIGHTLY_HOUR", "ERRATA_NIGHTLY_HOUR", _nightly_hour, 2, environ)
    maybe_set(
        settings,
        "ERRATA_NIGHTLY_PLATFORMS",
        "ERRATA_NIGHTLY_PLATFORMS",
        _names,
        ["blackwell", "hopper"],
        environ,
    )
    maybe_set(
        settings,
        "ERRATA_CATCH_UP_MINUTES",
        "ERRATA_CATCH_UP_MINUTES",
        _catch_up_minutes,
        15,
        environ,
    )
    return settings


def cache_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Where downloaded wheels and built corpora are cached (also read by the tests and
    benchmarks, which build no app)."""
    env = os.environ if environ is None else environ
    default = os.path.join(os.path.expanduser("~"), ".cache", "errata")
    return {"ERRATA_CACHE_DIR": env.get("ERRATA_CACHE_DIR") or default}


def serving_settings(environ: Mapping[str, str] | None = None) -> dict[str, float]:
    """The gunicorn worker's read deadline and write timeout (``app/serving.py``), in seconds
    (at least 0.5; an unreadable value keeps the default)."""
    env = os.environ if environ is None else environ
    out = {}
    for name, default in (("ERRATA_READ_DEADLINE_S", 10.0), ("ERRATA_SEND_TIMEOUT_S", 30.0)):
        try:
            out[name] = max(0.5, float(env.get(name, default)))
        except ValueError:
            out[name] = default
    return out


def normalize_database_url(url: str) -> str:
    """Map ``postgres://`` and ``postgresql://`` to the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def instance_secret(instance_path: str) -> str:
    """A random key kept in ``instance/secret_key`` (made once, mode 0600), so sessions
    survive restarts and agree across workers without anyone choosing a key."""
    path = os.path.join(instance_path, "secret_key")
    try:
        with open(path, encoding="ascii") as handle:
            key = handle.read().strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker made it first (or an unreadable short file)
        with open(path, encoding="ascii") as handle:
            existing = handle.read().strip()
        if len(existing) < 32:
            raise RuntimeError(f"{path} holds no usable key; delete it or set SECRET_KEY") from None
        return existing
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key)
    return key


def load_settings(instance_path: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Build the settings dict from defaults and the environment."""
    env = os.environ if environ is None else environ
    settings: dict[str, Any] = {
        "SECRET_KEY": env.get("SECRET_KEY") or instance_secret(instance_path),
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{os.path.join(instance_path, 'errata.db')}",
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        "MAX_CONTENT_LENGTH": 1024 * 1024,
        "ERRATA_PUBLIC_URL": "",
        "ERRATA_BROKER_URL": "redis://127.0.0.1:6379/0",
        "ERRATA_CORS_ORIGINS": "",
        "ERRATA_PROXY_HOPS": 0,
        "RATELIMIT_STORAGE_URI": "memory://",
        "RATELIMIT_ENABLED": True,
        "ERRATA_MATCH_RATE_LIMIT": "120/minute;20/second",
        "ERRATA_SEARCH_RATE_LIMIT": "300/minute;30/second",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
    }
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
    maybe_set(settings, "ERRATA_PROXY_HOPS", "ERRATA_PROXY_HOPS", int, environ=environ)
    maybe_set(settings, "RATELIMIT_STORAGE_URI", "ERRATA_RATELIMIT_STORAGE", environ=environ)
    # Chosen storage is kept as it is; otherwise app/ratelimits.py picks one for the workers
    # that gunicorn.conf.py says share the limits.
    settings["ERRATA_RATELIMIT_STORAGE_CHOSEN"] = bool(env.get("ERRATA_RATELIMIT_STORAGE"))
    maybe_set(settings, "ERRATA_WEB_WORKERS", "ERRATA_WEB_WORKERS", _count, 0, environ)
    maybe_set(settings, "RATELIMIT_ENABLED", "ERRATA_RATELIMIT_ENABLED", _bool, environ=environ)
    maybe_set(settings, "ERRATA_MATCH_RATE_LIMIT", "ERRATA_MATCH_RATE_LIMIT", environ=environ)
    maybe_set(settings, "ERRATA_SEARCH_RATE_LIMIT", "ERRATA_SEARCH_RATE_LIMIT", environ=environ)
    maybe_set(settings, "SESSION_COOKIE_SECURE", "ERRATA_SECURE_COOKIES", _bool, environ=environ)
    maybe_set(settings, "SQLALCHEMY_ECHO", "ERRATA_SQL_ECHO", _bool, environ=environ)
    for name, kind in (("ERRATA_HEAVY_CONCURRENCY", int), ("ERRATA_HEAVY_WAIT_S", float)):
        maybe_set(settings, name, name, kind, environ=environ)
    settings.update(cache_settings(environ))
    settings.update(schedule_settings(environ))
    return settings
