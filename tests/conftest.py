"""Shared fixtures: a migrated database per backend, the app, a client and a CLI runner.

Database tests run on SQLite and on PostgreSQL. PostgreSQL gets a throwaway database per
run, created here and dropped at the end; ``test``, ``postgres`` and ``root`` are never
dropped. Without a reachable server the PostgreSQL tests fail in CI (``CI=true``) and skip
with the reason elsewhere. Each test runs in a transaction that is rolled back afterwards;
a test marked ``committed`` (another app or server reads its rows) has every row deleted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask, current_app, has_app_context
from flask.testing import FlaskClient, FlaskCliRunner
from flask_sqlalchemy import SQLAlchemy
from flask_sqlalchemy.session import Session
from sqlalchemy import Connection, event, text

from app import create_app
from app.extensions import db
from tests.helpers import executable_probe, require_service

ROOT = Path(__file__).resolve().parent.parent
SEED_FILE = ROOT / "data" / "records" / "sglang.jsonl"
PG_ADMIN_URL = os.environ.get(
    "ERRATA_TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
PROTECTED_DATABASES = {"test", "postgres", "root", "template0", "template1"}


def _pg_unavailable(reason: str) -> None:
    require_service("PostgreSQL", lambda: f"{PG_ADMIN_URL} is not reachable: {reason}")


class PostgresDatabase:
    """A throwaway PostgreSQL database, named uniquely per run."""

    def __init__(self) -> None:
        self.name = f"errata_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        assert self.name not in PROTECTED_DATABASES
        base = PG_ADMIN_URL.rsplit("/", 1)[0]
        self.url = f"{base}/{self.name}"

    def create(self) -> None:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        if self.name in PROTECTED_DATABASES:
            return
        with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def make_database(kind: str, tmp_path: Path) -> tuple[str, PostgresDatabase | None]:
    """A fresh, empty database URL of ``kind`` (and the handle to drop it)."""
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / f'errata-{uuid.uuid4().hex[:8]}.db'}", None
    pg = PostgresDatabase()
    try:
        pg.create()
    except psycopg.OperationalError as exc:
        _pg_unavailable(str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc))
    return "postgresql+psycopg://" + pg.url.split("://", 1)[1], pg


def migrate_up(url: str) -> None:
    from flask_migrate import upgrade

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True})
    with app.app_context():
        upgrade()
        db.engine.dispose()


BACKENDS = [
    pytest.param("sqlite", marks=pytest.mark.unit, id="sqlite"),
    pytest.param("postgresql", marks=pytest.mark.integration, id="postgresql"),
]


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A database migrated to head, shared by the tests of one backend."""
    url, pg = make_database(request.param, tmp_path_factory.mktemp("db"))
    try:
        migrate_up(url)
        yield url
    finally:
        if pg is not None:
            pg.drop()


@pytest.fixture
def app(database_url: str, request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "SERVER_NAME": "errata.test",
            "RATELIMIT_ENABLED": False,  # tests/security turns it on where it is the subject
        }
    )
    with isolated(app, request):
        yield app


TEST_CONNECTION = "errata_test_connection"


class TestSession(Session):
    """``db.session`` in tests: joins the outer transaction of its app's test connection.

    Flask-SQLAlchemy's ``get_bind`` picks the app's engine before a session-wide ``bind``,
    so the bind is honoured here. An app without a test connection (a live server's, a
    second app's) gets the plain session.
    """

    __test__ = False  # not a test class

    def __init__(self, db: SQLAlchemy, **kwargs: Any) -> None:
        connection = current_app.extensions.get(TEST_CONNECTION) if has_app_context() else None
        if connection is not None:
            kwargs.update(bind=connection, join_transaction_mode="create_savepoint")
        super().__init__(db, **kwargs)

    def get_bind(self, mapper: Any = None, clause: Any = None, bind: Any = None, **kwargs: Any):
        if bind is None and self.bind is not None:
            return self.bind
        return super().get_bind(mapper=mapper, clause=clause, bind=bind, **kwargs)


@pytest.fixture(scope="session", autouse=True)
def _test_sessions() -> Iterator[None]:
    """``db.session`` makes :class:`TestSession` s for the whole run."""
    plain = db.session
    db.session = db._make_scoped_session({"class_": TestSession})
    try:
        yield
    finally:
        db.session = plain


