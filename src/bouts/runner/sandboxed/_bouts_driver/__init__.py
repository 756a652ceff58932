"""The in-sandbox half of the runner. Plain modules: they import nothing from ``bouts``.

The engine bind-mounts this directory's parent read-only at ``/bouts/lib`` and starts
``supervisor.main`` with ``python -c`` (no flags: docs/sandbox.md, "Grader context"). See
``docs/sandbox.md`` ("The unforgeable channel").
"""
