"""Fake harness: forks a grandchild, records its pid in $FAKE_PID_FILE, and both hang."""

import os
import time

child = os.fork()
if child == 0:
    while True:
        time.sleep(1)
with open(os.environ["FAKE_PID_FILE"], "w") as fh:
    fh.write(str(child))
while True:
    time.sleep(1)
