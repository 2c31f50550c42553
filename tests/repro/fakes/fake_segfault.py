"""Fake harness: dies by SIGSEGV (reads address 0 through ctypes)."""

import ctypes
import sys

sys.stderr.write("about to segfault\n")
sys.stderr.flush()
ctypes.string_at(0)
