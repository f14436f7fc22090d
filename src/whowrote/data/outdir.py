"""Replacing an output folder safely: build beside it, then swap it in with one rename.

``staged_folder(out)`` yields a hidden temporary folder next to ``out`` (``.NAME.tmp-XXXX``); when
the ``with`` block finishes, a manifest of every file written (``MANIFEST``) is added and the
folder takes ``out``'s place:

- ``out`` missing (or an empty folder): one ``rename``;
- ``out`` holding an earlier split: one atomic ``renameat2(RENAME_EXCHANGE)`` on Linux (the old
  split moves to the temporary name and is then deleted); where that call is missing, two
  renames (for an instant ``out`` does not exist; the old split is still whole under the
  temporary name and the next run removes it);
- ``out`` holding anything its manifest does not list (a user's own file, a split written
  without a manifest): refused before any work, and checked again just before the swap. Nothing
  is ever deleted by a manifest's path names: the old folder is removed as a whole, and only
  once every entry in it is known to be ours.

Interrupted runs (SIGKILL, power loss) leave ``.NAME.tmp-*`` folders; the next write into the
same ``out`` deletes those that are provably ours: one holding ``MARKER`` (written first, removed
only after the swap) whose process is gone, or one holding a manifest that lists everything in it
and no marker (an earlier split that was swapped out). Anything else with that name is left alone.

Commands that write into ``out`` in place (a resumable run, a report rewritten file by file) use the
same refusal through :func:`claim_folder` (or :func:`check_own_folder` alone: the traces report,
whose folder holds exactly its report files, is known by its ``summary.json``): ``out`` must be missing, empty, or a folder that command
wrote, known by its ownership mark (``OWNER``, written when the folder is first claimed) or, for
folders written before marks existed, by the caller's own test (``legacy``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from whowrote.types import WhowroteError

MANIFEST = "split_manifest.json"
MARKER = ".whowrote-writing"
OWNER = ".whowrote-owner"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A temporary folder beside ``out`` that replaces ``out`` when the block succeeds."""
    out = Path(os.path.abspath(out))  # "." or "x/..": the temporary folder must be beside, not inside
    check_replaceable(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(out)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        (tmp / MARKER).write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}), encoding="utf-8")
    except OSError as e:
        raise WhowroteError(f"{out}: cannot create output folder ({e.strerror or e})") from None
    try:
        yield tmp
        write_manifest(tmp)
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary folder
        check_replaceable(out)  # files may have been added while we worked
        old = swap_in(tmp, out)
        (out / MARKER).unlink()  # only now: a folder with a manifest and no marker is a finished split
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)  # the earlier split, all of it ours
    except OSError as e:
        raise WhowroteError(f"{out}: cannot write ({e.strerror or e}); {out} was left as it was") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # nothing there after a successful swap


def check_replaceable(out: Path) -> None:
    """Raise unless ``out`` is missing, empty, or holds only what its manifest lists."""
    if not _holds_entries(out, follow_links=False):
        return
    listed = read_manifest(out)
    if listed is None:
        raise WhowroteError(f"{out}: folder is not empty and holds no split manifest ({MANIFEST}); "
                            "choose an empty or new folder")
    unknown = unlisted_entries(out, listed)
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise WhowroteError(f"{out}: holds files the earlier split did not write ({shown}); "
                            "move them away or choose another folder (nothing was changed)")


def _holds_entries(out: Path, follow_links: bool) -> bool:
    """Whether ``out`` is a folder with something in it (False when missing); raises when it exists
    and is not a folder (a symbolic link counts as not a folder unless ``follow_links``)."""
    if not out.exists() and (follow_links or not out.is_symlink()):
        above = next((a for a in out.parents if a.exists()), None)
        if above is not None and not above.is_dir():  # refused now, not when the first file is written
            raise WhowroteError(f"{out}: is under a file ({above})")
        return False
    if (out.is_symlink() and not follow_links) or not out.is_dir():
        raise WhowroteError(f"{out}: exists and is not a folder")
    return any(out.iterdir())


