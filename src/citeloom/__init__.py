"""CiteLoom: ask questions of your own research library and get citable passages back."""

__version__ = "0.1.0"
