"""A gunicorn thread worker whose request reads have a deadline (slow-loris clients).

gunicorn's ``gthread`` worker parses a request in a pool thread with a blocking socket: a
client trickling one byte a second holds that thread as long as it likes. Here every read
of a request (line, headers, body) must finish within ``ERRATA_READ_DEADLINE_S`` of the
request's first byte, and a stalled write gives up after ``ERRATA_SEND_TIMEOUT_S``; a
trickling client then holds a thread for seconds, not forever. ``gunicorn.conf.py``
selects this worker.
"""

from __future__ import annotations

import errno
import socket
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

from app.config import serving_settings


class _DeadlineSocket:
    """A socket whose ``recv`` calls share one absolute deadline."""

    def __init__(self, sock: socket.socket, send_timeout: float) -> None:
        self._sock = sock
        self._send_timeout = send_timeout
        self.deadline: float | None = None
        self.expired = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def _arm(self) -> None:
        if self.deadline is None:
            return
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.expired = True
            # ENOTCONN: gunicorn drops the connection quietly instead of logging a traceback.
            raise OSError(errno.ENOTCONN, "the request was not received within the deadline")
        self._sock.settimeout(remaining)

    def recv(self, *args: Any) -> bytes:
        self._arm()
        try:
            return self._sock.recv(*args)
        except TimeoutError:
            self._arm()  # the deadline passed during the read
            raise

    def recv_into(self, *args: Any) -> int:
        self._arm()
        try:
            return self._sock.recv_into(*args)
        except TimeoutError:
            self._arm()
            raise

    def send(self, *args: Any) -> int:
        self._sock.settimeout(self._send_timeout)
        return self._sock.send(*args)

    def sendall(self, *args: Any) -> None:
        self._sock.settimeout(self._send_timeout)
        self._sock.sendall(*args)


class DeadlineThreadWorker(ThreadWorker):
    """``gthread`` with a read deadline per request and a timeout per write."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = serving_settings()
        self.read_deadline = settings["ERRATA_READ_DEADLINE_S"]
        self.send_timeout = settings["ERRATA_SEND_TIMEOUT_S"]

    def handle(self, conn: Any) -> Any:
        if not isinstance(conn.sock, _DeadlineSocket):
            conn.sock = _DeadlineSocket(conn.sock, self.send_timeout)
        sock = conn.sock
        sock.deadline = time.monotonic() + self.read_deadline
        try:
            result = super().handle(conn)
        finally:
            sock.deadline = None
        if sock.expired:
            # Shut both ways now, so gunicorn's graceful close (on the main thread) does
            # not linger reading from a client that is still trickling.
            self.log.info("closed a connection from %s: request not read in time", conn.client)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return False
        return result
