"""Extensions, created here and bound to the app in ``create_app``."""

from __future__ import annotations

import logging

from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.exc import SQLAlchemyError

from app.db import Base, include_name

log = logging.getLogger(__name__)


class _SQLAlchemy(SQLAlchemy):
    def _teardown_session(self, exc: BaseException | None) -> None:
        """Remove the request's session. A connection the database dropped while the
        request ran (a restart) fails the rollback that closing it sends: the session is
        discarded all the same, its connections invalidated, and the response already made
        stands (before, it became a 500 after the page had been rendered)."""
        try:
            self.session.remove()
        except SQLAlchemyError as error:
            log.warning("database connection lost while closing a request's session: %s", error)
            try:
                self.session.registry().invalidate()
            except SQLAlchemyError:
                pass
            finally:
                self.session.registry.clear()


db = _SQLAlchemy(model_class=Base)
migrate = Migrate(compare_type=True, render_as_batch=True, include_name=include_name)
# Limits are per client address; storage is memory:// on the embedded default and Redis in
# production (RATELIMIT_STORAGE_URI). A storage outage never blocks reads (swallow_errors).
limiter = Limiter(
    key_func=get_remote_address,
    headers_enabled=True,
    swallow_errors=True,
    in_memory_fallback_enabled=True,
)
