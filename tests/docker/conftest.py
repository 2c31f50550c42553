"""The compose stack (docker-compose.yml) under pytest-docker.

The stack runs on the local stand-in images (docker-compose.local.yml over
docker-compose.yml; ``make docker-base`` builds them) unless ``ERRATA_COMPOSE_FILES``
names other files. It is built and started once per session without the ``gpu``
profile, with the CPU gpu-worker, under its own project name, and removed with its
volumes afterwards. Without a Docker engine or a compose command every test here is
skipped with the reason; under ``CI=true`` they fail instead.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import free_port, in_ci, require_service, wait_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COMPOSE_FILES = [ROOT / "docker-compose.yml", ROOT / "docker-compose.local.yml"]
# First start builds the image and the sglang env (~6 GB): minutes, not seconds.
READY_TIMEOUT_S = float(os.environ.get("ERRATA_DOCKER_READY_TIMEOUT", "600"))
# The seed record of data/records/ (harnessed in data/harnesses.json).
SEED = "1760fbb64ae487e4"


def _run(*cmd: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def compose_command() -> str | None:
    """``docker compose`` (v2) where the client has it, else ``docker-compose`` (1.29)."""
    if shutil.which("docker") and _run("docker", "compose", "version").returncode == 0:
        return "docker compose"
    if shutil.which("docker-compose"):
        return "docker-compose"
    return None


def docker_unavailable() -> str | None:
    """Why the compose stack cannot run here, or None when it can."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    try:
        info = _run("docker", "info", "--format", "{{.ServerVersion}}")
        if info.returncode != 0:
            return f"no Docker engine is reachable (`docker info`: {_last_line(info.stderr)})"
        if compose_command() is None:
            return "neither `docker compose` nor `docker-compose` is installed"
    except subprocess.TimeoutExpired as exc:
        return f"`{' '.join(map(str, exc.cmd))}` did not answer within {exc.timeout:g}s"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if HERE in item.path.parents]
    if not ours:
        return
    reason = docker_unavailable()
    if reason is None:
        return
    if in_ci():
        return  # docker_compose_command fails them instead
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
        # Short, so a job whose killed worker never acknowledged it is delivered again within
        # the test; longer than one harness run (94 s seen on a loaded 2-core host).
        # The scheduler's catch-up (every minute here) sends tonight's `cpu` batch.
        "ERRATA_NIGHTLY_HOUR": "0",
        "ERRATA_CATCH_UP_MINUTES": "1",
        "ERRATA_NIGHTLY_PLATFORMS": "cpu",
        "ERRATA_VISIBILITY_TIMEOUT": os.environ.get("ERRATA_DOCKER_VISIBILITY_TIMEOUT", "180"),
    }
    with pytest.MonkeyPatch.context() as mp:
        for name, value in values.items():
            mp.setenv(name, value)
        mp.delenv("COMPOSE_PROFILES", raising=False)
        yield values


@pytest.fixture(scope="session")
def docker_compose_command() -> str:
    """The first fixture of the stack: under CI a missing engine fails here (not skipped)."""
    require_service("Docker", docker_unavailable)
    return compose_command() or "docker compose"


@pytest.fixture(scope="session")
def docker_compose_file() -> list[str]:
    configured = os.environ.get("ERRATA_COMPOSE_FILES", "")
    if configured:
        return [str(ROOT / name) for name in configured.split(":")]
    return [str(path) for path in COMPOSE_FILES]


@pytest.fixture(scope="session")
def docker_compose_project_name() -> str:
    return f"errata-test-{os.getpid()}"


@pytest.fixture(scope="session")
def docker_setup() -> list[str]:
    """Nothing here: ``stack`` builds and starts, so a failed start still gets cleaned up
    (pytest-docker runs its setup outside the ``finally`` that runs ``down``)."""
    return []


# Not `--wait`: it treats the one-shot services (migrate, repro-env) exiting as a failure on
# some compose versions. `up -d` still waits for their completion before starting what
# depends on them; readiness is polled in `stack`.
STACK_SETUP = ["build", "up --detach"]


@pytest.fixture(scope="session")
def docker_cleanup() -> list[str]:
    return ["down --volumes --remove-orphans"]


def _body(raw: bytes) -> Any:
    """JSON from the app; the text of anything else (nginx's 502 page while web restarts)."""
    try:
        return json.loads(raw or b"null")
    except ValueError:
        return raw.decode(errors="replace")


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
                return response.status, _body(response.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, _body(exc.read())

    def get(self, path: str, token: str = "") -> Any:
        status, body = self.request("GET", path, token=token)
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
        """``tests.helpers.wait_for``, with the services' last log lines on a timeout."""
        try:
            return wait_for(check, timeout_s, what, every_s=2)
        except AssertionError as exc:
            logs = self.compose("logs --no-color --tail 60 worker gpu-worker-cpu migrate web")
            raise AssertionError(f"{exc}\n{logs}") from None


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/api/v1/ready", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="session")
def stack(stack_environment: dict[str, str], docker_ip: str, docker_services: Any) -> ComposeStack:
    """The running stack, once web answers ``/api/v1/ready``."""
    compose = docker_services._docker_compose
    for command in STACK_SETUP:
        try:
            compose.execute(command)
        except Exception as exc:  # pytest-docker raises a bare Exception with the output
            logs = compose.execute("logs --no-color --tail 40").decode(errors="replace")
            pytest.fail(f"`compose {command}` failed: {exc}\n{logs}")
    port = docker_services.port_for("proxy", 8080)
    base = f"http://{docker_ip}:{port}"
    docker_services.wait_until_responsive(
        check=lambda: _ready(base), timeout=READY_TIMEOUT_S, pause=2.0
    )
    return ComposeStack(base, docker_services)


def finished_run(stack: ComposeStack, job_id: str, token: str = "") -> Callable[[], Any]:
    """A check for ``wait_for``: the run of ``job_id`` once it is done, failed or invalid.

    Read with an admin ``token`` to see the worker's name (the public view hides it)."""

    def check() -> Any:
        mine = runs_of(stack, job_id, token)
        return mine and mine[0]["status"] in {"done", "failed", "invalid"} and mine[0]

    return check


def runs_of(stack: ComposeStack, job_id: str, token: str = "") -> list[dict[str, Any]]:
    return [
        r
        for r in stack.get(f"/api/v1/runs?limit=200&record={SEED}", token)["items"]
        if r["jobId"] == job_id
    ]


@pytest.fixture(scope="session")
def write_token(stack: ComposeStack) -> str:
    return stack.create_token("docker-test", "write")


@pytest.fixture(scope="session")
def admin_token(stack: ComposeStack) -> str:
    """Reads the stored runs as they are (worker names included)."""
    return stack.create_token("docker-test-admin", "admin")
