#!/usr/bin/env bash
# scripts/update-golden.sh: regenerate the golden generated C of
# tests/golden/ (checked by tests/cli/golden.sh) after a change to the
# coder or templates that is meant to change the output.  Review the diff
# and commit it with the change.
set -eu
cd "$(dirname "$0")/.."
DIAGC=${DIAGC:-bin/diagc}
for name in $(cat tests/golden/EXAMPLES); do
  $DIAGC "examples/$name.lua" -o "tests/golden/$name.c" --no-check
done
git status --short tests/golden
