"""The one shell-command classifier every adapter shares (pure: a command string in, actions out).

Agents mostly act through a shell: they read with ``cat``/``sed -n``/``head``, edit with ``sed -i``,
heredocs or ``apply_patch``, search with ``grep``/``find`` and run tests through a dozen runners. This
module turns one command line into the canonical actions it performed, and reads test outcomes from a
runner's output when the log keeps no exit code. The rules are tabled in docs/trajectories.md.
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
from typing import Literal, NamedTuple

from bouts.trajectory._scripts import script_targets

ActionKind = Literal["read", "edit", "write", "delete", "search", "run"]


class Action(NamedTuple):
    """One thing a command did."""

    kind: ActionKind
    path: str | None = None
    query: str | None = None
    runs_tests: bool = False
    body: str | None = None
    """write: the text a heredoc wrote (``cat > fix.py <<EOF … EOF``), kept so a later run of it is read."""


READERS = {"cat", "head", "tail", "less", "more", "nl", "bat", "batcat", "view", "tac"}
SEARCHERS = {
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "find",
    "fd",
    "ls",
    "tree",
    "locate",
    "find_file",
    "search_dir",
    "search_file",
}
NOISE = {
    "cd",
    "pushd",
    "popd",
    "pwd",
    "export",
    "source",
    ".",
    "true",
    "false",
    "set",
    "clear",
    "sleep",
    "echo",
    "printf",
    "mkdir",
    "unset",
    "alias",
    "wait",
    "exit",
}
FILTERS = {"sort", "uniq", "wc", "cut", "tr", "column", "rev", "fmt", "fold", "expand", "jq"}
"""Pipe filters: with file operands they read them (``wc -l f``), without they only shape another
command's output (``find . | sort``): no action of their own, never an extra run."""
WRAPPERS = {"sudo", "time", "nice", "nohup", "command", "exec", "stdbuf", "xvfb-run"}
SHELLS = {"bash", "sh", "zsh", "dash"}
TEST_SCRIPT_NAMES = {"test", "tests", "check", "test:unit", "test:ci", "test:all", "unit", "spec"}
PYTHONS = re.compile(r"^(python|python3(\.\d+)?|py)$")

_OPERATORS = re.compile(r"&&|\|\||;|\||\n")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_REDIRECT = re.compile(r"(?<![0-9&<>])(>>?)\s*([^\s;&|<>]+)")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.M)


def _strip_heredocs(command: str) -> tuple[str, list[str]]:
    """Remove heredoc bodies (they are data, not commands) and return them, in order."""
    bodies: list[str] = []
    lines = command.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        for match in _HEREDOC.finditer(line):
            delimiter, body = match.group(2), []
            while i < len(lines) and lines[i].strip() != delimiter:
                body.append(lines[i])
                i += 1
            i += 1  # the delimiter line
            bodies.append("\n".join(body))
    return "\n".join(out), bodies


def _split(command: str) -> list[str]:
    """Split on && || ; | and newlines outside quotes."""
    segments, start, quote, i = [], 0, "", 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        else:
            match = _OPERATORS.match(command, i)
            if match:
                segments.append(command[start:i])
                start = i = match.end()
                continue
        i += 1
    segments.append(command[start:])
    return [s.strip() for s in segments if s.strip()]


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", re.S)
"""A quoted string of a shell word (its ``>`` and ``|`` are text, not operators)."""


def _redirects(segment: str) -> list[tuple[str, str]]:
    """(operator, target) of each output redirection: a ``>`` inside quotes is text, not an operator, and a
    quoted target is the file it names (``> "my file.txt"``)."""
    if ">" not in segment:
        return []
    blanked = _QUOTED.sub(lambda m: "q" * len(m.group(0)), segment)  # same offsets, no operator left inside
    out = []
    for m in _REDIRECT.finditer(blanked):
        target = segment[m.start(2) : m.end(2)]
        out.append((m.group(1), target[1:-1] if len(target) >= 2 and target[0] == target[-1] in "'\"" else target))
    return out


_SHLEX_SPECIAL = re.compile(r"['\"\\#]")


def _argv(segment: str) -> list[str]:
    return list(_words(segment))


