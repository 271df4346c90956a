"""The per-machine hook launcher, ``.lorebook/bin/hook`` (gitignored).

Committed host configs call ``.lorebook/bin/hook <harness> <event>``: the same string on
every machine. ``lorebook init`` writes the launcher on each machine with that machine's
interpreter, so teammates share the config and a fresh clone gets working hooks from one
``lorebook init``. The launcher is a small Python file whose shebang runs the interpreter
with ``-I -S`` (isolated, no site scan: the flags alone save tens of milliseconds); it puts
exactly the needed folders on ``sys.path``, after the standard library's (so nothing
installed shadows a standard module, and a standard import does not search them first). It
turns the cyclic garbage collector off (a hook process frees everything when it exits, and
the collector's passes over what its imports create took about 3 ms of each prompt;
capture, which may read a large transcript, turns it back on), first offers the event to
the repository's warm hook process (:func:`lorebook.fastpath.client.handled_by_server`: a
connection, no import of the hook path), and only when that process is not there, or
steps aside, lets :class:`lorebook.fastpath.finder.HookFinder` find lorebook's and the
harnesses' modules (about 2 ms less than importlib's search) and calls
:func:`lorebook.hook.run`, passing :func:`lorebook.fastpath.after_event`, which starts that
process for the next event. Run as ``hook --serve``, it is that process
(:func:`lorebook.fastpath.server.serve`).

Where the interpreter's path cannot go in a shebang (too long, or with spaces), ``hook`` is
a POSIX shell script that execs the interpreter on ``hook.py`` instead. On Windows the
launcher is ``hook.cmd``, a batch file that runs the interpreter, named directly, on
``hook.py`` (hosts that take a Windows command, such as Copilot's ``powershell``, call it).
"""

from __future__ import annotations

import importlib
import os
import shlex
import stat
import sys
import sysconfig
from pathlib import Path

from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths

SHELL_TEMPLATE = """#!/bin/sh
# lorebook hook launcher for this machine, written by `lorebook init`. Not committed.
exec {python} -I -S "$(dirname "$0")/hook.py" "$@"
"""

CMD_TEMPLATE = (
    "@echo off\r\n"
    "rem lorebook hook launcher for this machine, written by `lorebook init`. Not committed.\r\n"
    '"{python}" -I -S "%~dp0hook.py" %*\r\n'
)
"""The Windows launcher; ``%~dp0`` is the batch file's own folder, ``%*`` its arguments."""

LAUNCHER_FILES = ("hook", "hook.py", "hook.cmd")

PY_TEMPLATE = '''"""lorebook hook entry for this machine, from `lorebook init`; not committed."""
import gc

gc.disable()  # a hook process lives milliseconds: its cyclic collections cost it about 3 ms
import os  # noqa: E402
import sys

sys.path += {path!r}  # after the standard library, as site would put them
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = {modules!r}
SERVE = sys.argv[1:] == ["--serve"]
if not SERVE:  # the repository's warm hook process answers, if there is one
    import time

    started = time.monotonic()
    try:
        from lorebook.fastpath.client import handled_by_server
    except ImportError:  # a lorebook older than the one that wrote this file
        pass
    else:
        if handled_by_server(os.path.join(REPO, ".lorebook"), sys.argv[1:], started):
            raise SystemExit(0)
try:
    from lorebook.fastpath.finder import install
except ImportError:  # a lorebook older than the one that wrote this file: its own imports
    pass
else:
    install({packages!r})  # lorebook's modules found and loaded without importlib's search
if SERVE:
    from lorebook.fastpath.server import serve

    raise SystemExit(serve(REPO, MODULES, __file__))
from lorebook.hook import run  # noqa: E402

try:
    from lorebook.fastpath import after_event

    after = after_event(__file__)  # starts the warm hook process for the next event
    code = run(sys.argv[1:], repo=REPO, event_modules=MODULES, after=after, started=started)
except (ImportError, TypeError):  # a lorebook older than the one that wrote this file
    code = run(sys.argv[1:], repo=REPO, event_modules=MODULES)
raise SystemExit(code)
'''


def _package_root(module_name: str) -> str:
    module = importlib.import_module(module_name.split(".")[0])
    origin = module.__file__
    if origin is None:
        raise RuntimeError(f"cannot locate the package of {module_name}")
    return str(Path(origin).resolve().parent.parent)


def launcher_paths(event_modules: dict[str, str]) -> list[str]:
    """The folders the launcher puts on ``sys.path``, in order, without repeats."""
    roots = [_package_root("lorebook")]
    roots += [_package_root(module) for _, module in sorted(event_modules.items())]
    config = sysconfig.get_paths()
    roots += [config["purelib"], config["platlib"]]
    return list(dict.fromkeys(roots))


