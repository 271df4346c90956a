"""``lorebook doctor``: install health and knowledge base health, each with its fix."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lorebook import __version__
from lorebook.checks import Check, State, links_check, writable_check
from lorebook.errors import LorebookError
from lorebook.kb.paths import KBPaths

if TYPE_CHECKING:
    from lorebook.hostkit.memory import HostMemory
    from lorebook.kb.store import Snapshot
    from lorebook.models.config import Config

_HASH_RE = re.compile(r"nodes_hash: (sha256:[0-9a-f]{64})")


def _install_checks() -> list[Check]:
    from lorebook.plugins import get_plugins

    checks = [
        Check(
            "python",
            "ok" if sys.version_info >= (3, 11) else "problem",
            sys.version.split()[0],
            None if sys.version_info >= (3, 11) else "lorebook needs Python 3.11 or newer",
        ),
        Check("lorebook", "ok", f"{__version__} at {Path(__file__).parent}"),
    ]
    plugins = get_plugins()
    try:  # first: a plugin whose provider hook fails is marked failed, and listed below
        names = ", ".join(plugins.harnesses()) or "none"
        plugins.stores()
        providers = Check("harness plugins", "ok", f"installed: {names}")
    except LorebookError as exc:
        providers = Check("providers", "problem", exc.message, exc.hint)
    for record in plugins.records:
        if record.status == "failed":
            checks.append(
                Check(
                    f"plugin {record.name}",
                    "problem",
                    f"{record.distribution} {record.version} failed to load: {record.error}",
                    f"reinstall or remove {record.distribution}",
                )
            )
    checks.append(providers)
    return checks


def _kb_checks(start: Path) -> list[Check]:
    from lorebook.config import load_config
    from lorebook.kb.index import nodes_hash
    from lorebook.kb.paths import KBPaths, find_repo
    from lorebook.kb.redirects import load_redirects
    from lorebook.kb.store import load_snapshot
    from lorebook.kb.summaries import load_summaries

    repo = find_repo(start)
    if repo is None:
        bare = next((f for f in (start, *start.parents) if (f / ".lorebook").is_dir()), None)
        if bare is not None:  # the notes are there, the configuration is gone
            return [
                Check(
                    "knowledge base",
                    "problem",
                    f"{bare / '.lorebook'} has no config.yaml: hooks and commands do not see it",
                    f"run `lorebook init` in {bare}: it writes the configuration again and "
                    "keeps the notes",
                )
            ]
        return [
            Check(
                "knowledge base",
                "problem",
                f"none at or above {start}",
                "run `lorebook init` at the root of your repository",
            )
        ]
    paths = KBPaths(repo)
    checks = [Check("knowledge base", "ok", str(paths.root)), links_check(paths)]
    checks.append(writable_check(paths))
    try:
        config = load_config(paths)
    except LorebookError as exc:
        return [*checks, Check("config", "problem", exc.message, exc.hint)]
    checks.append(Check("config", "ok", paths.rel(paths.config)))
    try:
        snap = load_snapshot(paths)
        checks.append(_notes_check(snap))
        live = nodes_hash(snap, load_summaries(paths), load_redirects(paths))
    except LorebookError as exc:
        return [*checks, Check("indexes", "problem", exc.message, "run `lorebook lint`")]
    try:
        match = _HASH_RE.search(paths.entry.read_text(encoding="utf-8"))
    except FileNotFoundError:
        match = None
    if match is None:
        checks.append(
            Check(
                "indexes",
                "problem",
                f"{paths.rel(paths.entry)} is missing or has no nodes_hash",
                "run `lorebook index rebuild`",
            )
        )
    elif match.group(1) != live:
        checks.append(
            Check(
                "indexes",
                "problem",
                f"stale: {paths.rel(paths.entry)} was generated from other notes "
                f"({match.group(1)[:19]}…, now {live[:19]}…)",
                "run `lorebook index rebuild`",
            )
        )
    else:
        checks.append(Check("indexes", "ok", f"up to date ({live[:19]}…)"))
    checks += _review_check(paths)
    checks.append(_meaning_check(config, paths))
    checks += _harness_checks(paths, config.harnesses)
    checks += _hook_plugin_checks(paths, config.hook_plugins)
    checks += _store_checks(paths, config)
    checks += _host_memory_checks(paths)
    checks.append(_git_check(paths.repo))
    return checks


def _git_check(repo: Path) -> Check:
    """The merge driver in a clone; outside git, that there is no clone to merge in."""
    from lorebook.gitmerge import driver_problem, in_work_tree

    if not in_work_tree(repo):
        return Check(
            "git",
            "warning",
            "not inside a git repository: notes are reviewed, shared and merged with git "
            "(review, pack import and the merge driver need it)",
            "run `git init` here, then `lorebook init`",
        )
    problem = driver_problem(repo)
    if problem:
        return Check("merge driver", "warning", problem, "run `lorebook init` in this clone")
    return Check("merge driver", "ok", "generated files merge without conflicts")


def _review_check(paths: KBPaths) -> list[Check]:
    """How many indexed notes no person has reviewed (none without an index yet)."""
    from lorebook.recall.index import index_path
    from lorebook.reviewstate import unreviewed

    if not Path(index_path(str(paths.root))).exists():
        return []
    waiting = len(unreviewed(str(paths.root)))
    if not waiting:
        return [Check("review", "ok", "every indexed note was reviewed by a person")]
    noun = "note" if waiting == 1 else "notes"
    return [
        Check(
            "review",
            "ok",
            f"{waiting} {noun} no person has reviewed yet: served only as pointers labelled "
            "unreviewed, never asking or denying, until committed or accepted "
            "(`lorebook review`, then commit, or `lorebook review --accept`)",
        )
    ]


def _index_pieces(paths: KBPaths) -> str:
    """The piece table the index's notes were embedded with, when that file is still there."""
    import os

    from lorebook.recall.index import NoteIndex, index_path

    try:
        with NoteIndex(index_path(str(paths.root))) as index:
            table = index.pieces()
    except Exception:  # no index yet, or one lorebook cannot read: no table
        return ""
    return table if table and os.path.exists(table) else ""


