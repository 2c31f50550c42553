"""Run a function in a forked child and get its JSON-able result back over a pipe.

Each scenario runs in its own fork of the harness process, after the one expensive
import, so process-global state it changes (platform overrides, published config,
imported-module side effects) dies with the child. A child that hangs is killed at
the deadline; one that dies without answering is reported as such.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable
from typing import Any

CHILD_CRASHED = "child_crashed"
CHILD_TIMEOUT = "child_timeout"


def run_forked(fn: Callable[[], dict[str, Any]], timeout_s: float) -> dict[str, Any]:
    """Return ``fn()`` computed in a child, or ``{"fork_error": ..., "detail": ...}``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        code = 0
        try:
            payload = json.dumps(fn(), default=str).encode()
        except BaseException as exc:  # a child must never return into the parent's code
            payload = json.dumps({"fork_error": CHILD_CRASHED, "detail": repr(exc)}).encode()
            code = 1
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view) :]
        finally:
            os._exit(code)

    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"fork_error": CHILD_TIMEOUT, "detail": f"scenario exceeded {timeout_s:g}s"}
    data = b"".join(chunks)
    if not data:
        return {"fork_error": CHILD_CRASHED, "detail": _describe_status(status)}
    try:
        value = json.loads(data)
    except ValueError:
        return {"fork_error": CHILD_CRASHED, "detail": f"unreadable answer ({len(data)} bytes)"}
    return (
        value if isinstance(value, dict) else {"fork_error": CHILD_CRASHED, "detail": "not a dict"}
    )


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"child killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"child exited with status {os.WEXITSTATUS(status)} without an answer"
