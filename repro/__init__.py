"""Live reproducer: runs an error record's scenarios against the real upstream package.

This package never imports ``app``: it takes a record (plain data) and returns a
result (plain data), so a GPU worker can run it without the web service around it.
"""
