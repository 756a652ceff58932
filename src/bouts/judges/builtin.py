"""Import the built-in judges so that they register in ``JUDGES`` (like a plugin would)."""