def _meaning_check(config: Config, paths: KBPaths) -> Check:
    """Whether prompts are ranked by meaning as well as words (``lorebook[semantic]``)."""
    from lorebook.installhint import install_command
    from lorebook.recall.semantic import model_files

    if not config.recall.semantic:
        return Check("meaning signal", "ok", "off (recall.semantic: false): words alone rank")
    if model_files() is not None:
        return Check("meaning signal", "ok", "words and meaning rank notes (lorebook[semantic])")
    if _index_pieces(paths):
        # The index keeps the table it was built with; prompts are embedded with it.
        return Check(
            "meaning signal",
            "warning",
            "words and meaning rank notes, with the word pieces the index was built with "
            "elsewhere; lorebook[semantic] is not installed here, so an index built from "
            "scratch here (a fresh clone) ranks by words alone and serves pointers only",
            f"install the extra where lorebook is: {install_command('semantic')}",
        )
    return Check(
        "meaning signal",
        "warning",
        "recall.semantic is on, but lorebook[semantic] is not installed: notes are ranked by "
        "words alone and served as one-line pointers, never whole",
        f"install the extra where lorebook is: {install_command('semantic')}",
    )


def _notes_check(snap: Snapshot) -> Check:
    """Note files that cannot be read: left out of every index, so never served."""
    from lorebook.status import invalid_notes_line

    if snap.duplicates and not snap.problems:
        twice = sorted(snap.duplicates)
        return Check(
            "notes",
            "problem",
            f"{len(twice)} id{'' if len(twice) == 1 else 's'} used by two files or more: "
            f"{', '.join(twice[:5])}",
            "keep one file per id (`lorebook lint` names the files): rename the other's id "
            "and its file, or delete it",
        )
    if not snap.problems:
        count = len(snap.notes)
        return Check("notes", "ok", f"{count} note{'' if count == 1 else 's'}, none invalid")
    return Check(
        "notes",
        "problem",
        invalid_notes_line(snap.problems),
        "correct the front matter (`lorebook lint` lists every error); until then no "
        "session is given the note",
    )


