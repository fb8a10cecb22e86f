#!/usr/bin/env bash
# tests/cli/hostile.sh: the hostile-input suite.  Sources each
# tests/hostile/CLASS.sh (after tests/hostile/lib.sh) in its own subshell;
# every case prints "ok hostile.NAME" or "FAIL hostile.NAME: why".
# HOSTILE_FILTER (a substring of the class file name) runs a subset.
set -u
cd "$(dirname "$0")/../.." || exit 2
status=0
shopt -s nullglob
for f in tests/hostile/*.sh; do
  [ "$(basename "$f")" = lib.sh ] && continue
  [ -n "${HOSTILE_FILTER:-}" ] && [[ "$f" != *"$HOSTILE_FILTER"* ]] && continue
  ( set +e; . tests/hostile/lib.sh; . "$f" ) || status=1
done
exit $status
