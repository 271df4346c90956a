"""Where the postgres store's connection and organisation come from (never a committed file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.config import parse_config
from lorebook.errors import ConfigError
from lorebook_postgres import settings
from lorebook_postgres.store import open_store

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (f"postgres_dsn: postgresql://bob:{SECRET}@db.example/lore\n", "postgres_dsn"),
        (f"organisation: 'host=db user=bob password={SECRET}'\n", "organisation"),
        (f"extraction:\n  endpoint: https://bob:{SECRET}@llm.example/v1\n", "extraction.endpoint"),
    ],
)
def test_a_connection_string_in_config_yaml_is_refused_naming_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source=".lorebook/config.yaml")
    message = str(caught.value)
    assert message.startswith(f".lorebook/config.yaml: key {key!r} holds a connection string")
    assert SECRET not in message
    assert "LOREBOOK_POSTGRES_DSN" in (caught.value.hint or "")


def test_organisation_is_a_config_key_and_a_plain_url_is_not_refused() -> None:
    config = parse_config(
        "organisation: acme\nextraction:\n  endpoint: http://127.0.0.1:8080/v1\n", source="c"
    )
    assert config.organisation == "acme"


def test_the_dsn_comes_from_the_environment_then_the_user_config(
    lorebook_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings.ENV_DSN, raising=False)
    with pytest.raises(settings.SettingsError, match="no PostgreSQL connection"):
        settings.connection_string()
    settings.user_config_path().parent.mkdir(parents=True, exist_ok=True)
    settings.user_config_path().write_text('dsn = "host=h1"\norganisation = "acme"\n')
    assert settings.connection_string() == "host=h1"
    assert settings.organisation(None) == "acme"
    monkeypatch.setenv(settings.ENV_DSN, "host=h2")
    assert settings.connection_string() == "host=h2"


def test_a_bad_user_config_names_the_file_and_key(lorebook_home: Path) -> None:
    path = settings.user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('dns = "host=h1"\n')
    with pytest.raises(settings.SettingsError, match=r"postgres.toml: unknown key 'dns'"):
        settings.user_config()
    path.write_text('organisation = "Not An Org"\n')
    with pytest.raises(settings.SettingsError, match=r"key 'organisation'"):
        settings.organisation(None)


def test_the_repository_config_names_the_organisation(kb_repo: Path) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text() + "organisation: acme\n")
    store = open_store(kb_repo)
    assert store.org == "acme"
    assert store.paths.root.name == "acme"  # the cache: one folder per organisation
