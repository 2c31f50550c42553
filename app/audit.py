"""The audit trail: one ``errata.audit`` log line per write, naming the token."""

from __future__ import annotations

import logging
import sys
from typing import Any

logger = logging.getLogger("errata.audit")


def init_audit_log() -> None:
    """Audit lines are INFO: make sure they reach stderr whatever the root level is."""
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s audit %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def audit(action: str, token: Any, target: str, **details: Any) -> None:
    """Log ``action`` on ``target`` by ``token`` (an ApiToken, or None for the CLI)."""
    who = f"token {token.id} ({token.name})" if token is not None else "cli"
    extra = "".join(f" {k}={v!r}" for k, v in sorted(details.items()))
    logger.info("%s %s by %s%s", action, target, who, extra)
