# Shared by scripts/test and scripts/demo: create .venv and install the workspace into it.
# Every version comes from constraints.txt (the pyprojects declare ranges only), so two runs
# on two machines install the same packages; PIP_CONSTRAINT carries the file into the
# isolated environments pip builds the editable members in (hatchling).
PYTHON="${PYTHON:-python3}"

install_lorebook() {
    local constraints
    constraints="$(pwd)/constraints.txt"
    if [ ! -x .venv/bin/python ]; then
        "$PYTHON" -m venv .venv
    fi
    PIP_CONSTRAINT="$constraints" .venv/bin/python -m pip install --quiet \
        --disable-pip-version-check pip
    PIP_CONSTRAINT="$constraints" .venv/bin/python -m pip install --quiet \
        --disable-pip-version-check \
        -e "./core[eval,semantic,mcp]" -e ./plugins/claude -e ./plugins/codex -e ./plugins/cursor \
        -e ./plugins/opencode -e ./plugins/copilot -e ./plugins/postgres "$@"
}