@functools.lru_cache(maxsize=8192)
def _words(segment: str) -> tuple[str, ...]:
    if _SHLEX_SPECIAL.search(segment) is None:
        words = segment.split()  # no quote, escape or comment: shlex would split on whitespace alone
    else:
        try:
            words = shlex.split(segment, comments=True)  # a `# comment` (a whole line of it) runs nothing
        except ValueError:  # unbalanced quotes: fall back to whitespace
            words = segment.split()
    while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in WRAPPERS):
        words = words[1:]
    if words and words[0] in {"timeout", "env"}:
        words = [w for w in words[1:] if not re.match(r"^(-\S*|\d+[smh]?|[A-Za-z_]\w*=.*)$", w)] or words[:1]
    return tuple(words)


_REDIRECT_WORD = re.compile(r"\d*(?:>>?|<{1,3}-?)&?|&>>?")  # `<<< word`: a here-string, not an operand
_REDIRECT_GLUED = re.compile(r"(?:\d*>>?|&>>?|\d*<)\S")


def _without_redirects(args: list[str]) -> list[str]:
    """argv without its redirections (``> F``, ``2>/dev/null``, ``2>&1``, ``< F``): they are not operands."""
    out: list[str] = []
    target = False
    for word in args:
        if target:
            target = False
        elif _REDIRECT_WORD.fullmatch(word):
            target = True  # the next word is the operator's target
        elif not _REDIRECT_GLUED.match(word):
            out.append(word)
    return out


