"""Fair deals: each table's deal key, the secret its deal seeds are derived from
(tapete.server.fairness). Tables made before this revision have none and keep their deals.

Revision ID: 0007_fair
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_fair"
down_revision = "0006_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deal_keys",
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deal_keys")
