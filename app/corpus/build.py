"""Build the corpus file from the pinned releases: fetch, draft (cached), merge, write.

The output is gzip JSONL, one raise site per line: the dataset envelope (`record`,
`datasetVersion`, `draft`) plus `site` (code facts) and `locations` (one per release).
A `.meta.json` beside it holds the exception classes and the counts by form. Both are
named by a digest of the pins and the drafter version, so a rebuild of the same pins
reuses them and a changed pin or drafter builds afresh.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.draft import ReleaseDraft, draft_release, to_parts
from app.corpus.fetch import ensure_wheel
from app.corpus.merge import Chain, identity, merge_releases
from app.corpus.pins import Pins, Release
from app.drafts.cxx import NATIVE_SUFFIXES
from app.drafts.extract import RaiseSite
from app.drafts.records import build_record
from app.drafts.sources import iter_python_files

# Bump DRAFTER_VERSION when the drafter changes what a release yields (re-drafts every
# release), FORMAT_VERSION when the merge or the corpus lines change.
DRAFTER_VERSION = "10"
FORMAT_VERSION = "10"
# Bump when what a statement site is changes (re-drafts the releases that draft them).
STATEMENT_VERSION = "18"
# Bump NATIVE_VERSION when the C++ drafter (app/drafts/cxx.py) changes: re-drafts only the
# releases with `native` sources.
NATIVE_VERSION = "1"
ANALYZED_AT = "2026-12-02T00:00:00.000Z"

# Releases drafted at once by default: one process each, about 0.5 GB of memory apiece.
MAX_DEFAULT_JOBS = 8

Progress = Callable[[str], None]


def default_jobs() -> int:
    """The processes that draft releases when none is asked for: one per usable CPU, at
    most MAX_DEFAULT_JOBS."""
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every CPU
    cpus = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return max(1, min(cpus, MAX_DEFAULT_JOBS))


@dataclass(frozen=True, slots=True)
class Built:
    path: Path
    meta_path: Path
    digest: str
    records: int
    reused: bool


def corpus_digest(pins: Pins) -> str:
    return hashlib.sha256(
        f"{pins.digest}\n{DRAFTER_VERSION}\n{FORMAT_VERSION}\n{STATEMENT_VERSION}\n"
        f"{NATIVE_VERSION}".encode()
    ).hexdigest()


def draft_path(release: Release, cache: Path) -> Path:
    """Where a release's drafts are cached: keyed by the wheel, the drafter's versions and
    what is scanned (a pins file that narrows `include`, as the tests' do, has its own)."""
    scope = ""
    if release.include or release.exclude:
        scanned = "\n".join([*release.include, "\0", *release.exclude])
        scope = "-" + hashlib.sha256(scanned.encode()).hexdigest()[:8]
    if release.statements:
        scope += f"-s{STATEMENT_VERSION}"
    if release.native:
        scope += f"-n{NATIVE_VERSION}"
    return cache / "drafts" / f"{release.sha256[:20]}-v{DRAFTER_VERSION}{scope}.json.gz"


def _cached_draft(release: Release, cache: Path) -> ReleaseDraft | None:
    path = draft_path(release, cache)
    if not path.exists():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return ReleaseDraft.from_dict(json.load(fh))


def _draft_and_cache(release: Release, wheel: Path, cache: Path) -> ReleaseDraft:
    """Draft one release and cache its drafts (run in a worker process when drafting in
    parallel: it reads only the wheel and writes only its own cache file)."""
    draft = draft_release(
        wheel,
        release.path_prefix,
        release.include,
        release.exclude,
        release.statements,
        release.native,
    )
    path = draft_path(release, cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        json.dump(draft.to_dict(), fh)
    tmp.replace(path)
    return draft


def _draft_all(
    pins: Pins, cache: Path, progress: Progress | None, jobs: int
) -> tuple[dict[str, Path], dict[str, ReleaseDraft]]:
    """Every pinned release's wheel and drafts: wheels are fetched in pin order, cached
    drafts read, and the rest drafted by up to `jobs` processes while later wheels download.
    The drafts do not depend on the order they finish in."""
    wheels: dict[str, Path] = {}
    drafts: dict[str, ReleaseDraft] = {}

    def done(release: Release) -> None:
        if progress is not None:
            progress(release.label)

    pool: ProcessPoolExecutor | None = None
    pending: dict[Future[ReleaseDraft], Release] = {}
    try:
        for release in pins.releases:
            wheel = ensure_wheel(release, cache / "wheels")
            wheels[release.sha256] = wheel
            cached = _cached_draft(release, cache)
            if cached is not None:
                drafts[release.sha256] = cached
                done(release)
            elif jobs <= 1:
                drafts[release.sha256] = _draft_and_cache(release, wheel, cache)
                done(release)
            else:
                if pool is None:
                    # spawn: the parent may hold a database connection and threads.
                    context = multiprocessing.get_context("spawn")
                    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
                pending[pool.submit(_draft_and_cache, release, wheel, cache)] = release
        for future in as_completed(pending):
            release = pending[future]
            drafts[release.sha256] = future.result()
            done(release)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return wheels, drafts


# What pytest would collect as a test (a `test_*` function, a method of a `Test*` class,
# and what they define inside; any code of a `test_*.py` or `*_test.py` module, and a
# `conftest.py`): upstream's own tests and their helpers, where no user's error is raised.
_TEST_CODE = re.compile(r"test_|Test[A-Z0-9_]")
_TEST_MODULE = re.compile(r"(?:\A|/)(?:test_[^/]*|[^/]*_test|conftest)\.py\Z")


def is_test_code(function: str, path: str = "") -> bool:
    """Whether a site is in a test or a test module, by pytest's naming rules."""
    return _TEST_CODE.match(function) is not None or _TEST_MODULE.search(path) is not None


def _site_id(repo: str, chain: Chain, seen: dict[str, int]) -> str:
    first = chain.first
    base = f"{repo}\nsite\n{first['path']}\n{first['function']}\n{identity(first)}"
    n = seen.get(base, 0)
    seen[base] = n + 1
    return hashlib.sha256(f"{base}\n{n}".encode()).hexdigest()[:16]


def _source_lines(release: Release, wheel: Path, paths: set[str]) -> dict[str, list[str]]:
    wanted = {p.removeprefix(release.path_prefix) for p in paths}
    out: dict[str, list[str]] = {}
    for path, data in iter_python_files(wheel):
        if path in wanted:
            out[release.path_prefix + path] = data.decode("utf-8", "replace").splitlines()
    if release.native and len(out) < len(paths):
        for path, data in iter_python_files(wheel, NATIVE_SUFFIXES):
            repo_path = release.native_path(path)
            if repo_path in paths:
                out[repo_path] = data.decode("utf-8", "replace").splitlines()
    return out


def _line(
    repo: str, release: Release, wheel_sha: str, chain: Chain, rid: str, lines: list[str]
) -> dict[str, Any]:
    latest = chain.latest
    site = RaiseSite(
        latest["cls"],
        to_parts(latest["parts"]),
        latest["line"],
        latest["end"],
        pattern=latest["pattern"],  # a statement site's is what the interpreter prints
    )
    record = build_record(
        site,
        repo=repo,
        sha=wheel_sha[:40],
        ref=release.tag,
        path=latest["path"],
        source_lines=lines,
        analyzed_at=ANALYZED_AT,
        link_path=release.link_path(latest["path"]),
    )
    record["id"] = rid
    return record


def _locations(chain: Chain, tags: dict[str, str], release: Release) -> list[dict[str, Any]]:
    repo = release.repo
    return [
        {
            "release": version,
            "path": site["path"],
            "line": site["line"],
            "url": f"https://github.com/{repo}/blob/{tags[version]}/"
            f"{release.link_path(site['path'])}#L{site['line']}",
            "function": site["function"],
            "message": site["message"],
            "pattern": site["pattern"],
        }
        for version, site in chain.locations
    ]


def _package_lines(
    releases: list[Release], wheels: dict[str, Path], drafts: dict[str, ReleaseDraft], version: str
) -> Iterator[dict[str, Any]]:
    repo = releases[0].repo
    by_version = {r.release: r for r in releases}
    tags = {r.release: r.tag for r in releases}
    chains = merge_releases(
        [
            (
                r.release,
                [s for s in drafts[r.sha256].sites if not is_test_code(s["function"], s["path"])],
            )
            for r in releases
        ]
    )
    seen: dict[str, int] = {}
    ids = [_site_id(repo, chain, seen) for chain in chains]
    latest_of: dict[str, list[int]] = {}
    for i, chain in enumerate(chains):
        latest_of.setdefault(chain.locations[-1][0], []).append(i)
    for rel_version, members in latest_of.items():
        release = by_version[rel_version]
        wheel = wheels[release.sha256]
        sources = _source_lines(release, wheel, {chains[i].latest["path"] for i in members})
        for i in members:
            chain = chains[i]
            latest = chain.latest
            record = _line(
                repo, release, release.sha256, chain, ids[i], sources.get(latest["path"], [])
            )
            yield {
                "record": record,
                "datasetVersion": version,
                "draft": True,
                "site": {
                    "package": release.package,
                    "function": latest["function"],
                    "condition": latest["condition"],
                    "docstring": latest["docstring"],
                    "flags": latest["flags"],
                    "form": latest["form"],
                    "statement": latest.get("statement"),
                    # What the method read of its instance at any release.
                    "selfReads": sorted(
                        {r for _release, site in chain.locations for r in site.get("selfReads", ())}
                    ),
                },
                "locations": _locations(chain, tags, releases[0]),
            }


def build_corpus(pins: Pins, cache: Path, progress: Progress | None = None, jobs: int = 1) -> Built:
    """Build (or reuse) the corpus for `pins` under `cache`, drafting up to `jobs`
    releases at once."""
    digest = corpus_digest(pins)
    out_dir = cache / "corpus"
    path = out_dir / f"corpus-{digest[:16]}.jsonl.gz"
    meta_path = out_dir / f"corpus-{digest[:16]}.meta.json"
    if path.exists() and meta_path.exists():
        records = json.loads(meta_path.read_text())["records"]
        return Built(path, meta_path, digest, records, True)
    wheels, drafts = _draft_all(pins, cache, progress, jobs)
    version = ANALYZED_AT
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    count = 0
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=6) as fh:
        for package in pins.packages():
            for line in _package_lines(pins.of(package), wheels, drafts, version):
                fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                count += 1
    meta = {
        "digest": digest,
        "records": count,
        "releases": [
            {
                "package": r.package,
                "repo": r.repo,
                "version": r.release,
                "tag": r.tag,
                "forms": drafts[r.sha256].forms,
                "drafted": drafts[r.sha256].drafted,
                "sites": len(drafts[r.sha256].sites),
            }
            for r in pins.releases
        ],
        "classes": _classes(pins, drafts),
    }
    meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True))
    tmp.replace(path)
    return Built(path, meta_path, digest, count, False)


def _classes(pins: Pins, drafts: dict[str, ReleaseDraft]) -> list[dict[str, Any]]:
    """Each package's exception classes, newest definition of each name kept."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for release in pins.releases:
        for cls in drafts[release.sha256].classes:
            out[(release.package, cls["name"])] = {"package": release.package, **cls}
    return list(out.values())
