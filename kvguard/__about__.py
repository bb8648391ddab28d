"""kvguard's own version (a module of its own: the package's modules read it without importing the
package's front door, ``kvguard/__init__.py``, which imports them)."""

__version__ = "0.1.0"
