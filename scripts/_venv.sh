# Shared by scripts/test and scripts/demo: create .venv and install the workspace into it.
PYTHON="${PYTHON:-python3}"
PIP_VERSION="26.3"

install_lorebook() {
    if [ ! -x .venv/bin/python ]; then
        "$PYTHON" -m venv .venv
    fi
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "pip==${PIP_VERSION}"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        -e "./core[eval,semantic]" -e ./plugins/claude -e ./plugins/codex -e ./plugins/cursor \
        -e ./plugins/opencode -e ./plugins/copilot "$@"
}
