#!/usr/bin/env bash
# The gate step of action.yml: INPUT_* from the action's inputs; writes the markdown report to the job summary
# and outputs `passed` and `report`; exits with rankmeter gate's status (0 pass, 1 regression, 2 refused).
set -uo pipefail
report="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/rankmeter-gate.md"
args=(gate "$INPUT_QRELS" "$INPUT_RUN" --baseline "$INPUT_BASELINE" --margin "$INPUT_MARGIN"
      --alpha "$INPUT_ALPHA" --test "$INPUT_TEST" --correction "$INPUT_CORRECTION" --format markdown)
for measure in ${INPUT_MEASURES:-}; do args+=(-m "$measure"); done
[ -n "${INPUT_SLICES:-}" ] && args+=(--slices "$INPUT_SLICES")
rankmeter "${args[@]}" > "$report"
status=$?
if [ -s "$report" ]; then
    cat "$report" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
    echo "report=$report" >> "${GITHUB_OUTPUT:-/dev/null}"
fi
echo "passed=$([ "$status" -eq 0 ] && echo true || echo false)" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
