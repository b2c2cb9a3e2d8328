"""A question to ranked, citable passages."""