def _operands(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-") and not re.match(r"^\d+$", a)]


def _sed_files(args: list[str]) -> list[str]:
    """sed's file operands: the script is the first operand unless given with -e/-f."""
    files, scripted, skip = [], False, False
    for arg in args:
        if skip:
            skip = False
        elif arg in {"-e", "-f", "--expression", "--file"}:
            scripted = skip = True
        elif not arg.startswith("-"):
            files.append(arg)
    return files if scripted else files[1:]


def _query(prog: str, args: list[str]) -> str:
    """What a search looked for: the pattern for grep-likes, the -name for find, else the paths."""
    for flag in ("-name", "-iname", "-path", "-regex"):
        if flag in args[:-1]:
            return args[args.index(flag) + 1]
    words = _operands(args)
    if prog in {"grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "search_dir", "search_file", "find_file"}:
        return words[0] if words else ""
    return " ".join(words) or "."


def is_test_command(argv: list[str]) -> bool:
    """Whether argv runs a test suite (pytest, npm test, cargo test, go test, make test, …)."""
    if not argv:
        return False
    prog, rest = argv[0].rsplit("/", 1)[-1], argv[1:]
    if prog in {"uv", "poetry", "pdm", "hatch", "pipenv", "rye"} and rest[:1] == ["run"]:
        return is_test_command(rest[1:])
    if prog in {"npx", "bunx", "pnpx"} or (prog in {"pnpm", "yarn", "npm", "bun"} and rest[:1] in (["exec"], ["dlx"])):
        return is_test_command([w for w in rest if not w.startswith("-") and w not in {"exec", "dlx"}])
    if prog in {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest", "nextest"}:
        return True
    if prog.endswith("runtests.py") or prog in {"runtests", "runtests.sh", "run_tests.py", "run-tests", "run_tests.sh"}:
        return True
    if prog in {"test", "tests"} and "/" in argv[0]:  # sympy's bin/test, ./test: a script, not the shell builtin
        return True
    if PYTHONS.match(prog):
        if rest[:2] in (["-m", "pytest"], ["-m", "unittest"], ["-m", "tox"], ["-m", "nose2"], ["-m", "nox"]):
            return True
        if rest[:3] == ["-m", "django", "test"]:
            return True
        script = next((w for w in rest if not w.startswith("-")), "")
        return (
            script.endswith(("runtests.py", "run_tests.py", "/test"))
            or script in {"test", "bin/test"}
            or (script.endswith("manage.py") and "test" in rest)
        )
    words = _operands(rest)
    if prog in {"npm", "yarn", "pnpm", "bun", "deno"}:
        words = [w for w in words if w not in {"run", "--filter", "-F", "--workspace", "-w"}]
        return any(w in TEST_SCRIPT_NAMES or w.startswith("test") for w in words[:2])
    if prog in {"cargo", "go", "mvn", "gradle", "gradlew", "./gradlew", "dotnet", "swift", "mix", "make", "just"}:
        first = words[0] if words else ""
        return first in TEST_SCRIPT_NAMES or first.startswith("test") or first in {"nextest", "llvm-cov", "tarpaulin"}
    return False


def _script_actions(prog: str, args: list[str], own: list[str], written: dict[str, str]) -> list[Action]:
    """The edits of a script run (issue 38, item 1): ``perl -pi -e … f`` edits its file operands; ``python -c
    CODE``, ``python - <<EOF`` and ``python fix.py`` (written earlier in the same command) edit what the
    code opens for writing (``_scripts.script_targets``; a target it cannot resolve: an edit of no file)."""
    if prog in {"perl", "ruby"}:
        if not any(a.startswith("-") and "i" in a.lstrip("-") for a in args if not a.startswith("--")):
            return []
        files, skip = [], False
        scripted = any(a in {"-e", "-E"} or (a.startswith("-") and a.endswith(("e", "E"))) for a in args)
        for a in args:
            if skip:
                skip = False
            elif a in {"-e", "-E"} or (a.startswith("-") and not a.startswith("--") and a.endswith(("e", "E"))):
                skip = True
            elif not a.startswith("-"):
                files.append(a)
        return [Action("edit", path=f) for f in (files if scripted else files[1:])]
    code = ""
    if len(args) >= 2 and args[0] == "-c":
        code = args[1]
    elif own and (not args or args[0] == "-"):
        code = "\n".join(own)
    elif args and not args[0].startswith("-"):
        code = next((body for path, body in written.items() if path == args[0] or path.endswith("/" + args[0])), "")
    return [Action("edit", path=t) for t in script_targets(code)] if code else []


def _segment_actions(
    argv: list[str],
    segment: str,
    bodies: list[str],
    own: list[str] | None = None,
    written: dict[str, str] | None = None,
) -> list[Action]:
    """The actions of one segment. ``own``: the heredoc bodies this segment reads; ``written``: scripts
    written earlier in the same command (path → text)."""
    own, written = own or [], written if written is not None else {}
    prog = argv[0].rsplit("/", 1)[-1]
    args = _without_redirects(argv[1:])
    redirects = [
        (op, target)
        for op, target in _redirects(segment)
        if not target.startswith(("/dev/", "&")) and target not in {"1", "2"}
    ]
    # what a reader, searcher or navigation command prints into a file writes that file
    outputs = [Action("edit" if op == ">>" else "write", path=t) for op, t in redirects]
    if prog in SHELLS and len(args) >= 2 and args[0] in {"-c", "-lc", "-ic"}:
        return _actions(args[1])
    script = args[0] if prog in SHELLS and args and not args[0].startswith("-") else argv[0]
    if written and (prog in SHELLS or script.endswith((".sh", ".bash"))):  # `bash fix.sh`/`./fix.sh` written above
        name = script.removeprefix("./")
        body = next((b for p, b in written.items() if p.removeprefix("./") == name or p.endswith("/" + name)), None)
        if body is not None:
            changed = [a for a in _actions(body) if a.kind in {"edit", "write", "delete"}]
            return [Action("run"), *(Action("edit", path=a.path) for a in changed)]
    if prog in {"apply_patch", "applypatch"} or (prog == "git" and args[:1] == ["apply"]) or prog == "patch":
        body = "\n".join(bodies + args)
        kinds: dict[str, ActionKind] = {"Add": "write", "Update": "edit", "Delete": "delete"}
        found = [Action(kinds[k], path=p.strip()) for k, p in _PATCH_FILE.findall(body)]
        found = found or [Action("edit", path=p) for p in _DIFF_FILE.findall(body)]
        return found or [Action("edit")]
    if prog in {"cat", "echo", "printf"} and redirects:
        body = own[0] if prog == "cat" and own else None
        for op, t in redirects:
            if body is not None and op == ">":
                written[t] = body
        return [
            Action("edit" if op == ">>" else "write", path=t, body=body if op == ">" else None) for op, t in redirects
        ]
    if prog == "tee":
        append = any(a in {"-a", "--append"} for a in args)
        return [Action("edit" if append else "write", path=p) for p in _operands(args)]
    if prog == "sed":
        in_place = any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args)
        found = [Action("edit" if in_place else "read", path=p) for p in _sed_files(args)]  # none: a pipe filter
        return found if in_place else found + outputs
    if prog in READERS or prog == "awk":
        files = _operands(args)[1:] if prog == "awk" else _operands(args)
        return [Action("read", path=p) for p in files] + outputs
    if prog in FILTERS:
        reads = [Action("read", path=p) for p in _operands(args)] if prog in {"sort", "uniq", "wc"} else []
        return reads + outputs
    if prog in {"open", "goto"} and args:  # SWE-agent's windowed file viewer
        return [Action("read", path=args[0])]
    if prog in SEARCHERS or (prog == "git" and args[:1] == ["grep"]):
        return [Action("search", query=_query(prog, args[1:] if prog == "git" else args)), *outputs]
    if prog in {"rm", "unlink", "rmdir"}:
        return [Action("delete", path=p) for p in _operands(args)]
    if prog in {"touch", "create"}:
        return [Action("write", path=p) for p in _operands(args)]
    if prog == "cp" and len(_operands(args)) >= 2:
        return [Action("write", path=_operands(args)[-1])]
    if prog == "mv" and len(_operands(args)) >= 2:
        ops = _operands(args)
        return [*(Action("delete", path=p) for p in ops[:-1]), Action("write", path=ops[-1])]
    if prog in NOISE:
        return outputs
    edits = _script_actions(prog, args, own, written) if PYTHONS.match(prog) or prog in {"perl", "ruby"} else []
    # what a program prints into a file writes that file (`python fix.py < a.py > a.py.tmp && mv a.py.tmp a.py`)
    return [Action("run", runs_tests=is_test_command(argv)), *edits, *outputs]


def _actions(command: str) -> list[Action]:
    script, bodies = _strip_heredocs(command)
    actions: list[Action] = []
    taken = 0
    written: dict[str, str] = {}
    cwd = ""  # a relative directory this command `cd`'d into: its later relative paths are inside it
    for segment in _split(script):
        n = len(_HEREDOC.findall(segment))
        own, taken = bodies[taken : taken + n], taken + n
        argv = _argv(segment)
        if argv and argv[0] == "cd":
            cwd = _cd(cwd, argv[1] if len(argv) > 1 else "")
        elif argv:
            found = _segment_actions(argv, segment, bodies, own, written)
            actions.extend(_under(cwd, a) for a in found)
    return actions


def _cd(cwd: str, target: str) -> str:
    """The relative directory after ``cd target``: an absolute or home target (the workspace root as the
    log names it, ``/testbed``) starts over with paths as written; ``..`` climbs out of one level."""
    if not target or target.startswith(("/", "~", "-", "$")):
        return ""
    joined = posixpath.normpath(posixpath.join(cwd, target)) if cwd else posixpath.normpath(target)
    return "" if joined in (".", "") or joined.startswith("..") else joined


def _under(cwd: str, action: Action) -> Action:
    path = action.path
    if not cwd or not path or path.startswith(("/", "~", "$")):
        return action
    return action._replace(path=posixpath.normpath(posixpath.join(cwd, path)))


def command_segments(command: str) -> list[list[str]]:
    """The argv of each segment of a shell command, in order: heredoc bodies removed, split on
    ``&&``, ``||``, ``;``, ``|`` and newlines outside quotes, wrappers (``sudo``, ``timeout N``, ``VAR=x``)
    stripped. The last segment's exit status is the command's (the trajectory judges use this to tell
    whether a test command's exit status is its runner's)."""
    script, _ = _strip_heredocs(command)
    out: list[list[str]] = []
    for argv in (_argv(segment) for segment in _split(script)):
        if argv and argv[0].rsplit("/", 1)[-1] in SHELLS and len(argv) >= 3 and argv[1] in {"-c", "-lc", "-ic"}:
            out.extend(command_segments(argv[2]))  # bash -lc '…': the inner command's segments
        elif argv:
            out.append(argv)
    return out


def status_actions(command: str) -> list[Action]:
    """The actions of the segment whose exit status is the command's: the last one (``a | b``, ``a; b``
    and ``a && b`` all report ``b``'s), looking inside ``bash -lc '…'``. Empty for a navigation-only tail."""
    script, bodies = _strip_heredocs(command)
    segments = [(seg, argv) for seg in _split(script) if (argv := _argv(seg))]
    if not segments:
        return []
    segment, argv = segments[-1]
    if argv[0].rsplit("/", 1)[-1] in SHELLS and len(argv) >= 3 and argv[1] in {"-c", "-lc", "-ic"}:
        return status_actions(argv[2])
    return _segment_actions(argv, segment, bodies)


_PROBE_PROGRAMS = frozenset({
    "which", "whereis", "type", "command", "hash", "uname", "whoami", "id", "hostname", "nproc", "env", "printenv",
    "test", "[", "[[", "stat", "file", "wc", "du", "df", "date", "locale",
})  # fmt: skip
_PIP = re.compile(r"^pip[\d.]*$")
_IMPORT_ONLY = re.compile(
    r"^\s*(?:(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+[\w*, ()]+)"
    r"\s*(?:;|\n|$)\s*(?:print\([\w.]*(?:__version__|__file__|version)[\w.()]*\)\s*(?:;|\n|$)\s*)*)+$"
)


def is_probe(argv: list[str]) -> bool:
    """Whether one segment only asks the environment a question (``which x``, ``pip show x``, ``x --version``,
    ``python -c "import h5py"``): its non-zero exit is an answer ("not installed"), not a failure of the work."""
    if not argv:
        return False
    prog, rest = argv[0].rsplit("/", 1)[-1], argv[1:]
    if prog in _PROBE_PROGRAMS or rest[:1] in (["--version"], ["-V"], ["version"]) and len(rest) == 1:
        return True
    if _PIP.match(prog) or (PYTHONS.match(prog) and rest[:2] == ["-m", "pip"]):
        sub = rest[2:3] if rest[:1] == ["-m"] else rest[:1]
        return sub in (["show"], ["list"], ["freeze"], ["index"], ["--version"])
    if PYTHONS.match(prog) and len(rest) == 2 and rest[0] == "-c":
        return bool(_IMPORT_ONLY.match(rest[1]))
    return prog == "git" and rest[:1] in (["status"], ["log"], ["diff"], ["show"], ["branch"], ["rev-parse"])


def program_segments(command: str) -> list[list[str]]:
    """The argv of the segments that run a program (not a read, search, file change or navigation), looking
    inside ``bash -lc '…'``: the segments whose failure is a failure of the work, unless they are probes."""
    script, bodies = _strip_heredocs(command)
    out: list[list[str]] = []
    for segment in _split(script):
        argv = _argv(segment)
        if not argv:
            continue
        if argv[0].rsplit("/", 1)[-1] in SHELLS and len(argv) >= 3 and argv[1] in {"-c", "-lc", "-ic"}:
            out.extend(program_segments(argv[2]))
        elif any(a.kind == "run" for a in _segment_actions(argv, segment, bodies)):
            out.append(argv)
    return out


def status_program(command: str) -> str:
    """The program whose exit status is the command's (the last segment's), without its directory."""
    segments = command_segments(command)
    return segments[-1][0].rsplit("/", 1)[-1] if segments else ""


def classify_command(command: str, *, bodies: bool = False) -> list[Action]:
    """The actions one shell command performed, in order.

    File actions (read/edit/write/delete/search) come one per file; every segment that is anything
    else (a script, a build, a test runner) folds into ONE ``run`` action for the whole command, placed
    where the first such segment was, with ``runs_tests`` if any segment ran tests. A command made only
    of navigation (``cd``, ``echo``) is still a ``run``: the agent did act.
    """
    merged: list[Action] = []
    run_at: int | None = None
    tests = False
    for action in _actions(command):
        if action.kind == "run":
            tests = tests or action.runs_tests
            if run_at is None:
                run_at = len(merged)
                merged.append(action)
        else:
            merged.append(action)
    if run_at is not None:
        merged[run_at] = Action("run", runs_tests=tests)
    if not bodies:  # what a heredoc wrote is the events' business (``command_events``), not an action's identity
        merged = [a._replace(body=None) if a.body is not None else a for a in merged]
    return merged or [Action("run")]
