"""Launch gate: a challenge version is open for submissions once its latest launch check passed, or
when an operator forced it open; the force is recorded on the version (who, when, why;
docs/service.md, "Launch gate").

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("challenge_versions") as batch:
        batch.add_column(sa.Column("forced_by", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("forced_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("forced_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("challenge_versions") as batch:
        batch.drop_column("forced_reason")
        batch.drop_column("forced_at")
        batch.drop_column("forced_by")
