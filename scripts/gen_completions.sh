#!/usr/bin/env bash
# Regenerate completions/ from the app (tests/test_cli.py fails when they drift).
set -euo pipefail
cd "$(dirname "$0")/.."
for shell in bash zsh fish; do
  _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION=1 vmem --show-completion "$shell" > "completions/vmem.$shell"
done
