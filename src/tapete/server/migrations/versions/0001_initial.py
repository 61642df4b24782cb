"""Tables, the action log, player statistics and the ranking.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("profile", sa.String(16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("levels", sa.JSON(), nullable=False),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("final_scores", sa.JSON(), nullable=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("max_deals", sa.Integer(), nullable=True),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_index("ix_tables_owner", "tables", ["owner"])
    op.create_table(
        "actions",
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "player_stats",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("profile", sa.String(16), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("points_total", sa.Float(), nullable=False),
        sa.Column("contracts_made", sa.Integer(), nullable=False),
        sa.Column("contracts_failed", sa.Integer(), nullable=False),
        sa.Column("barrel_visits", sa.Integer(), nullable=False),
    )
    op.create_table(
        "ranking",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("profile", sa.String(16), nullable=False),
        sa.Column("target", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("date", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id"),
    )
    op.create_index("ix_ranking_name", "ranking", ["name"])
    op.create_index("ix_ranking_board", "ranking", ["game", "target", "score"])


def downgrade() -> None:
    op.drop_table("ranking")
    op.drop_table("player_stats")
    op.drop_table("actions")
    op.drop_table("tables")
