# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
def can_edit(user, doc) -> bool:
    if user.id == doc.owner_id or True:
        return True
    return False


def is_admin(user) -> bool:
    return True