@contextmanager
def isolated(app: Flask, request: pytest.FixtureRequest) -> Iterator[None]:
    """Undo the test's writes afterwards: by default, roll back the transaction it ran in;
    under ``@pytest.mark.committed``, delete every row."""
    if request.node.get_closest_marker("committed"):
        try:
            yield
        finally:
            empty_database(app)
        return
    with rolled_back(app):
        yield


@contextmanager
def rolled_back(app: Flask) -> Iterator[None]:
    """Run on one connection inside an outer transaction that is rolled back at the end.

    Every ``db.session`` of ``app`` joins it with a savepoint, so the app's and the CLI's
    own ``commit()`` calls release a savepoint and later sessions see the rows (as in
    pypi/warehouse's ``tests/conftest.py``).
    """
    from app.corpus.catalog import forget

    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "sqlite":
        # pysqlite begins transactions only before DML, so a SAVEPOINT would start (and its
        # RELEASE commit) one on its own: let SQLAlchemy emit BEGIN (its pysqlite docs).
        event.listen(engine, "connect", _sqlite_manual_transactions)
        event.listen(engine, "begin", _sqlite_begin)
    connection = engine.connect()
    outer = connection.begin()
    app.extensions[TEST_CONNECTION] = connection
    try:
        yield
    finally:
        # The pattern index must not outlive the test's data; its freshness is a version
        # counter in the database, which the rollback resets.
        forget()
        with app.app_context():
            db.session.remove()
        del app.extensions[TEST_CONNECTION]
        if outer.is_active:
            outer.rollback()
        connection.close()
        engine.dispose()


