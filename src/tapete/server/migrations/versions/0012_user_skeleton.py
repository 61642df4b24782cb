"""Account names that look alike: ``users.skeleton`` (``tapete.names.skeleton``: Cyrillic
and Greek look-alikes as Latin letters, I, 1 and l as one, 0 and O as one, case folded),
unique, so that no new account's name looks like an older one's. An account made before
whose name looks like an older account's keeps its name and gets no skeleton (null: unique
indexes let nulls repeat on SQLite and PostgreSQL), the older one keeps it.

Revision ID: 0012_user_skeleton
Revises: 0011_chat
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from tapete.names import skeleton

revision = "0012_user_skeleton"
down_revision = "0011_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("skeleton", sa.Text(), nullable=True))
    users = sa.table(
        "users",
        sa.column("id", sa.Integer()),
        sa.column("name", sa.String()),
        sa.column("skeleton", sa.Text()),
    )
    connection = op.get_bind()
    seen: set[str] = set()
    rows = connection.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id))
    for user_id, name in rows.all():
        key = skeleton(name)
        if key not in seen:  # (the oldest account keeps it)
            seen.add(key)
            connection.execute(sa.update(users).where(users.c.id == user_id).values(skeleton=key))
    op.create_index("ix_users_skeleton", "users", ["skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_users_skeleton", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("skeleton")
