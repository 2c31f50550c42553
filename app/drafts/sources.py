"""Read Python (or C++) files from an installed package directory or a wheel (without
extracting)."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

MAX_FILE_BYTES = 4 * 1024 * 1024
_DATA_LIBS = ("purelib", "platlib")


def _wheel_member_path(name: str, suffixes: tuple[str, ...] = (".py",)) -> str | None:
    """Package-relative path of a wheel member, or None if it is not package code."""
    parts = PurePosixPath(name).parts
    if not parts or not name.endswith(suffixes):
        return None
    if parts[0].endswith(".dist-info"):
        return None
    if parts[0].endswith(".data"):
        if len(parts) > 2 and parts[1] in _DATA_LIBS:
            return "/".join(parts[2:])
        return None
    return "/".join(parts)


def iter_wheel(wheel: Path, suffixes: tuple[str, ...] = (".py",)) -> Iterator[tuple[str, bytes]]:
    with zipfile.ZipFile(wheel) as zf:
        members = []
        for info in zf.infolist():
            path = _wheel_member_path(info.filename, suffixes)
            if path is not None and not info.is_dir() and info.file_size <= MAX_FILE_BYTES:
                members.append((path, info))
        for path, info in sorted(members, key=lambda m: m[0]):
            yield path, zf.read(info)


def iter_sdist(sdist: Path, suffixes: tuple[str, ...] = (".py",)) -> Iterator[tuple[str, bytes]]:
    """A source archive (`name-version.tar.gz`): paths below its top folder, which holds the
    repository's layout (`flashinfer/`, `csrc/`, `include/`)."""
    with tarfile.open(sdist, "r:gz") as tf:
        members = []
        for info in tf.getmembers():
            parts = PurePosixPath(info.name).parts
            if len(parts) < 2 or not info.isfile() or not info.name.endswith(suffixes):
                continue
            if info.size <= MAX_FILE_BYTES and ".." not in parts:
                members.append(("/".join(parts[1:]), info))
        for path, info in sorted(members, key=lambda m: m[0]):
            data = tf.extractfile(info)
            if data is not None:
                yield path, data.read()


def iter_directory(root: Path, suffixes: tuple[str, ...] = (".py",)) -> Iterator[tuple[str, bytes]]:
    """A package directory (has __init__.py) keeps its own name in the paths."""
    base = root.parent if (root / "__init__.py").exists() else root
    for file in sorted(root.rglob("*")):
        if not file.name.endswith(suffixes) or "__pycache__" in file.parts or not file.is_file():
            continue
        if file.stat().st_size > MAX_FILE_BYTES:
            continue
        yield file.relative_to(base).as_posix(), file.read_bytes()


def iter_python_files(
    source: Path, suffixes: tuple[str, ...] = (".py",)
) -> Iterator[tuple[str, bytes]]:
    """(package-relative posix path, file bytes) for each Python file in the source (or
    each file whose name ends in one of `suffixes`: the C++ sources a package ships)."""
    if source.is_dir():
        yield from iter_directory(source, suffixes)
    elif zipfile.is_zipfile(source):
        yield from iter_wheel(source, suffixes)
    elif source.name.endswith(".tar.gz") and tarfile.is_tarfile(source):
        yield from iter_sdist(source, suffixes)
    else:
        raise ValueError(f"not a package directory, wheel or source archive: {source}")
