"""Read and write ``.lorebook/config.yaml``, and keep its compiled JSON copy for hooks.

The hook fast path cannot afford YAML or pydantic, so every command that reads the config
refreshes ``.cache/config.json``, which hooks read with the standard ``json`` module.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from typing import Any

import yaml
from pydantic import ValidationError

from lorebook.bounds import TooLargeError, clip, read_text_bounded
from lorebook.errors import ConfigError
from lorebook.kb import safeyaml
from lorebook.kb.fsutil import atomic_write_text, write_if_changed
from lorebook.kb.paths import KBPaths
from lorebook.models.config import Config

COMPILED_NAME = "config.json"
MAX_CONFIG_BYTES = 64 * 1024
"""A config.yaml larger than this is refused before it is parsed."""
HEADER = (
    "# lorebook configuration, committed with the repository.\n"
    "# Every key is documented by `lorebook schema config`; an unknown key is an error.\n"
)


def _describe(exc: ValidationError, source: str) -> str:
    from lorebook.models.messages import explain

    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            close = _close_key(err["loc"])
            hint = f" (did you mean {close!r}?)" if close else ""
            lines.append(f"{source}: unknown key {key!r}{hint}")
        else:
            got = err.get("input")
            shown = "" if isinstance(got, dict) else f" (got {clip(got)})"
            lines.append(f"{source}: key {key!r}: {explain(err)}{shown}")
    return "\n".join(lines)


def _close_key(loc: tuple[int | str, ...]) -> str | None:
    """The known key an unknown one was most likely meant to be (``prompt_chars``)."""
    import difflib

    from pydantic import BaseModel

    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        inner = field.annotation if field is not None else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return None
        model = inner
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1, cutoff=0.75)
    return ".".join([*(str(p) for p in loc[:-1]), close[0]]) if close else None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A parser's error as one line: where it gave up, what it missed, what it was reading.

    PyYAML's own text spans four lines and names the input as ``"<unicode string>"``.
    """
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if not problem or mark is None:
        return f"invalid YAML: {clip(' '.join(str(exc).split()), 300, quote=False)}"
    text = f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None:
        text += f" ({context} from line {start.line + 1}, column {start.column + 1})"
    elif context:
        text += f" ({context})"
    return text


def parse_config(text: str, *, source: str) -> Config:
    """Validate config text, naming ``source`` and the key in any error."""
    try:
        data = safeyaml.load(text, max_bytes=MAX_CONFIG_BYTES)
    except safeyaml.UnsafeYAMLError as exc:
        raise ConfigError(f"{source}: invalid YAML: {clip(str(exc), 300, quote=False)}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: {_yaml_problem(exc)}") from None
    if data is None:
        raise ConfigError(
            f"{source}: it holds no settings (it is empty or only comments)",
            hint="delete it and run `lorebook init` to write the default configuration",
        )
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of keys to values")
    _refuse_connection_strings(data, source)
    _refuse_other_versions(data.get("lb_schema"))
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            _describe(exc, source), hint="`lorebook schema config` describes every key"
        ) from None


def _refuse_other_versions(version: object) -> None:
    """An older or newer ``lb_schema`` is one line naming it and what to run, not a field error."""
    from lorebook.constants import SCHEMA_VERSION
    from lorebook.kb.version import newer_message, outdated_message

    if isinstance(version, int) and not isinstance(version, bool) and version != SCHEMA_VERSION:
        message = outdated_message if version < SCHEMA_VERSION else newer_message
        raise ConfigError(message(version))


_CONNECTION_RE = re.compile(
    r"(?i)^\s*postgres(?:ql)?://|^\s*[a-z][a-z0-9+.-]*://[^\s/@]*:[^\s/@]*@"
    r"|\b(?:password|host|dbname)\s*="
)
"""A database connection string: a URI with credentials, or libpq ``key=value`` words."""


def _refuse_connection_strings(data: dict[Any, Any], source: str) -> None:
    """Refuse a connection string anywhere in the committed config, naming its key only.

    A store plugin's connection (``lorebook-postgres``) comes from the environment or the
    user's own config; in config.yaml it would be committed with its password. The value
    is never echoed.
    """
    stack: list[tuple[str, Any]] = [(str(k), v) for k, v in data.items()]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}", v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((key, v) for v in value)
        elif isinstance(value, str) and _CONNECTION_RE.search(value):
            raise ConfigError(
                f"{source}: key {key!r} holds a connection string; a committed "
                "file never holds one",
                hint="set LOREBOOK_POSTGRES_DSN, or `dsn` in your own postgres.toml "
                "(see the lorebook-postgres README)",
            )


def load_config(paths: KBPaths) -> Config:
    """Read and validate the config, refreshing the compiled copy hooks read."""
    source = paths.rel(paths.config)
    try:
        text = read_text_bounded(paths.config, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"{source} is missing", hint="run `lorebook init` to create it") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: the file is not valid UTF-8") from None
    except (OSError, TooLargeError) as exc:
        raise ConfigError(f"{source}: cannot be read: {exc}") from None
    config = parse_config(text, source=source)
    refresh_compiled(paths, config)
    return config


def refresh_compiled(paths: KBPaths, config: Config) -> None:
    """Write ``.cache/config.json`` when it differs from ``config``.

    When it already holds ``config`` but is older than ``config.yaml`` (a rewrite or an
    edit that changed nothing the settings hold, such as a comment), its time is brought
    forward: session start compares the two times, and would otherwise re-read the YAML
    and reconcile the index at every start.
    """
    data = json.dumps(config.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
    compiled = paths.cache / COMPILED_NAME
    # A read-only checkout still works; hooks then fall back to defaults.
    with contextlib.suppress(OSError):
        written = write_if_changed(compiled, data)
        if not written and compiled.stat().st_mtime < paths.config.stat().st_mtime:
            os.utime(compiled)


def render_config(config: Config) -> str:
    """Return config.yaml text: a header comment, then keys in model order."""
    from lorebook.kb.frontmatter import dump

    data: dict[str, Any] = config.model_dump(mode="json")
    if data.get("organisation") is None:
        del data["organisation"]  # only a repository in an organisation names one
    return HEADER + dump(data)


def write_config(paths: KBPaths, config: Config) -> bool:
    """Write config.yaml if its content changes; return True when written."""
    text = render_config(config)
    try:
        if paths.config.read_text(encoding="utf-8") == text:
            refresh_compiled(paths, config)
            return False
    except FileNotFoundError:
        pass
    atomic_write_text(paths.config, text)
    refresh_compiled(paths, config)
    return True
