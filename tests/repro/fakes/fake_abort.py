"""Fake harness: dies by SIGABRT."""

import os
import sys

sys.stderr.write("about to abort\n")
sys.stderr.flush()
os.abort()
