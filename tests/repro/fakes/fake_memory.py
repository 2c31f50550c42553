"""Fake harness: tries to allocate 4 GiB, which the runner's address-space cap forbids."""

import sys

block = bytearray(4 * 1024**3)
sys.stdout.write(f'{{"allocated": {len(block)}}}')
