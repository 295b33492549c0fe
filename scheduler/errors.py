"""The errors the scheduler raises for a user to read: each is one line, and the command
line prints it and exits with status 2."""
from __future__ import annotations


class LedgerError(Exception):
    """The ledger cannot be used (no answer, bad URL, unknown run)."""


class BrokerError(Exception):
    """The Celery broker does not answer."""
