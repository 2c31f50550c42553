"""Browser pages: they parse input, call the domain services, render the dataclasses."""
