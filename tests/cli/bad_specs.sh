#!/usr/bin/env bash
# tests/cli/bad_specs.sh: the catalogue of malformed specs (tests/bad_specs).
#
# Each tests/bad_specs/NN_name.lua starts with the line
#   -- expect: <the exact stderr line>
# where FILE stands for the spec's path as passed to diagc and DIR for the
# directory that holds it (for messages about other files, e.g. imports).
# Helper files the specs import live in subdirectories and are not run.
#
# For every spec, `$DIAGC SPEC -o $tmp/out.c` must:
#   - exit with status 2,
#   - print exactly one line on stderr, equal to the expectation,
#   - print no Lua traceback ("traceback" / "stack"),
#   - write neither out.c nor out.h.
# Then `--debug` must add a traceback to the same one-line message.
#
# Run from the project root (tests/run does); DIAGC defaults to bin/diagc.
# Prints "ok bad_spec.NN_name" or "FAIL bad_spec.NN_name: ..." per spec.
set -u
DIAGC=${DIAGC:-bin/diagc}
dir=tests/bad_specs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
  echo "FAIL $1: $2"
  failed=$((failed + 1))
}

# expectation SPEC: the first line's expectation with FILE and DIR filled in
expectation() {
  local f=$1 first exp
  IFS= read -r first <"$f" || first=""
  case "$first" in
    "-- expect: "*) exp=${first#"-- expect: "} ;;
    *) return 1 ;;
  esac
  exp=${exp//DIR/$(dirname "$f")}
  exp=${exp//FILE/$f}
  printf '%s' "$exp"
}

# run_diagc ARGS...: runs diagc in a clean output directory; sets rc, err
run_diagc() {
  rm -f "$tmp/out.c" "$tmp/out.h"
  "$DIAGC" "$@" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
  rc=$?
  err=$(cat "$tmp/stderr")
}

shopt -s nullglob
specs=("$dir"/[0-9]*.lua)
if [ ${#specs[@]} -eq 0 ]; then
  fail bad_spec "no specs found in $dir"
fi

for f in "${specs[@]}"; do
  name="bad_spec.$(basename "$f" .lua)"
  if ! exp=$(expectation "$f"); then
    fail "$name" "first line is not '-- expect: <message>'"
    continue
  fi
  run_diagc "$f" -o "$tmp/out.c"
  nlines=$(printf '%s\n' "$err" | wc -l)
  written=""
  [ -e "$tmp/out.c" ] && written+=" out.c"
  [ -e "$tmp/out.h" ] && written+=" out.h"
  if [ "$rc" -ne 2 ]; then
    fail "$name" "expected exit status 2, got $rc (stderr: $(head -n 3 "$tmp/stderr" | tr '\n' ' '))"
  elif [ -z "$err" ]; then
    fail "$name" "expected '$exp' got nothing on stderr"
  elif printf '%s' "$err" | grep -qiE 'traceback|stack'; then
    fail "$name" "stderr has a traceback: $(head -n 1 "$tmp/stderr")"
  elif [ "$nlines" -ne 1 ]; then
    fail "$name" "expected one line on stderr, got $nlines: $(head -n 3 "$tmp/stderr" | tr '\n' ' ')"
  elif [ "$err" != "$exp" ]; then
    fail "$name" "expected '$exp' got '$err'"
  elif [ -n "$written" ]; then
    fail "$name" "wrote$written despite the error"
  else
    echo "ok $name"
  fi
done

# --debug adds a Lua traceback after the same first line (and still writes nothing)
f="$dir/13_duplicate_name.lua"
name="bad_spec.debug_traceback"
if [ -f "$f" ] && exp=$(expectation "$f"); then
  run_diagc --debug "$f" -o "$tmp/out.c"
  first=$(head -n 1 "$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    fail "$name" "expected exit status 2 with --debug, got $rc"
  elif [ "$first" != "$exp" ]; then
    fail "$name" "expected first line '$exp' got '$first'"
  elif ! grep -q 'stack traceback' "$tmp/stderr"; then
    fail "$name" "--debug printed no traceback: $(tr '\n' ' ' <"$tmp/stderr")"
  elif [ -e "$tmp/out.c" ] || [ -e "$tmp/out.h" ]; then
    fail "$name" "--debug run wrote output despite the error"
  else
    echo "ok $name"
  fi
else
  fail "$name" "$f is missing or has no expectation"
fi

[ "$failed" -eq 0 ]
