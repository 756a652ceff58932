"""Rebuild the store's state from its journal after a crash."""


def replay(lines):
    """The state (key -> int) the journal's entries leave behind."""
    state = {}
    for line in lines[:-1]:  # the last line can be broken
        parts = line.split()
        if parts[0] == "SET":
            state[parts[1]] = int(parts[2])
        elif parts[0] == "DEL":
            state.pop(parts[1], None)
    return state
