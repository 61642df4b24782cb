"""The background analysis queue: how far the server got analysing each finished table's
deals (``tapete.server.review``), so that the work goes on after a restart.

Revision ID: 0008
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007_fair"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "review_queue",
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("deals", sa.Integer(), nullable=True),
        sa.Column("next_deal", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_review_queue_done_at", "review_queue", ["done_at"])


def downgrade() -> None:
    op.drop_index("ix_review_queue_done_at", table_name="review_queue")
    op.drop_table("review_queue")
