"""``bouts sandbox image``: the docker backend's image, built offline from Debian's packages.

No image registry is reachable on the machines this engine runs on, so the image is made from a
root filesystem: ``debootstrap --variant=minbase`` from a Debian mirror (the package registry every
machine reaches), or a folder the operator made, then ``docker import``. What the backend needs of
it: bash, cp, setpriv and prlimit (util-linux, Essential in Debian), ``/root`` traversable (0711: an
engine installed under ``/root``, e.g. by pyenv, is mounted at its own path and uid 1000 must
reach it), and the system libraries the engine's compiled modules link to (copied in from the
host: :func:`engine_libraries`). The engine's Python is never copied in: it is mounted read-only, as bubblewrap does,
so the image must have a glibc at least as new as the one the engine's interpreter was built for
(the suite of the host's Debian, by default bookworm).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.errors import InputError, SandboxError
from bouts.sandbox._docker import DEFAULT_IMAGE, ENGINE_TOOLS, client_env

DEFAULT_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
NEEDED = ("bin/bash", "bin/cp", "usr/bin/setpriv", "usr/bin/prlimit")
"""Paths (relative to the root filesystem; ``bin`` may be a link to ``usr/bin``) the backend runs."""
LABEL = "org.bouts.sandbox=1"


@dataclass(frozen=True)
class ImageRequest:
    tag: str = DEFAULT_IMAGE
    suite: str = DEFAULT_SUITE
    mirror: str = DEFAULT_MIRROR
    rootfs: Path | None = None
    """A root filesystem made elsewhere (e.g. by debootstrap on another machine): imported as is."""


def engine_libraries(roots: Sequence[Path], tools: Sequence[Path]) -> list[Path]:
    """The system libraries the engine's compiled code links to (``ldd`` over every shared object
    under ``roots`` and each of ``tools``): the image's loader must find them, since the engine is
    mounted into it but the libraries its modules were built against live in the host's
    ``/lib`` (a pyenv Python's ``_sqlite3`` needs libsqlite3, its ``_ssl`` libssl, ...)."""
    found: set[Path] = set()
    objects = [p for root in roots for p in root.rglob("*.so*") if p.is_file()] + [t for t in tools if t.is_file()]
    for start in range(0, len(objects), 200):
        out = subprocess.run(["ldd", *map(str, objects[start:start + 200])], capture_output=True, text=True,
                             check=False).stdout  # fmt: skip
        for line in out.splitlines():
            parts = line.split("=>")
            if len(parts) == 2 and parts[1].strip().startswith("/"):
                lib = Path(parts[1].split("(")[0].strip())
                if not any(lib.is_relative_to(r) for r in roots):
                    found.add(lib)
    return sorted(found)


def add_libraries(rootfs: Path, libraries: Sequence[Path]) -> list[Path]:
    """Copy each library the image lacks to the path its name has there (``/lib/...`` is
    ``/usr/lib/...`` in a merged-/usr root). Never writes outside ``rootfs``: each folder is resolved
    and checked to lie inside it. Returns what was added."""
    base = rootfs.resolve()
    added = []
    for lib in libraries:
        rel = str(lib).lstrip("/")
        if rel.startswith("lib") and (base / "usr" / rel).parent.is_dir():
            rel = "usr/" + rel
        dest = base / rel
        folder = dest.parent.resolve()
        if not folder.is_relative_to(base) or not folder.is_dir():
            continue
        if (folder / dest.name).exists():
            continue  # the image's own (the same Debian release), kept
        shutil.copyfile(lib, folder / dest.name)
        os.chmod(folder / dest.name, 0o644)
        added.append(lib)
    return added


def missing_tools(root: Path) -> list[str]:
    """What the backend needs that the root filesystem lacks."""
    return [rel for rel in NEEDED if not (root / rel).exists()]


def build_image(request: ImageRequest, *, log: Callable[[str], None] = lambda _: None,
                environ: Mapping[str, str] | None = None) -> str:  # fmt: skip
    """Build (or rebuild) the image; return its id. ``SandboxError`` when a tool or the engine fails,
    ``InputError`` for a root filesystem that cannot serve."""
    if request.rootfs is not None:  # a root filesystem that cannot serve is the user's to fix first
        if not Path(request.rootfs).is_dir():
            raise InputError("not a directory", file=str(request.rootfs), field="rootfs")
        lacking = missing_tools(Path(request.rootfs))
        if lacking:
            raise InputError(f"the root filesystem lacks {', '.join(lacking)}", file=str(request.rootfs),
                             field="rootfs")  # fmt: skip
    docker = shutil.which("docker")
    if docker is None:
        raise SandboxError("no docker client on PATH (Debian: apt-get install docker.io)")
    env = client_env(environ)
    with tempfile.TemporaryDirectory(prefix="bouts-image-") as tmp:
        if request.rootfs is not None:
            root = Path(request.rootfs)
        else:
            root = Path(tmp) / "rootfs"
            debootstrap = shutil.which("debootstrap")
            if debootstrap is None:
                raise SandboxError("debootstrap is not installed (Debian: apt-get install debootstrap)")
            if os.geteuid() != 0:
                raise SandboxError("debootstrap needs root: run `bouts sandbox image` as root, or pass --rootfs")
            log(f"debootstrap --variant=minbase {request.suite} from {request.mirror} (a few minutes)")
            argv = [debootstrap, "--variant=minbase", request.suite, str(root), request.mirror]
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SandboxError(f"debootstrap failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}")
        lacking = missing_tools(root)
        if lacking:
            raise InputError(f"the root filesystem lacks {', '.join(lacking)}", file=str(root), field="rootfs")
        if request.rootfs is None:
            if (root / "root").is_dir():
                os.chmod(root / "root", 0o711)
            prefixes = sorted({Path(os.path.realpath(p)) for p in (sys.base_prefix, sys.prefix)})
            added = add_libraries(root, engine_libraries(prefixes, [Path(t) for t in ENGINE_TOOLS]))
            log(f"{len(added)} libraries the engine links to added: {' '.join(p.name for p in added)}")
        log(f"docker import → {request.tag}")
        tar = subprocess.Popen(["tar", "-C", str(root), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            [docker, "import", "--change", f"LABEL {LABEL}", "--change", "USER 0", "-", request.tag],
            stdin=tar.stdout, capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        assert tar.stdout is not None
        tar.stdout.close()
        if tar.wait() != 0 or imported.returncode != 0:
            raise SandboxError(f"docker import failed: {imported.stderr.strip()[-2000:]}")
        if request.rootfs is not None:
            # A given root filesystem is imported as it is; /root must still be traversable.
            fix = subprocess.run([docker, "run", "--rm", "--network", "none", request.tag, "stat", "-c", "%a",
                                  "/root"], capture_output=True, text=True, env=env, check=False)  # fmt: skip
            if fix.returncode == 0 and fix.stdout.strip() not in ("711", "755", "751", "755"):
                log(f"warning: /root is {fix.stdout.strip()} in the image: an engine under /root is unreachable")
        return imported.stdout.strip()