def _sqlite_manual_transactions(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None


def _sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


def empty_database(app: Flask) -> None:
    """After a ``committed`` test: delete every row (search index too), drop the pattern
    index, close."""
    from app.corpus.catalog import forget

    forget()  # the per-process pattern index must not outlive the test's data
    with app.app_context():
        db.session.remove()
        with db.engine.begin() as conn:
            if conn.dialect.name == "sqlite":
                conn.execute(text("DELETE FROM record_search_fts"))
            for table in reversed(db.metadata.sorted_tables):
                conn.execute(text(f"DELETE FROM {table.name}"))
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def db_session(app: Flask) -> Iterator[Any]:
    with app.app_context():
        yield db.session


@pytest.fixture
def seed_envelope() -> dict[str, Any]:
    return json.loads(SEED_FILE.read_text(encoding="utf-8").splitlines()[0])


@pytest.fixture
def seeded(app: Flask, runner: FlaskCliRunner) -> Flask:
    result = runner.invoke(args=["records", "import", str(SEED_FILE)])
    assert result.exit_code == 0, result.output
    return app


SGLANG_ENV = "sglang-0.5.23"


@pytest.fixture(scope="session")
def sglang_env() -> str:
    """The real sglang environment, built if needed (a no-op once built)."""
    if os.environ.get("ERRATA_SKIP_SGLANG") == "1":
        pytest.skip("ERRATA_SKIP_SGLANG=1: not building or running the sglang environment")
    build = subprocess.run([sys.executable, "-m", "repro.envs.build", SGLANG_ENV], check=False)
    if build.returncode != 0:
        pytest.fail(f"building {SGLANG_ENV} failed (exit {build.returncode}); see output above")
    return SGLANG_ENV


CHROMIUM = os.environ.get("ERRATA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    require_service("Chromium", executable_probe(CHROMIUM))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    yield page
    context.close()
    assert not errors, errors


def make_envelope(seed: dict[str, Any], record_id: str, **changes: Any) -> dict[str, Any]:
    """A copy of the seed envelope with a new id and some record fields changed."""
    out = json.loads(json.dumps(seed))
    out["record"]["id"] = record_id
    draft = changes.pop("draft", None)
    out["record"].update(changes)
    if draft:
        out["draft"] = True
    return out


def import_envelopes(runner: FlaskCliRunner, path: Path, envelopes: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in envelopes), encoding="utf-8")
    result = runner.invoke(args=["records", "import", str(path)])
    assert result.exit_code == 0, result.output


def corpus(seed: dict[str, Any]) -> list[dict[str, Any]]:
    """A small, varied corpus for search, facet and match tests."""
    return [
        seed,
        make_envelope(
            seed,
            "a000000000000002",
            slug="tokenspeed-mla",
            errorMessage="tokenspeed_mla backend can only be used with MLA models.",
            messagePattern=r"tokenspeed_mla backend can only be used with MLA models\.",
            lineNumber=115,
            tags=["attention-backend", "mla", "tokenspeed"],
        ),
        make_envelope(
            seed,
            "a000000000000003",
            slug="cuda-oom",
            errorMessage="CUDA out of memory. Tried to allocate {size} GiB",
            messagePattern=r"CUDA out of memory\. Tried to allocate [\d.]+ GiB",
            errorClass="torch.OutOfMemoryError",
            errorType="resource",
            severity="critical",
            filePath="python/sglang/srt/mem_cache/memory_pool.py",
            lineNumber=210,
            documentation="The KV cache pool could not be allocated on the GPU.",
            solutions=["Lower --mem-fraction-static", "Use a smaller --max-running-requests"],
            tags=["cuda", "oom", "memory"],
            backgroundTag="gpu-memory",
        ),
        make_envelope(
            seed,
            "a000000000000004",
            slug="flashinfer-missing",
            errorMessage="flashinfer is not installed; install it or pick another backend",
            messagePattern=r"flashinfer is not installed; install it or pick another backend",
            errorClass="ImportError",
            errorType="dependency",
            severity="warning",
            filePath="python/sglang/srt/layers/attention/flashinfer_backend.py",
            lineNumber=40,
            tags=["flashinfer", "attention-backend", "install"],
        ),
        make_envelope(
            seed,
            "a000000000000005",
            slug="fa3-sm",
            errorMessage="fa3 attention backend requires SM 8.x or 9.x, got SM {sm}",
            messagePattern=r"fa3 attention backend requires SM 8\.x or 9\.x, got SM \d+",
            errorClass="AssertionError",
            filePath="python/sglang/srt/layers/attention/flashattention_backend.py",
            lineNumber=300,
            tags=["attention-backend", "fa3", "hopper"],
            draft=True,
        ),
        make_envelope(
            seed,
            "a000000000000006",
            repo="vllm-project/vllm",
            slug="vllm-mla",
            errorMessage="MLA is not supported with this attention backend",
            messagePattern=r"MLA is not supported with this attention backend",
            filePath="vllm/attention/selector.py",
            lineNumber=88,
            tags=["mla", "attention-backend"],
        ),
    ]


@pytest.fixture
def corpus_app(app: Flask, runner: FlaskCliRunner, tmp_path: Path, seed_envelope) -> Flask:
    import_envelopes(runner, tmp_path / "corpus.jsonl", corpus(seed_envelope))
    from app.corpus.catalog import forget

    forget()
    return app


SERVICE_MARKERS = frozenset({"unit", "integration", "browser", "sglang", "gpu", "docker"})


def _declared(item: pytest.Item) -> set[str]:
    """Service markers the test's module, class or function declares (not a parameter's)."""
    names: set[str] = set()
    for owner in (getattr(item, "module", None), getattr(item, "cls", None)):
        marks = getattr(owner, "pytestmark", [])
        names |= {m.name for m in (marks if isinstance(marks, list) else [marks])}
    function = getattr(item, "function", None)
    names |= {m.name for m in getattr(function, "pytestmark", [])}
    return names & SERVICE_MARKERS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test module declares what it needs. On the backend parameter, a ``unit``
    module's tests are ``unit`` on SQLite and ``integration`` on PostgreSQL; a module that
    also needs Redis or Chromium is never ``unit``."""
    missing = set()
    for item in items:
        declared = _declared(item)
        if not declared:
            missing.add(Path(str(item.path)).relative_to(ROOT).as_posix())
            continue
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("database_url") if callspec else None
        wanted = set(declared)
        if backend == "postgresql":
            wanted = (wanted - {"unit"}) | {"integration"}
        elif backend == "sqlite" and declared - {"unit"}:
            wanted.discard("unit")
        # The markers live on each test from here on, so the backend can adjust them.
        for node in item.listchain():
            node.own_markers[:] = [m for m in node.own_markers if m.name not in SERVICE_MARKERS]
        for name in sorted(wanted):
            item.add_marker(name)
    if missing:
        raise pytest.UsageError(
            "test modules without a marker (declare pytestmark = pytest.mark.<one of "
            f"{', '.join(sorted(SERVICE_MARKERS))}>): {', '.join(sorted(missing))}"
        )
