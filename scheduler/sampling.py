"""Which complete subproblems of a ``--verify P`` run are re-solved by another worker: a
hashed coin, ``sha256(seed, path) < P``, so the choice depends only on the run's seed and
the path — the same whoever records the result, however often, and after a resume.
Without SQLAlchemy: the ledger (:mod:`scheduler.ledger.verifications`) and a run written
through the driver (:mod:`scheduler.direct_writes`) both ask it."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from .codec import path_text


@dataclass(frozen=True)
class Sampling:
    """A run's ``--verify``: the fraction of complete subproblems re-solved, and the seed."""

    fraction: float
    seed: int = 0

    def picks(self, path: Sequence[int]) -> bool:
        """Whether the complete subproblem at ``path`` is verified."""
        digest = hashlib.sha256(f"{self.seed}:{path_text(path)}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2.0**64 < self.fraction


def sampling_of(verify_fraction: float | None, seed: int | None) -> Sampling | None:
    """The run's sampling, or None when it is not a verified run."""
    if not verify_fraction:
        return None
    return Sampling(float(verify_fraction), int(seed or 0))


def wants_verification(sampling: Sampling | None, outcome) -> bool:
    """Whether a recorded outcome gets a verification: a complete subproblem, sampled."""
    return (sampling is not None and outcome.stopped_by is None and not outcome.frontier
            and sampling.picks(outcome.path))
