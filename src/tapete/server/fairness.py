"""Fair deals at the server's tables: secret deal seeds, committed before and revealed after.

At a table whose person did not choose the deal (``seed_chosen`` false), nobody — no player,
no spectator, no computer player — can know or choose the cards. When the table is created
the server draws a **deal key** of 32 bytes with :mod:`secrets` and stores it in the database
(``deal_keys``, migration ``0007_fair``), in the transaction that creates the table; deal
``k``'s seed is ``HMAC-SHA256(key, "tapete-deal:" + k)`` (:func:`deal_seeds`). The engine deals
from each seed (:mod:`tapete.fair`), puts the deal's commitment (SHA-256 of its seed) in the
views and in the ``deal`` event, and reveals the seed in the ``deal_end`` event and in the
record of the finished deal; ``tapete replay`` checks every revealed seed against its
commitment and the cards.

Why a key rather than a stored list of seeds: HMAC-SHA256 under a secret key is a
pseudo-random function, so the seeds are as unpredictable as independently drawn ones (a
revealed seed says nothing of the next), and one row written with the table holds them all:
a restart deals the same cards, and no write is needed inside the transaction of the action
that begins a deal. The key itself never leaves the server.

Tables made before this revision have no key and keep their old deals (from the table's seed),
as do practice tables whose person chose a "game number": their deals carry no commitment.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from sqlalchemy import ForeignKey, String, bindparam, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from tapete.fair import SEED_BYTES, DealSeeds
from tapete.server.db import Base

__all__ = ["KEY_BYTES", "DealKeyRow", "deal_seeds", "load_key", "new_key", "store_key"]

#: the length of a table's deal key in bytes
KEY_BYTES: Final = 32


class DealKeyRow(Base):
    """A table's deal key (hex), the secret its deal seeds are derived from; never sent."""

    __tablename__ = "deal_keys"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(2 * KEY_BYTES))


def new_key() -> bytes:
    """A new table's deal key, from the operating system's secure random source."""
    return secrets.token_bytes(KEY_BYTES)


def deal_seeds(key: bytes | None) -> DealSeeds | None:
    """``k -> seed of deal k`` for a table with ``key``; None without a key (old deals)."""
    if key is None:
        return None

    def seed(k: int) -> bytes:
        digest = hmac.new(key, f"tapete-deal:{k}".encode(), hashlib.sha256).digest()
        return digest[:SEED_BYTES]

    return seed


def store_key(session: Session, table_id: int, key: bytes) -> None:
    """Keep ``key`` as the deal key of ``table_id`` (in the caller's transaction)."""
    session.add(DealKeyRow(table_id=table_id, key=key.hex()))


#: (built once: a table is rebuilt at every connection to a table nobody watched)
_KEY_OF = select(DealKeyRow.__table__.c.key).where(
    DealKeyRow.__table__.c.table_id == bindparam("b_table_id")
)


def load_key(session: Session, table_id: int) -> bytes | None:
    """The deal key of ``table_id``; None for a table without fair deals."""
    value = session.scalar(_KEY_OF, {"b_table_id": table_id})
    return None if value is None else bytes.fromhex(value)
