#!/usr/bin/env bash
# tests/cli/fuzz_findings.sh: the minimized inputs the fuzz targets found
# (tests/fuzz/findings/, see docs/fuzzing.md), replayed through bin/diagc.
#
#   *.lua  spec files: `diagc SPEC -o OUT.c` must exit 0 or 2 (never 70,
#          a signal or a hang), and a failure must be one line on stderr,
#          "diagc: ...", with no control character and no traceback.
#          A line "-- expect exit N" in the file pins the status.
#   *.c    C text: wrapped as the calc body of an output port, then as
#          above (the lexer runs on calc bodies during generation).
#   *.urdf URDF documents: imported by the spec fuzz_urdf gives an input of
#          its size (tests/fuzz/fuzz_spec.c), then as above.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob

check_run() { # NAME SPEC EXPECT
  local name=$1 spec=$2 want=$3 rc lines
  timeout 30 "$DIAGC" "$spec" -o "$tmp/out.c" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
  rc=$?
  lines=$(wc -l <"$tmp/stderr")
  if [ $rc -eq 124 ]; then
    echo "FAIL fuzz_finding.$name: no result within 30 s"
  elif [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
    echo "FAIL fuzz_finding.$name: exit $rc: $(head -c 300 "$tmp/stderr" | tr '\n' '|')"
  elif [ -n "$want" ] && [ "$rc" != "$want" ]; then
    echo "FAIL fuzz_finding.$name: exit $rc, want $want: $(head -c 300 "$tmp/stderr" | tr '\n' '|')"
  elif [ $rc -eq 2 ] && { [ "$lines" -ne 1 ] || ! head -c 7 "$tmp/stderr" | grep -q '^diagc: '; }; then
    echo "FAIL fuzz_finding.$name: $lines lines on stderr: $(head -c 300 "$tmp/stderr" | tr '\n' '|')"
  elif tr -d '\n' <"$tmp/stderr" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    echo "FAIL fuzz_finding.$name: control character in: $(head -c 300 "$tmp/stderr" | cat -v)"
  elif grep -q 'stack traceback\|internal error' "$tmp/stderr"; then
    echo "FAIL fuzz_finding.$name: $(head -c 300 "$tmp/stderr" | tr '\n' '|')"
  else
    echo "ok fuzz_finding.$name"
  fi
}

n=0
for f in tests/fuzz/findings/*.lua; do
  want=$(sed -n 's/^-- expect exit \([0-9]*\).*/\1/p' "$f" | head -1)
  check_run "$(basename "$f" .lua)" "$f" "$want"
  n=$((n + 1))
done
for f in tests/fuzz/findings/*.c; do
  # the C text as a calc body, in a long bracket string no C text can close
  {
    echo 'return diagram "finding" { system { "s", leaf "L" {'
    echo '  output_port { "y", size = 1, prerequisites = { "nothing" }, calc = [==========['
    cat "$f"
    echo ']==========] } } } }'
  } >"$tmp/wrapped.lua"
  check_run "$(basename "$f" .c)" "$tmp/wrapped.lua" ""
  n=$((n + 1))
done
for f in tests/fuzz/findings/*.urdf; do
  # fuzz_urdf's spec for this size: fixed base, no gradients; odd: free
  # base, prefix, placement, all joints actuated; a multiple of 8: gradients
  size=$(wc -c <"$f")
  cp "$f" "$tmp/robot.urdf"
  extra="" export=""
  if [ $((size % 2)) = 1 ]; then
    extra=', base = "free", prefix = "r_", xyz = { 0, 0, 1 }, rpy = { 0.1, 0, 0 }, friction = 0.8, actuated = "all"'
    export=', export_input { "w.effort", as = "effort" }'
  fi
  {
    echo 'local W = world "w" {'
    echo "  gradients = $([ $((size % 8)) = 0 ] && echo true || echo false),"
    echo '  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },'
    echo "  urdf { \"robot.urdf\"$extra },"
    echo '}'
    echo "return diagram \"d\" { system { \"w\", W }$export }"
  } >"$tmp/spec.lua"
  check_run "$(basename "$f" .urdf)" "$tmp/spec.lua" ""
  n=$((n + 1))
done
[ $n -gt 0 ] || echo "skip fuzz_finding: no reproducers in tests/fuzz/findings"
