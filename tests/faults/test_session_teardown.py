"""A connection lost between the response and the session's close is no 500."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

pytestmark = pytest.mark.unit


@pytest.mark.committed  # the pool's own connections: one is invalidated
def test_a_connection_dropped_before_the_session_closes_keeps_the_response(
    app, client, monkeypatch, caplog
):
    """PostgreSQL restarted while `GET /?q=mla` ran: the page was rendered, then the
    rollback that closing the session sends failed (`AdminShutdown`). The response stands,
    and the next request gets a fresh session."""
    real = Session.close
    dropped: list[bool] = []

    def close(self: Session) -> None:
        if not dropped:
            dropped.append(True)
            raise OperationalError(
                "ROLLBACK", {}, Exception("terminating connection due to administrator command")
            )
        real(self)

    monkeypatch.setattr(Session, "close", close)
    assert client.get("/api/v1/records").status_code == 200
    assert dropped and "connection lost while closing" in caplog.text
    assert client.get("/api/v1/records").status_code == 200
