"""Extensions, created here and bound to the app in ``create_app``."""

from __future__ import annotations

from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

from app.db import Base, include_name

db = SQLAlchemy(model_class=Base)
migrate = Migrate(compare_type=True, render_as_batch=True, include_name=include_name)
# Limits are per client address; storage is memory:// on the embedded default and Redis in
# production (RATELIMIT_STORAGE_URI). A storage outage never blocks reads (swallow_errors).
limiter = Limiter(
    key_func=get_remote_address,
    headers_enabled=True,
    swallow_errors=True,
    in_memory_fallback_enabled=True,
)
