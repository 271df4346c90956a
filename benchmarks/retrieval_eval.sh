#!/usr/bin/env bash
# Every retrieval measurement of issue 9 in one go: `lorebook eval retrieval` on
#   kenkeep-synthetic (golden queries), LoCoMo conv-26, and the minsky rules with each half of
#   benchmarks/retrieval/ (without and with the awesome-cursorrules distractors).
# The shared evaluation data is read where it lies beside the repository (../shared/eval), or
# from $LOREBOOK_EVAL_DATA. Extra arguments go to every run (e.g. --json, --k 3, --config FILE).
# Usage: benchmarks/retrieval_eval.sh [ARGS...]
set -euo pipefail

cd "$(dirname "$0")/.."
DATA="${LOREBOOK_EVAL_DATA:-../shared/eval}"
LOREBOOK=".venv/bin/lorebook"
[ -x "$LOREBOOK" ] || LOREBOOK="lorebook"
if [ ! -d "$DATA" ]; then
    echo "no evaluation data at $DATA (set LOREBOOK_EVAL_DATA)" >&2
    exit 1
fi

run() {
    local title="$1"
    shift
    echo "== $title"
    echo "\$ lorebook eval retrieval $*"
    "$LOREBOOK" eval retrieval "$@"
    echo
}

KK="$DATA/retrieval/kenkeep-synthetic"
run "kenkeep-synthetic" --notes "$KK/nodes" --queries "$KK/golden-queries.yaml" "$@"
run "LoCoMo conv-26" --notes "$DATA/retrieval/locomo-conv26/locomo-conv26.json" "$@"

RULES="$DATA/transcripts/cursor-specstory/cursor-rules-at-commit"
DISTRACTORS="$DATA/corpora/awesome-cursorrules/rules"
for half in a b; do
    queries="benchmarks/retrieval/minsky-queries-$half.jsonl"
    if [ ! -f "$queries" ]; then
        echo "== minsky rules, half $half: skipped ($queries is missing)"
        continue
    fi
    run "minsky rules, half $half" --notes "$RULES" --queries "$queries" "$@"
    run "minsky rules, half $half, with distractors" --notes "$RULES" --queries "$queries" \
        --distractors "$DISTRACTORS" "$@"
done
