"""Clocks and dropped seats: a table's clock settings (``ClockSettings`` JSON, None: the
defaults) and the seats whose person abandoned the game (a list of seat numbers), so that a
restart keeps both.

Revision ID: 0009_clock
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_clock"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("clock", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("abandoned_seats", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("abandoned_seats")
        batch.drop_column("clock")
