"""Agents, API keys and challenges (with their content-hashed versions)."""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bouts.service.storage import keys
from bouts.service.storage.models import AgentRow, ApiKeyRow, ChallengeRow, ChallengeVersionRow, CheckRunRow, utcnow
from bouts.service.storage.records import ChallengeInfo, CheckSummary, ForcedOpen, Principal

LAUNCH_MIN_RUNS = 1
"""A check counts for the launch gate only when it ran the reference (``runs`` >= 1): one that
skipped it checked the spec and the suites' text, not that the tests pass on the reference."""
PENDING = ("queued", "running")


class Catalog:
    """Who may call (agents, keys) and what may be submitted to (challenges)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions
        # (key id, stored hash) -> sha256 of the secret that verified against it. scrypt runs once
        # per key and process; the row is still read on every request, so revocation is immediate.
        self._verified: dict[tuple[str, str], bytes] = {}

    # -- agents and keys ---------------------------------------------------------------------
    def ensure_agent(self, name: str) -> int:
        """The id of agent ``name``, created on first use (safe under concurrent first uses)."""
        with self.sessions() as session:
            found = session.scalar(select(AgentRow.id).where(AgentRow.name == name))
        if found is not None:
            return found
        try:
            with self.sessions.begin() as session:
                agent = AgentRow(name=name)
                session.add(agent)
                session.flush()
                return agent.id
        except IntegrityError:  # another request created it first
            with self.sessions() as session:
                return session.scalars(select(AgentRow.id).where(AgentRow.name == name)).one()

    def create_key(self, role: str, agent: str | None = None, label: str = "") -> str:
        """A new key for ``role`` (agent keys belong to ``agent``); the plaintext is returned once."""
        if role not in ("agent", "operator"):
            raise ValueError(f"unknown role {role!r}")
        if role == "agent" and not agent:
            raise ValueError("an agent key needs the agent's name")
        plaintext, key_id, hashed = keys.new_key()
        agent_pk = self.ensure_agent(agent) if agent else None
        with self.sessions.begin() as session:
            session.add(ApiKeyRow(key_id=key_id, secret_hash=hashed, role=role, agent_id=agent_pk, label=label))
        return plaintext

    def ensure_key(self, plaintext: str, role: str, label: str = "bootstrap") -> None:
        """Register an operator-chosen key (idempotent): the bootstrap operator credential."""
        key_id, hashed = keys.key_from_plaintext(plaintext)
        with self.sessions.begin() as session:
            if session.scalar(select(ApiKeyRow.id).where(ApiKeyRow.key_id == key_id)) is None:
                session.add(ApiKeyRow(key_id=key_id, secret_hash=hashed, role=role, label=label))

    def authenticate(self, plaintext: str) -> Principal | None:
        """The principal of a valid, unrevoked key; None otherwise."""
        parsed = keys.parse_key(plaintext)
        if parsed is None:
            return None
        with self.sessions() as session:
            row = session.execute(
                select(ApiKeyRow, AgentRow.name).outerjoin(AgentRow, AgentRow.id == ApiKeyRow.agent_id)
                .where(ApiKeyRow.key_id == parsed.key_id)
            ).first()  # fmt: skip
        if row is None or row[0].revoked_at is not None:
            return None
        key, agent = row
        cache_key, fast = (key.key_id, key.secret_hash), hashlib.sha256(parsed.secret.encode()).digest()
        cached = self._verified.get(cache_key)
        if cached is None or not hmac.compare_digest(cached, fast):
            if not keys.verify_secret(parsed.secret, key.secret_hash):
                return None
            if len(self._verified) > 10_000:
                self._verified.clear()
            self._verified[cache_key] = fast
        return Principal(role=key.role, key_id=key.key_id, key_pk=key.id, agent=agent, label=key.label)  # type: ignore[arg-type]

    def revoke_key(self, key_id: str) -> bool:
        with self.sessions.begin() as session:
            result = session.execute(
                update(ApiKeyRow).where(ApiKeyRow.key_id == key_id, ApiKeyRow.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
            return result.rowcount == 1  # type: ignore[attr-defined]

    # -- challenges --------------------------------------------------------------------------
    def register_version(
        self, *, slug: str, title: str, family: str, profile: str, content_hash: str, path: str, source_path: str,
        registered_by: str,
    ) -> tuple[ChallengeInfo, bool]:
        """Record a challenge snapshot and make it current; (info, whether it was new)."""  # fmt: skip
        with self.sessions.begin() as session:
            challenge = session.scalar(select(ChallengeRow).where(ChallengeRow.slug == slug))
            if challenge is None:
                challenge = ChallengeRow(slug=slug, title=title, family=family, profile=profile)
                session.add(challenge)
                session.flush()
            else:
                challenge.title, challenge.family, challenge.profile = title, family, profile
            version = session.scalar(
                select(ChallengeVersionRow).where(
                    ChallengeVersionRow.challenge_id == challenge.id, ChallengeVersionRow.content_hash == content_hash
                )
            )
            created = version is None
            session.execute(
                update(ChallengeVersionRow).where(ChallengeVersionRow.challenge_id == challenge.id)
                .values(is_current=False)
            )
            if version is None:
                version = ChallengeVersionRow(challenge_id=challenge.id, content_hash=content_hash, path=path,
                                           source_path=source_path, registered_by=registered_by)  # fmt: skip
                session.add(version)
            version.is_current = True
            session.flush()
        found = self.challenge(slug)
        assert found is not None
        return found, created

    def challenge(self, slug: str) -> ChallengeInfo | None:
        """The challenge ``slug`` with its current version."""
        infos = self._infos(slug)
        return infos[0] if infos else None

    def challenges(self) -> list[ChallengeInfo]:
        return self._infos(None)

    def set_active(self, slug: str, active: bool | None = None, *, reveal_hidden: str | None = None) -> bool:
        """Open or close a challenge, and/or set when its hidden tests' names are shown; False if none."""
        values: dict[str, object] = {"active": active, "reveal_hidden": reveal_hidden}
        values = {k: v for k, v in values.items() if v is not None}
        with self.sessions.begin() as session:
            if not values:
                return session.scalar(select(ChallengeRow.id).where(ChallengeRow.slug == slug)) is not None
            result = session.execute(update(ChallengeRow).where(ChallengeRow.slug == slug).values(**values))
            return result.rowcount == 1  # type: ignore[attr-defined]

    def force_open(self, slug: str, *, by: str, reason: str | None) -> bool:
        """Record (``reason``) or withdraw (None) an operator's force-open of the current version of
        ``slug``; False if no such challenge."""
        forced = reason is not None
        values = {"forced_by": by if forced else None, "forced_at": utcnow() if forced else None,
                  "forced_reason": reason}  # fmt: skip
        with self.sessions.begin() as session:
            version_id = session.scalar(
                select(ChallengeVersionRow.id).join(ChallengeRow, ChallengeRow.id == ChallengeVersionRow.challenge_id)
                .where(ChallengeRow.slug == slug, ChallengeVersionRow.is_current.is_(True))
            )  # fmt: skip
            if version_id is None:
                return False
            session.execute(update(ChallengeVersionRow).where(ChallengeVersionRow.id == version_id).values(**values))
            return True

    def _checks(self, session: Session, version_ids: list[int]) -> dict[int, tuple[Summary, Summary]]:
        """Per version: (its latest launch check with a verdict, its newest check still pending)."""
        r = CheckRunRow
        query = select(r.id, r.challenge_version_id, r.state, r.launch, r.runs, r.anchors, r.requested_by,
                       r.created_at, r.finished_at).where(
            r.challenge_version_id.in_(version_ids),
            or_((r.state == "done") & (r.runs >= LAUNCH_MIN_RUNS), r.state.in_(PENDING)),
        )  # fmt: skip
        found: dict[int, tuple[Summary, Summary]] = {}
        for row in session.execute(query):
            summary = CheckSummary(id=row.id, state=row.state, launch=row.launch, runs=row.runs, anchors=row.anchors,
                                   requested_by=row.requested_by, created_at=row.created_at,
                                   finished_at=row.finished_at)  # fmt: skip
            checked, pending = found.get(row.challenge_version_id, (None, None))
            if row.state == "done":
                checked = summary if checked is None or _newer(summary, checked, by_finish=True) else checked
            else:
                pending = summary if pending is None or _newer(summary, pending, by_finish=False) else pending
            found[row.challenge_version_id] = (checked, pending)
        return found

    def _infos(self, slug: str | None) -> list[ChallengeInfo]:
        counts = (
            select(ChallengeVersionRow.challenge_id, func.count().label("n"))
            .group_by(ChallengeVersionRow.challenge_id).subquery()
        )  # fmt: skip
        query = (
            select(ChallengeRow, ChallengeVersionRow, counts.c.n)
            .join(ChallengeVersionRow, ChallengeVersionRow.challenge_id == ChallengeRow.id)
            .join(counts, counts.c.challenge_id == ChallengeRow.id)
            .where(ChallengeVersionRow.is_current.is_(True))
            .order_by(ChallengeRow.slug)
        )
        if slug is not None:
            query = query.where(ChallengeRow.slug == slug)
        with self.sessions() as session:
            rows = list(session.execute(query))
            checks = self._checks(session, [v.id for _, v, _ in rows])
        infos = []
        for c, v, n in rows:
            checked, pending = checks.get(v.id, (None, None))
            forced = ForcedOpen(v.forced_by, v.forced_at, v.forced_reason or "") if v.forced_at is not None else None
            infos.append(ChallengeInfo(slug=c.slug, title=c.title, family=c.family, profile=c.profile, active=c.active,
                                       version_id=v.id, content_hash=v.content_hash, path=v.path,
                                       registered_at=v.registered_at, versions=n, reveal_hidden=c.reveal_hidden,
                                       checked=checked, pending_check=pending, forced=forced))  # fmt: skip
        return infos


Summary = CheckSummary | None


def _newer(a: CheckSummary, b: CheckSummary, *, by_finish: bool) -> bool:
    """Whether check ``a`` comes after ``b``: by when it finished (else was asked for), then by id."""
    key_a = (a.finished_at if by_finish else None) or a.created_at
    key_b = (b.finished_at if by_finish else None) or b.created_at
    return (key_a, a.created_at, a.id) > (key_b, b.created_at, b.id)
