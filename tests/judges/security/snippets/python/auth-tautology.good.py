# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
def can_edit(user, doc) -> bool:
    return user.id == doc.owner_id or user.is_admin


def is_admin(user) -> bool:
    return user.role == "admin"


def is_ready() -> bool:
    return True
