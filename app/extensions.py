"""Extensions, created here and bound to the app in ``create_app``."""

from __future__ import annotations

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

from app.db import Base, include_name

db = SQLAlchemy(model_class=Base)
migrate = Migrate(compare_type=True, render_as_batch=True, include_name=include_name)
