"""Check runs (``bouts check`` as a background job) and re-scores (with their trail).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _job_columns() -> list[sa.Column]:  # type: ignore[type-arg]
    """The columns every background job row shares (state machine, timestamps)."""
    return [
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "check_runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("challenge_version_id", sa.Integer(), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("anchors", sa.Boolean(), nullable=False),
        sa.Column("fresh_seeds", sa.JSON(), nullable=False),
        *_job_columns(),
        sa.Column("launch", sa.Boolean(), nullable=True),
        sa.Column("report", sa.Text(), nullable=True),
        sa.Column("requested_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["challenge_id"], ["challenges.id"]),
        sa.ForeignKeyConstraint(["challenge_version_id"], ["challenge_versions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("check_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_check_runs_challenge_id"), ["challenge_id"], unique=False)
        batch_op.create_index("ix_check_runs_state_created", ["state", "created_at"], unique=False)

    op.create_table(
        "rescores",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("submission_id", sa.String(length=32), nullable=False),
        sa.Column("challenge_version_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("requested_by", sa.String(length=200), nullable=False),
        *_job_columns(),
        sa.Column("before_version", sa.Integer(), nullable=True),
        sa.Column("before_final", sa.Integer(), nullable=True),
        sa.Column("after_version", sa.Integer(), nullable=True),
        sa.Column("after_final", sa.Integer(), nullable=True),
        sa.Column("review_score", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["challenge_version_id"], ["challenge_versions.id"]),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rescores", schema=None) as batch_op:
        batch_op.create_index("ix_rescores_state_created", ["state", "created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_rescores_submission_id"), ["submission_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("rescores", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rescores_submission_id"))
        batch_op.drop_index("ix_rescores_state_created")
    op.drop_table("rescores")
    with op.batch_alter_table("check_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_check_runs_state_created")
        batch_op.drop_index(batch_op.f("ix_check_runs_challenge_id"))
    op.drop_table("check_runs")
