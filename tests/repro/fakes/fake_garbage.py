"""Fake harness: exits 0 after writing something that is not a JSON object."""

print("this is not json")