def _state_of(item_state: str, fix: str | None) -> State:
    """A harness item's doctor state.

    ``untrusted`` is the host waiting for the user's approval (Codex's hook trust): an
    action. ``unknown`` is one too when its fix is a step in the host (it names no
    lorebook command: Codex has never run on this machine); when running lorebook fixes
    it (an unreadable hooks file), it is a problem, like ``missing`` and ``changed``.
    """
    if item_state == "ok":
        return "ok"
    if item_state == "untrusted" or (item_state == "unknown" and "`lorebook " not in (fix or "")):
        return "action"
    return "problem"


def _harness_checks(paths: KBPaths, names: list[str]) -> list[Check]:
    """The wired harnesses' own checks, this machine's launcher, the pointer blocks."""
    from lorebook.fastpath.launcher import launcher_outdated, launcher_problem
    from lorebook.inject.loaded import spec_loads
    from lorebook.plugins import get_plugins
    from lorebook.pointer import has_pointer, pointer_file
    from lorebook.recall.index import index_path

    if not names:
        return [
            Check("harnesses", "warning", "none wired", "run `lorebook init --harnesses <name>`")
        ]
    checks = []
    problem = launcher_problem(paths)
    fix = "run `lorebook init` on this machine (it writes the launcher; nothing committed changes)"
    if problem:
        checks.append(Check("hook launcher", "problem", problem, fix))
    else:
        outdated = launcher_outdated(paths)
        if outdated:
            checks.append(Check("hook launcher", "warning", outdated, fix))
        else:
            checks.append(Check("hook launcher", "ok", paths.rel(paths.bin / "hook")))
        checks.append(_warm_process_check(paths))
    if not Path(index_path(str(paths.root))).exists():
        checks.append(
            Check(
                "note index",
                "warning",
                "not built yet on this machine",
                "it is built at the next session start, or run `lorebook index rebuild`",
            )
        )
    plugins = get_plugins()
    for name in names:
        try:
            spec = plugins.harness(name)
        except LorebookError as exc:
            checks.append(Check(f"harness {name}", "problem", exc.message, exc.hint))
            continue
        for item in spec.factory().check(paths.repo):
            state = _state_of(item.state, item.fix)
            checks.append(Check(f"{name}: {item.what}", state, item.state, item.fix))
        if spec.instruction_files:
            rel = pointer_file(paths.repo, spec.instruction_files)
            read = {rel} | spec_loads(spec.event_module, str(paths.repo))  # an import holds it
            if not any(has_pointer(paths.repo / one) for one in read):
                checks.append(
                    Check(
                        f"{name}: pointer in {rel}",
                        "problem",
                        "missing or outdated",
                        "run `lorebook init`",
                    )
                )
    return checks


def _warm_process_check(paths: KBPaths) -> Check:
    """Whether the repository's warm hook process runs, is off, or could not start."""
    from lorebook.fastpath.status import describe

    fine, detail, fix = describe(str(paths.root))
    return Check("warm hook process", "ok" if fine else "warning", detail, fix)


def _host_memory_checks(paths: KBPaths) -> list[Check]:
    """A line per host whose own memory holds memories of this repository not harvested yet.

    Nothing when there is none: a memory that is on but empty (or already harvested) asks
    nothing of the user, and a warning in every repository would hide the ones that do.
    """
    from lorebook.harvest.hosts import memory_hosts

    checks = []
    for host, memory in memory_hosts().items():
        try:
            waiting = _unharvested(paths, host, memory)
            where = memory.memory_store(paths.repo) if waiting else None
        except Exception as exc:  # a plugin's reader failing must not end the report
            checks.append(
                Check(f"{host} memory", "warning", f"its plugin could not read it: {exc}")
            )
            continue
        if waiting:
            memories = "1 memory" if waiting == 1 else f"{waiting} memories"
            checks.append(
                Check(
                    f"{host} memory",
                    "warning",
                    f"{host}'s own memory holds {memories} of this repository not harvested "
                    f"yet ({where}): unreviewed and invisible "
                    "to teammates",
                    f"run `lorebook harvest --from {host}` to bring them into review",
                )
            )
    return checks


