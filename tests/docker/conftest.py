"""The compose stack (docker-compose.yml) under pytest-docker.

Every test here is skipped, with the reason, when no Docker engine (or no ``docker
compose``) is reachable. The stack is built and started once per session without the
``gpu`` profile, under its own project name, and removed with its volumes afterwards.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import free_port

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COMPOSE_FILE = ROOT / "docker-compose.yml"
# First start builds the image and the sglang env (~6 GB): minutes, not seconds.
READY_TIMEOUT_S = float(os.environ.get("ERRATA_DOCKER_READY_TIMEOUT", "600"))


def _run(*cmd: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def docker_unavailable() -> str | None:
    """Why the compose stack cannot run here, or None when it can."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    try:
        info = _run("docker", "info", "--format", "{{.ServerVersion}}")
        if info.returncode != 0:
            return f"no Docker engine is reachable (`docker info`: {_last_line(info.stderr)})"
        compose = _run("docker", "compose", "version")
    except subprocess.TimeoutExpired as exc:
        return f"`{' '.join(map(str, exc.cmd))}` did not answer within {exc.timeout:g}s"
    if compose.returncode != 0:
        return f"`docker compose` (v2) is not available: {_last_line(compose.stderr)}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if HERE in item.path.parents]
    if not ours:
        return
    reason = docker_unavailable()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"compose stack not started: {reason}")
    for item in ours:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def stack_environment() -> Iterator[dict[str, str]]:
    """What compose interpolates: throwaway secrets, a free port, no ``gpu`` profile."""
    values = {
        "SECRET_KEY": secrets.token_urlsafe(32),
        "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
        "ERRATA_HTTP_PORT": str(free_port()),
    }
    with pytest.MonkeyPatch.context() as mp:
        for name, value in values.items():
            mp.setenv(name, value)
        mp.delenv("COMPOSE_PROFILES", raising=False)
        yield values


@pytest.fixture(scope="session")
def docker_compose_file() -> str:
    return str(COMPOSE_FILE)


@pytest.fixture(scope="session")
def docker_compose_project_name() -> str:
    return f"errata-test-{os.getpid()}"


@pytest.fixture(scope="session")
def docker_setup() -> list[str]:
    # Not `--wait`: it treats the one-shot services (migrate, repro-env) exiting as a
    # failure on some compose versions. `up -d` still waits for their completion before
    # starting what depends on them; readiness is polled below.
    return ["up --build --detach"]


@pytest.fixture(scope="session")
def docker_cleanup() -> list[str]:
    return ["down --volumes --remove-orphans"]


@dataclass
class ComposeStack:
    base_url: str
    services: Any  # pytest_docker's Services

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, token: str = ""
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            self.base_url + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers=headers,
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read() or b"null")

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        assert status == 200, (path, status, body)
        return body

    def compose(self, subcommand: str) -> str:
        """``docker compose -f ... -p ... <subcommand>``; stdout and stderr together."""
        return self.services._docker_compose.execute(subcommand).decode()

    def create_token(self, name: str, scope: str) -> str:
        output = self.compose(f"exec -T web flask tokens create --name {name} --scope {scope}")
        tokens = [line for line in output.splitlines() if line.startswith("errata_")]
        assert tokens, output
        return tokens[-1].strip()

    def wait_for(self, check: Callable[[], Any], timeout_s: float, what: str) -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(2)
        logs = self.compose("logs --no-color --tail 60 worker migrate repro-env")
        raise AssertionError(f"timed out after {timeout_s:.0f}s waiting for {what}\n{logs}")


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/api/v1/ready", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="session")
def stack(stack_environment: dict[str, str], docker_ip: str, docker_services: Any) -> ComposeStack:
    """The running stack, once web answers ``/api/v1/ready``."""
    port = docker_services.port_for("web", 8000)
    base = f"http://{docker_ip}:{port}"
    docker_services.wait_until_responsive(
        check=lambda: _ready(base), timeout=READY_TIMEOUT_S, pause=2.0
    )
    return ComposeStack(base, docker_services)
