"""An index on the seats' names: a player page lists the finished tables where that name
sat at a seat (an invited person's games too, not only the tables they created).

Revision ID: 0010_seat_names
Revises: 0009_clock
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0010_seat_names"
down_revision = "0009_clock"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_table_seats_name", "table_seats", ["name"])


def downgrade() -> None:
    op.drop_index("ix_table_seats_name", table_name="table_seats")
