"""Rebuild the store's state from its journal after a crash."""


def replay(lines):
    """The state (key -> int) the journal's committed entries leave behind."""
    state = {}
    pending = None
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "BEGIN":
            pending = []
        elif parts[0] == "COMMIT":
            for p in pending or []:
                if p[0] == "SET":
                    state[p[1]] = int(p[2])
                else:
                    state.pop(p[1], None)
            pending = None
        elif pending is not None:
            pending.append(parts)
        elif parts[0] == "SET":
            state[parts[1]] = int(parts[2])
        elif parts[0] == "DEL":
            state.pop(parts[1], None)
    return state
