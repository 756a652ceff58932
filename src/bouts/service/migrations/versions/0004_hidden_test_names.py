"""Per challenge: when agents and the public may see hidden and pre-built adversarial tests' names
(``reveal_hidden``: ``after-close`` by default, ``never`` or ``always``; docs/service.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.add_column(sa.Column("reveal_hidden", sa.String(length=16), nullable=False,
                                   server_default="after-close"))  # fmt: skip


def downgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("reveal_hidden")