def launcher_entry(event_modules: dict[str, str], paths: list[str] | None = None) -> str:
    """The launcher's Python code for these harnesses.

    ``paths``: the folders it puts on ``sys.path`` (default: :func:`launcher_paths`).
    """
    folders = launcher_paths(event_modules) if paths is None else paths
    tops = ["lorebook", *(module.partition(".")[0] for module in event_modules.values())]
    packages = {top: folders for top in dict.fromkeys(tops)}
    return PY_TEMPLATE.format(path=folders, packages=packages, modules=event_modules)


def _launcher_files(entry: str, *, windows: bool | None = None) -> dict[str, str]:
    """The launcher files.

    On Windows, ``hook.cmd`` and ``hook.py``. Elsewhere one Python file with its own
    shebang when the kernel can take it (it saves starting a shell), else a shell script
    that execs ``hook.py``.
    """
    if windows if windows is not None else os.name == "nt":
        python = sys.executable.replace("%", "%%")  # a batch file expands %...%
        return {"hook.cmd": CMD_TEMPLATE.format(python=python), "hook.py": entry}
    shebang = f"#!{sys.executable} -IS"
    if len(shebang) < 200 and not any(c.isspace() for c in sys.executable) and os.name == "posix":
        return {"hook": f"{shebang}\n{entry}"}
    return {"hook": SHELL_TEMPLATE.format(python=shlex.quote(sys.executable)), "hook.py": entry}


def write_launcher(
    paths: KBPaths, event_modules: dict[str, str], *, windows: bool | None = None
) -> list[str]:
    """Write (or refresh) the launcher for these harnesses; return the files written.

    ``windows`` (default: this machine is Windows) picks the ``hook.cmd`` form.
    """
    modules = dict(sorted(event_modules.items()))
    entry = launcher_entry(modules)
    files = _launcher_files(entry, windows=windows)
    written = []
    for name in LAUNCHER_FILES:
        target = paths.bin / name
        text = files.get(name)
        if text is None:
            if target.exists():
                target.unlink()
            continue
        try:
            current = target.read_bytes().decode("utf-8")  # exact: hook.cmd has \r\n
        except FileNotFoundError:
            current = None
        if current != text:
            atomic_write_text(target, text)
            written.append(paths.rel(target))
        mode = target.stat().st_mode
        if name == "hook" and os.name != "nt" and not mode & stat.S_IXUSR:
            target.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return written


def remove_launcher(paths: KBPaths) -> list[str]:
    """Delete the launcher; return the files removed."""
    removed = []
    for name in LAUNCHER_FILES:
        target = paths.bin / name
        if target.exists():
            target.unlink()
            removed.append(paths.rel(target))
    if paths.bin.is_dir() and not any(paths.bin.iterdir()):
        paths.bin.rmdir()
    return removed


def _cmd_problem(paths: KBPaths) -> str | None:
    """What is wrong with the Windows launcher (``hook.cmd``), or None."""
    cmd = paths.bin / "hook.cmd"
    if not cmd.exists():
        return f"{paths.rel(cmd)} is missing on this machine, so the wired hooks do nothing"
    if not (paths.bin / "hook.py").exists():
        return f"{paths.rel(paths.bin / 'hook.py')} is missing"
    last = cmd.read_text(encoding="utf-8").strip().splitlines()[-1]
    python = last.split('"')[1].replace("%%", "%") if last.count('"') >= 2 else ""
    if not python or not os.path.isfile(python):
        return f"{paths.rel(cmd)} names an interpreter that no longer exists ({python or '?'})"
    return None


def launcher_problem(paths: KBPaths, *, windows: bool | None = None) -> str | None:
    """Say what is wrong with this machine's launcher, or None when it looks usable."""
    if windows if windows is not None else os.name == "nt":
        return _cmd_problem(paths)
    hook = paths.bin / "hook"
    if not hook.exists():
        return f"{paths.rel(hook)} is missing on this machine, so the wired hooks do nothing"
    if not os.access(hook, os.X_OK):
        return f"{paths.rel(hook)} is not executable"
    lines = hook.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("#!/bin/sh"):
        if not (paths.bin / "hook.py").exists():
            return f"{paths.rel(paths.bin / 'hook.py')} is missing"
        words = shlex.split(lines[-1])
        python = words[1] if len(words) > 1 else ""
    else:
        python = lines[0][2:].split()[0] if lines and lines[0].startswith("#!") else ""
    if not python or not os.access(python, os.X_OK):
        return f"{paths.rel(hook)} names an interpreter that no longer exists ({python or '?'})"
    return None


def launcher_outdated(paths: KBPaths) -> str | None:
    """Say so when this machine's launcher was written by a lorebook older than the package.

    Such a launcher still answers every event (in its own process), but does not reach the
    warm hook process or the import finder, whose modules moved to :mod:`lorebook.fastpath`.
    """
    for name in ("hook.py", "hook"):
        try:
            text = (paths.bin / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "from lorebook.hook import run" not in text:
            continue  # the shell form: its hook.py holds the entry
        if "lorebook.fastpath" not in text:
            return (
                f"{paths.rel(paths.bin / name)} was written by an older lorebook: every hook "
                "runs in its own process, without the warm hook process"
            )
        return None
    return None
