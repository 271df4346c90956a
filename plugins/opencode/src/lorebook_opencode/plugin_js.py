"""The JS plugin lorebook installs as ``.opencode/plugins/lorebook.js``.

OpenCode loads every ``.opencode/plugins/*.js`` of the project (shared/HARNESSES.md section
3.1). The plugin imports only Node's own modules (no ``@opencode-ai/plugin`` package, so it
works whether or not OpenCode's install of that package into ``.opencode/`` succeeded) and
does nothing but translate: for each hook it builds a small JSON payload, runs the
per-machine launcher with it on stdin (no shell), and applies the answer through the
channels verified with OpenCode 1.18.33 (section 3.3). A missing launcher (a fresh clone
before ``lorebook init``), a failing or slow launcher, or an answer that is not JSON means
"nothing to add": the session is never broken. The launcher is given at most
20 seconds per call (``TIMEOUT_MS`` in the script).

The script ships beside this module as ``lorebook.js``.

The system-prompt hook also runs for OpenCode's title-generation request (its system
prompt says ``title generator``); the session context is not added there.
"""

from __future__ import annotations

from importlib.resources import files

from lorebook.hostkit.managed import ManagedFile

PATH = ".opencode/plugins/lorebook.js"
"""The plugin file, relative to the repository (committed, shared)."""

MARKER = "// lorebook:managed-plugin (written by `lorebook init`; removed by `lorebook uninstall`)"

SOURCE = (files("lorebook_opencode") / "lorebook.js").read_text(encoding="utf-8")
"""The plugin's exact text (``lorebook.js``, which begins with :data:`MARKER`)."""

FILE = ManagedFile(PATH, SOURCE, MARKER)
"""The plugin as :mod:`lorebook.hostkit.managed` installs it."""

HOOKS = (
    "session.created",
    "chat.message",
    "tool.execute.before",
    "tool.execute.after",
    "session.idle",
    "experimental.session.compacting",
)
"""The hooks the plugin hands to the launcher, as its second argument names them."""
