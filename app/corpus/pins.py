"""The pinned corpus list (`data/corpus/releases.json`): packages, releases, wheel hashes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PINS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "releases.json"


class PinError(ValueError):
    """The pinned list is missing, malformed or names something it cannot have."""


@dataclass(frozen=True, slots=True)
class Release:
    """One release of one package: where its wheel comes from and how it is checked."""

    package: str
    repo: str
    version: str
    tag: str
    wheel: str
    sha256: str
    path_prefix: str
    include: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    # Also draft statement sites (imports, bare asserts, mapping lookups): see scan.py.
    statements: bool = False
    # Names the release in the corpus when the repo holds another package's releases too
    # (sgl-kernel's 0.4.10 is not sglang's 0.4.10): `releasePrefix` in the pins.
    release_prefix: str = ""
    # C++/CUDA sources the wheel ships, as (folder in the wheel, folder in the repository):
    # their checks and throws are drafted too (flashinfer's JIT sources). `native` in the pins.
    native: tuple[tuple[str, str], ...] = ()
    # Folders the build copies from elsewhere in the repository (triton's
    # `python/triton/backends/nvidia/` is `third_party/nvidia/backend/` on GitHub), as
    # (path as the wheel places it, path in the repository): for links only, since frames
    # show the installed path. `links` in the pins.
    links: tuple[tuple[str, str], ...] = ()

    def native_path(self, path: str) -> str | None:
        """The repository path of a wheel file under one of the `native` folders."""
        return native_path(self.native, path)

    def link_path(self, path: str) -> str:
        """Where a record's file is in the repository, for its GitHub link."""
        return native_path(self.links, path) or path

    @property
    def label(self) -> str:
        return f"{self.package} {self.version}"

    @property
    def release(self) -> str:
        """The release as records and their locations name it."""
        return self.release_prefix + self.version


@dataclass(frozen=True, slots=True)
class Pins:
    releases: tuple[Release, ...]
    digest: str

    def packages(self) -> list[str]:
        return list(dict.fromkeys(r.package for r in self.releases))

    def of(self, package: str) -> list[Release]:
        return [r for r in self.releases if r.package == package]


def _str(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise PinError(f"{where}: `{key}` must be a non-empty string")
    return value


def native_path(native: tuple[tuple[str, str], ...], path: str) -> str | None:
    """The repository path of a wheel file under one of the (wheel folder, repository
    folder) pairs, else None."""
    for source, target in native:
        if path.startswith(source):
            return target + path.removeprefix(source)
    return None


def _folders(value: Any, where: str, key: str) -> tuple[tuple[str, str], ...]:
    """`native`, `links`: a list of {"from": folder, "to": folder in the repository}."""
    if not isinstance(value, list):
        raise PinError(f"{where}: `{key}` must be a list")
    out: list[tuple[str, str]] = []
    for k, item in enumerate(value):
        nwhere = f"{where}.{key}[{k}]"
        if not isinstance(item, dict):
            raise PinError(f"{nwhere}: expected an object with `from` and `to`")
        source, target = _str(item, "from", nwhere), item.get("to", "")
        if not isinstance(target, str) or not source.endswith("/") or target[-1:] not in ("/", ""):
            raise PinError(f"{nwhere}: `from` and `to` must be folders ending in `/`")
        out.append((source, target))
    return tuple(out)


def load_pins(path: Path = DEFAULT_PINS, only: tuple[str, ...] = ()) -> Pins:
    """Read and check the pinned list; `only` keeps the named packages."""
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
    except OSError as exc:
        raise PinError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise PinError(f"{path}: invalid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("packages"), list):
        raise PinError(f"{path}: expected an object with a `packages` list")
    releases: list[Release] = []
    for i, pkg in enumerate(data["packages"]):
        where = f"{path.name}: packages[{i}]"
        if not isinstance(pkg, dict) or not isinstance(pkg.get("releases"), list):
            raise PinError(f"{where}: expected an object with a `releases` list")
        name = _str(pkg, "name", where)
        if only and name not in only:
            continue
        repo = _str(pkg, "repo", where)
        tag_format = pkg.get("tagFormat", "v{version}")
        include = tuple(pkg.get("include", []))
        exclude = tuple(pkg.get("exclude", []))
        statements = pkg.get("statements", False)
        if not isinstance(statements, bool):
            raise PinError(f"{where}: `statements` must be true or false")
        prefix = pkg.get("releasePrefix", "")
        if not isinstance(prefix, str):
            raise PinError(f"{where}: `releasePrefix` must be a string")
        native = _folders(pkg.get("native", []), where, "native")
        links = _folders(pkg.get("links", []), where, "links")
        for j, rel in enumerate(pkg["releases"]):
            rwhere = f"{where}.releases[{j}]"
            if not isinstance(rel, dict):
                raise PinError(f"{rwhere}: expected an object")
            version = _str(rel, "version", rwhere)
            sha = _str(rel, "sha256", rwhere)
            if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
                raise PinError(f"{rwhere}: `sha256` must be 64 lowercase hex digits")
            releases.append(
                Release(
                    package=name,
                    repo=repo,
                    version=version,
                    # A release tagged in another repo's scheme names its tag itself.
                    tag=str(rel.get("tag") or str(tag_format).format(version=version)),
                    wheel=_str(rel, "wheel", rwhere),
                    sha256=sha,
                    path_prefix=str(pkg.get("pathPrefix", "")),
                    include=include,
                    exclude=exclude,
                    statements=statements,
                    release_prefix=prefix,
                    native=native,
                    links=links,
                )
            )
    if only and not releases:
        raise PinError(f"no pinned package named {', '.join(only)}")
    digest = hashlib.sha256(
        json.dumps([r.__repr__() for r in releases]).encode("utf-8")
    ).hexdigest()
    return Pins(tuple(releases), digest)
