#!/usr/bin/env bash
# tests/cli/test_runner.sh: `diagc test` survives crashes and hangs, both in
# tests and in a file's top level, and counts them as failures.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/a_hang_test.lua" <<'LUA'
test("before", function() end)
test("hang", function() while true do end end)
test("crash", function() require("ffi").cast("int *", 0)[0] = 1 end)
test("after", function() end)
LUA
cat >"$tmp/b_toplevel_crash_test.lua" <<'LUA'
test("never_runs", function() end)
require("ffi").cast("int *", 0)[0] = 1
LUA
cat >"$tmp/c_toplevel_hang_test.lua" <<'LUA'
test("never_runs_either", function() end)
while true do end
LUA
cat >"$tmp/d_fine_test.lua" <<'LUA'
test("fine", function() eq(1 + 1, 2) end)
LUA
out=$("$DIAGC" test "$tmp" --timeout 1 2>&1)
rc=$?
check() { # name, pattern
  if grep -qF -- "$2" <<<"$out"; then echo "ok runner.$1"; else echo "FAIL runner.$1: no line '$2' in: $(tr '\n' '|' <<<"$out")"; fi
}
check test_timeout "FAIL hang: timed out after 1 s"
check test_crash "FAIL crash: crashed with signal 11 (segmentation fault)"
check runs_on_after_failures "ok after"
check toplevel_crash "b_toplevel_crash_test.lua: crashed with signal 11"
check toplevel_timeout "c_toplevel_hang_test.lua: top level timed out after 1 s"
check next_file_runs "ok fine"
check totals "3 passed, 4 failed"
if [ "$rc" = 1 ]; then echo "ok runner.exit_status"; else echo "FAIL runner.exit_status: $rc (expected 1)"; fi
out=$("$DIAGC" test "$tmp/d_fine_test.lua" --timeout -1 2>&1); rc=$?
if [ "$rc" = 2 ] && grep -q -- "--timeout must be a whole number" <<<"$out"; then echo "ok runner.bad_timeout"
else echo "FAIL runner.bad_timeout: exit $rc: $out"; fi
