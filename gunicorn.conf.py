"""gunicorn settings for ``make serve`` / ``make run`` (read from the working directory).

Threads with a read deadline per request (``app/serving.py``): a slow client holds one
thread for at most ``ERRATA_READ_DEADLINE_S`` seconds, and health checks keep a free
thread. Rate limits are shared across the workers (``app/ratelimits.py``).
"""

import os

worker_class = "app.serving.DeadlineThreadWorker"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("ERRATA_WEB_THREADS", "32"))
timeout = 30
graceful_timeout = 20
keepalive = 5
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190


def on_starting(server):
    """Tell the app how many workers share the limits (each imports it after the fork)."""
    os.environ["ERRATA_WEB_WORKERS"] = str(server.cfg.workers)
