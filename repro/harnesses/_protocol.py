"""The harness side of the runner protocol: JSON in on stdin, one JSON object out.

Standard library only: this runs inside the target environment, which has none of
errata's own dependencies. Anything a library prints goes to stderr, because file
descriptor 1 is pointed at stderr before the harness runs and the result is written
to a saved copy of the real stdout.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any


def serve(main: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Read the payload, run ``main`` with stdout diverted to stderr, write its result."""
    result_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    payload = json.loads(sys.stdin.read() or "{}")
    result = main(payload)
    data = (json.dumps(result, default=str) + "\n").encode()
    view = memoryview(data)
    while view:
        written = os.write(result_fd, view)
        view = view[written:]
    os.close(result_fd)
