"""Hardening: tables whose person chose the deal (not ranked), when a table was first
opened (unopened tables expire), and the server's secret for the computer players' random
numbers (made here, once per database).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("seed_chosen", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("opened_at", sa.DateTime(timezone=True), nullable=True))
    # tables made before this revision count as opened (they never expire unopened)
    op.execute("UPDATE tables SET opened_at = created_at")
    secrets_table = op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    op.bulk_insert(secrets_table, [{"name": "bot_rng", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("server_secrets")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("opened_at")
        batch.drop_column("seed_chosen")
