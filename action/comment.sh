#!/usr/bin/env bash
# The comment step of action.yml: posts $REPORT on the pull request of $GITHUB_EVENT_PATH with the GitHub CLI.
set -euo pipefail
number=$(python -c 'import json, os; print(json.load(open(os.environ["GITHUB_EVENT_PATH"]))["pull_request"]["number"])')
gh pr comment "$number" --repo "$GITHUB_REPOSITORY" --body-file "$REPORT"
