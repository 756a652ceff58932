"""Job heartbeats: a running job's worker stamps ``heartbeat_at`` while it works; a job whose
heartbeat is older than the lease is handed back to the queue (docs/service.md, "Recovery").

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None
TABLES = ("submissions", "check_runs", "rescores")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("heartbeat_at")