def json_object(path: Path) -> dict | None:
    """The JSON object in ``path``, or None (missing, unreadable, not JSON, not an object): how the
    ownership mark and the commands' tests for their earlier, unmarked folders read a file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def owner(folder: Path) -> str | None:
    """The command that marked ``folder`` as its own (:func:`claim_folder`), or None."""
    return (json_object(folder / OWNER) or {}).get("written_by")


def check_own_folder(out: Path, command: str, legacy: Callable[[Path], bool] | None = None) -> None:
    """Raise (nothing changed) unless ``out`` is missing, an empty folder, or a folder ``command``
    wrote: one holding its mark or, unmarked, one ``legacy(out)`` recognises as its output."""
    if not _holds_entries(out, follow_links=True):
        return
    if all(p.name.startswith(OWNER) for p in out.iterdir()):  # only a mark, maybe mid-write by a peer process
        return
    mark = owner(out)
    if mark == command or (mark is None and legacy is not None and legacy(out)):
        return
    raise WhowroteError(f"{out}: folder is not empty and was not written by `{command}`; "
                        "choose an empty or new folder (nothing was changed)")


def claim_folder(out: Path, command: str, legacy: Callable[[Path], bool] | None = None) -> Path:
    """:func:`check_own_folder`, then create ``out`` and mark it as ``command``'s; returns ``out``."""
    check_own_folder(out, command, legacy)
    try:
        out.mkdir(parents=True, exist_ok=True)
        if owner(out) != command:  # written whole, then renamed: a peer process never reads half a mark
            tmp = out / f"{OWNER}.tmp-{os.getpid()}"
            tmp.write_text(json.dumps({"written_by": command}) + "\n", encoding="utf-8")
            tmp.replace(out / OWNER)
    except OSError as e:
        raise WhowroteError(f"{out}: cannot create output folder ({e.strerror or e})") from None
    return out


def write_manifest(folder: Path) -> None:
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and p.name != MARKER)
    (folder / MANIFEST).write_text(json.dumps({"written_by": "whowrote data split", "files": files}, indent=1)
                                   + "\n", encoding="utf-8")


def read_manifest(folder: Path) -> set[str] | None:
    """The files ``folder``'s manifest lists, or None when it has no readable manifest."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {*files, MANIFEST, MARKER}  # a marker left by a run killed right after its swap


def unlisted_entries(folder: Path, listed: set[str]) -> list[str]:
    """Entries under ``folder`` that are neither listed files nor folders holding listed files."""
    dirs = {str(Path(f).parent.as_posix()) for f in listed}
    dirs = {p for d in dirs for p in _parents(d)}
    unknown = []
    for root, dirnames, filenames in os.walk(folder):
        rel = Path(root).relative_to(folder)
        for name in dirnames:
            path = (rel / name).as_posix()
            if (Path(root) / name).is_symlink() or path not in dirs:
                unknown.append(path + "/")
        dirnames[:] = [d for d in dirnames if (rel / d).as_posix() in dirs and not (Path(root) / d).is_symlink()]
        unknown += [(rel / name).as_posix() for name in filenames
                    if (rel / name).as_posix() not in listed or (Path(root) / name).is_symlink()]
    return sorted(unknown)


def _parents(path: str) -> list[str]:
    parts = Path(path).parts
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def remove_stale(out: Path) -> list[Path]:
    """Delete ``.NAME.tmp-*`` folders beside ``out`` that interrupted runs of this tool left; if
    ``out`` itself is missing (a run killed between the two renames of the non-Linux swap), the
    earlier split is put back first."""
    prefix = f".{out.name}.tmp-"  # compared as a string: the name may hold glob characters
    stale = [c for c in sorted(out.parent.iterdir(), key=lambda c: c.lstat().st_mtime)
             if c.name.startswith(prefix) and c.is_dir() and not c.is_symlink() and _is_ours_and_stale(c)]
    finished = [c for c in stale if not (c / MARKER).exists()]
    if finished and not out.exists() and not out.is_symlink():
        os.replace(finished[-1], out)
        stale.remove(finished[-1])
    for cand in stale:
        shutil.rmtree(cand, ignore_errors=True)
    return stale


def _is_ours_and_stale(folder: Path) -> bool:
    marker = folder / MARKER
    if marker.is_file():
        try:
            owner = json.loads(marker.read_text(encoding="utf-8"))
            pid, host = int(owner["pid"]), str(owner["host"])
        except (OSError, ValueError, KeyError, TypeError):
            return False
        return host == socket.gethostname() and not _alive(pid)
    listed = read_manifest(folder)
    return listed is not None and not unlisted_entries(folder, listed)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def swap_in(tmp: Path, out: Path) -> Path | None:
    """Put ``tmp`` at ``out``; returns where an earlier ``out`` now is (for the caller to delete)."""
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        os.replace(tmp, out)  # POSIX rename may replace an empty folder
        return None
    if exchange(tmp, out):
        return tmp
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    os.replace(out, aside)  # no renameat2 here: two renames (out is missing for an instant)
    try:
        os.replace(tmp, out)
    except OSError:
        os.replace(aside, out)  # put the earlier split back
        raise
    return aside


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically with Linux ``renameat2(RENAME_EXCHANGE)``; False where unsupported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (38, 22, 95):  # ENOSYS, EINVAL, EOPNOTSUPP: the kernel or filesystem cannot
        return False
    raise OSError(err, os.strerror(err), str(b))
