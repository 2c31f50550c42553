"""Run many scenarios in forked children, a few at a time (one fork per scenario).

Like ``repro.harnesses._fork.run_forked`` but with ``workers`` children in flight; each
answers one JSON object over its pipe and is killed at the deadline.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

Job = tuple[Any, Callable[[], dict[str, Any]]]


def _spawn(fn: Callable[[], dict[str, Any]]) -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        try:
            payload = json.dumps(fn(), default=str).encode()
        except BaseException as exc:  # never return into the parent's loop
            payload = json.dumps({"fork_error": "child_crashed", "detail": repr(exc)}).encode()
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view) :]
        finally:
            os._exit(0)
    os.close(write_fd)
    return pid, read_fd


def run_all(jobs: Iterable[Job], workers: int, timeout_s: float) -> Iterator[tuple[Any, dict]]:
    """Yield ``(key, answer)`` as children finish; a dead or late child answers
    ``{"fork_error": ...}``."""
    pending = iter(jobs)
    live: dict[int, tuple[Any, int, float, list[bytes]]] = {}  # fd -> key, pid, deadline, buf
    exhausted = False
    while live or not exhausted:
        while not exhausted and len(live) < workers:
            try:
                key, fn = next(pending)
            except StopIteration:
                exhausted = True
                break
            pid, fd = _spawn(fn)
            live[fd] = (key, pid, time.monotonic() + timeout_s, [])
        if not live:
            break
        now = time.monotonic()
        wait = max(0.0, min(d for _, _, d, _ in live.values()) - now)
        ready, _, _ = select.select(list(live), [], [], wait)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                live[fd][3].append(chunk)
                continue
            key, pid, _, buf = live.pop(fd)
            os.close(fd)
            os.waitpid(pid, 0)
            yield key, _decode(b"".join(buf))
        now = time.monotonic()
        for fd in [fd for fd, v in live.items() if v[2] <= now]:
            key, pid, _, _ = live.pop(fd)
            os.kill(pid, signal.SIGKILL)
            os.close(fd)
            os.waitpid(pid, 0)
            yield key, {"fork_error": "child_timeout", "detail": f"over {timeout_s:g}s"}


def _decode(data: bytes) -> dict[str, Any]:
    if not data:
        return {"fork_error": "child_crashed", "detail": "no answer"}
    try:
        value = json.loads(data)
    except ValueError:
        return {"fork_error": "child_crashed", "detail": "unreadable answer"}
    return value if isinstance(value, dict) else {"fork_error": "child_crashed"}
