#!/usr/bin/env bash
# tests/cli/python.sh: `import diagc` (python/, docs/python.md): runs each
# tests/python/*_test.py with the Debian python3 (PYTHON overrides) and the
# checkout's python/ on the path; each prints its own ok/FAIL lines.  No
# NumPy (python3-numpy, scripts/install-deps.sh): one skip, never a pass.
# Python writes no bytecode into the checkout.
set -u
PYTHON=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3 )}
export PYTHONDONTWRITEBYTECODE=1
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
  echo "skip python: python3 with NumPy is not installed (scripts/install-deps.sh installs python3-numpy)"
  exit 0
fi
status=0
for f in tests/python/*_test.py; do
  # each file's own lines; a crash without a FAIL line is named after it
  out=$(cd tests/python && timeout 300 "$PYTHON" "${f##*/}" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -E '^(ok|FAIL|skip) '
  if [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
    echo "FAIL python.${f##*/}: exit status $rc: $(printf '%s\n' "$out" | tail -1)"
  fi
  [ "$rc" -ne 0 ] && status=1
done
exit $status
