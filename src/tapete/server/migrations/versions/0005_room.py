"""The online room: tables with several people (one row per seat, each person's seat with its
own secret token), invitation codes, lobby and spectator options.

Tables made before this revision have no seat rows: their seats are read from ``levels`` and
``token`` (the person at seat 0), as the server always did.

Revision ID: 0005_room
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_room"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("invite", sa.String(64), nullable=True))
        batch.add_column(
            sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("spectators", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch.add_column(
            sa.Column("spectator_delay", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(
            sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("quick", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("fill_after_s", sa.Float(), nullable=True))
        batch.create_index("ix_tables_invite", ["invite"], unique=True)
    op.create_table(
        "table_seats",
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("token", sa.String(64), nullable=True),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("table_seats")
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_invite")
        for column in (
            "fill_after_s",
            "quick",
            "listed",
            "spectator_delay",
            "spectators",
            "rated",
            "invite",
        ):
            batch.drop_column(column)