def _unharvested(paths: KBPaths, host: str, memory: HostMemory) -> int:
    """How many of ``host``'s memories of this repository are new or edited since harvest."""
    from lorebook.harvest.ledger import load_harvest_ledger

    entries = memory.memory_entries(paths.repo).entries
    if not entries:
        return 0
    try:
        done = load_harvest_ledger(paths, host).entries
    except LorebookError:
        done = {}
    return sum(1 for e in entries if e.key not in done or done[e.key].sha256 != e.sha256)


SLOW_PLUGIN_MS = 50.0
"""A hook plugin importing slower than this is reported: it is paid on every prompt."""


def _hook_plugin_checks(paths: KBPaths, modules: list[str]) -> list[Check]:
    """What each module ``hook_plugins`` names costs every hook to import."""
    from lorebook.recall.pipeline import import_cost

    checks = []
    for module in modules:
        ms, error = import_cost(module, str(paths.repo))
        if ms is None:
            fix = f"install it, or remove {module!r} from hook_plugins in config.yaml"
            checks.append(
                Check(f"hook plugin {module}", "problem", f"fails to import: {error}", fix)
            )
        elif ms > SLOW_PLUGIN_MS:
            detail = f"imports in {ms:.0f} ms, paid by every prompt hook"
            fix = "import heavy modules inside its recall/inject functions"
            checks.append(Check(f"hook plugin {module}", "warning", detail, fix))
        else:
            checks.append(Check(f"hook plugin {module}", "ok", f"imports in {ms:.1f} ms"))
    return checks


def _store_checks(paths: KBPaths, config: Config) -> list[Check]:
    """What each configured store that keeps its notes elsewhere says about reaching them.

    A store plugin provides ``health()`` (:class:`lorebook.store.StoreHealth`) when it has
    something to reach (a database); file-backed stores have no check.
    """
    from lorebook.kb.personal import open_stores
    from lorebook.store import store_health

    if config.stores == ["markdown"]:
        return []
    try:
        stores = open_stores(paths, config)
    except LorebookError as exc:
        return [Check("stores", "problem", exc.message, exc.hint)]
    checks = []
    for name, store in stores.items():
        health = store_health(store)
        close = getattr(store, "close", None)
        if callable(close):
            close()
        if health is not None:
            checks.append(Check(f"store {name}", health.state, health.detail, health.fix))
    return checks


LIVE_FIX = (
    "fix what the line says (a hook that never ran: run `lorebook init` on this machine), "
    "then run `lorebook doctor --live` again; hook errors are in .lorebook/_logs/hook-errors.log"
)


def live_checks(start: Path) -> list[Check]:
    """One check per wired harness and installed hook: the canary's answer (``--live``)."""
    from lorebook.canary import live_canaries
    from lorebook.config import load_config
    from lorebook.kb.paths import find_repo

    repo = find_repo(start)
    if repo is None:
        return []
    paths = KBPaths(repo)
    try:
        names = load_config(paths).harnesses
        results = live_canaries(paths, names)
    except LorebookError as exc:
        return [Check("live hooks", "problem", exc.message, exc.hint)]
    if not results:
        return [Check("live hooks", "warning", "no hook is installed", "run `lorebook init`")]
    return [
        Check(
            f"{r.harness}: live hook {r.host_event}",
            "ok" if r.ok else "problem",
            r.detail,
            None if r.ok else LIVE_FIX,
        )
        for r in results
    ]


def run_doctor(start: Path, *, live: bool = False) -> list[Check]:
    """Run every check (and, with ``live``, the canary through every hook); none raises."""
    checks = _install_checks() + _kb_checks(start)
    return checks + live_checks(start) if live else checks
