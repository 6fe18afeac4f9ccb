"""User-facing error kinds that must be importable without the heavy libraries.

The command line catches these and prints one line; it imports this module (not `harness.tracking`,
which pulls in Lightning) so that a mistake on the command line is answered in a second or two.
"""

from __future__ import annotations


class TrackingError(RuntimeError):
    """The tracking store cannot be used (bad URI, nothing listening, store kept failing): one line."""
