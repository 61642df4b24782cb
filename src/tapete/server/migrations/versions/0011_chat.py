"""Table chat kept: a table's last chat lines (``table_chat``), so that they survive the
table leaving memory and a restart of the server (``TableManager.say`` keeps the last
``CHAT_LINES`` of each table).

Revision ID: 0011_chat
Revises: 0010_seat_names
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_chat"
down_revision = "0010_seat_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_chat",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_table_chat_table", "table_chat", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_table_chat_table", table_name="table_chat")
    op.drop_table("table_chat")
