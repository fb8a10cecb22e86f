# tests/hostile/lib.sh: helpers for the hostile-input suite (tests/hostile/*.sh).
#
# Each case file tests/hostile/CLASS.sh is sourced by tests/cli/hostile.sh in
# its own subshell, with this file sourced first and the working directory at
# the project root.  A case looks like:
#
#   hcase sandbox.bytecode_import          # starts a case; $T is a fresh empty dir
#   printf '...' >"$T/spec.lua"
#   hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
#   expect_exit 2
#   expect_error 'spec.lua:3: .*bytecode'  # one line "diagc: ...", ERE match
#   expect_absent "$T/out.c" "$T/out.h"
#   hdone
#
# Every failed expectation is recorded; hdone prints "ok hostile.NAME" or
# "FAIL hostile.NAME: <first failure>".  hrun enforces a time bound (default
# 30 s; `hrun --timeout S -- cmd`) by killing the whole process group, and a
# run that hits it fails the case ("bounded time").
#
# Variables after hrun: $rc (exit status), $out (stdout), $err (stderr),
# $elapsed (seconds, integer).  $DIAGC is the diagc under test.

DIAGC=${DIAGC:-bin/diagc}
ROOT=$(pwd)
_h_name=""
_h_fail=""

hcase() {
  _h_name=$1
  _h_fail=""
  T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-hostile.XXXXXX")
}

_h_bad() { [ -z "$_h_fail" ] && _h_fail=$1; return 0; }

# hrun [--timeout S] [--stdin FILE] -- CMD...
hrun() {
  local limit=30 input=/dev/null start
  while [ $# -gt 0 ]; do
    case "$1" in
      --timeout) limit=$2; shift 2 ;;
      --stdin) input=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  start=$(date +%s)
  # setsid: the command and anything it spawns form one process group that
  # timeout can kill as a whole (-k: SIGKILL if SIGTERM is ignored)
  timeout -k 2 "$limit" setsid "$@" <"$input" >"$T/.stdout" 2>"$T/.stderr"
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  out=$(cat "$T/.stdout")
  err=$(cat "$T/.stderr")
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    _h_bad "did not finish within ${limit}s (bounded time)"
  fi
}

expect_exit() {
  [ "$rc" = "$1" ] || _h_bad "exit status $rc, expected $1 (stderr: $(printf '%s' "$err" | head -c 300))"
}

# expect_error [ERE]: stderr is exactly one line "diagc: ...", without a
# traceback or control characters, matching ERE if given.
expect_error() {
  local lines
  lines=$(printf '%s' "$err" | awk 'END { print NR }')
  [ "$lines" = 1 ] || { _h_bad "stderr has $lines lines, expected one: $(printf '%s' "$err" | head -c 300)"; return 0; }
  case "$err" in
    "diagc: "*) ;;
    *) _h_bad "stderr does not start with 'diagc: ': $err"; return 0 ;;
  esac
  if printf '%s' "$err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    _h_bad "stderr holds a control character: $(printf '%s' "$err" | od -c | head -3)"
  fi
  if printf '%s' "$err" | grep -qiE 'traceback|internal error'; then
    _h_bad "stderr shows an internal error or traceback: $err"
  fi
  if [ -n "${1:-}" ] && ! printf '%s' "$err" | grep -qE -- "$1"; then
    _h_bad "stderr does not match /$1/: $err"
  fi
}

# expect_stderr_match ERE: stderr (any number of lines) matches
expect_stderr_match() {
  printf '%s' "$err" | grep -qE -- "$1" || _h_bad "stderr does not match /$1/: $(printf '%s' "$err" | head -c 300)"
}

expect_stdout_match() {
  printf '%s' "$out" | grep -qE -- "$1" || _h_bad "stdout does not match /$1/: $(printf '%s' "$out" | head -c 300)"
}

# expect_absent FILE...: none of the files exists
expect_absent() {
  local f
  for f in "$@"; do [ -e "$f" ] && _h_bad "$f was written"; done
  return 0
}

# snapshot FILE / expect_unchanged FILE: the file's bytes did not change
snapshot() { cksum <"$1" >"$1.hostile-sum" 2>/dev/null || echo none >"$1.hostile-sum"; }
expect_unchanged() {
  local now
  now=$(cksum <"$1" 2>/dev/null || echo none)
  [ "$now" = "$(cat "$1.hostile-sum")" ] || _h_bad "$1 was changed"
}

# expect_no_marker: code that was not to run would have created $T/MARKER
expect_no_marker() {
  [ -e "$T/MARKER" ] && _h_bad "user code ran (\$T/MARKER exists)"
  return 0
}

expect_within() {
  [ "$elapsed" -le "$1" ] || _h_bad "took ${elapsed}s, expected at most $1 s"
}

# check COND_DESCRIPTION CMD...: a free-form expectation
check() {
  local what=$1
  shift
  "$@" || _h_bad "$what"
}

# The shared devices the cases write to must stay devices: a command that
# replaced one (a compiler that unlinks its output, a rename over it) would
# be a finding, and would make later cases pass or fail for the wrong
# reason.  Name the case after which it happened, and put the device back
# when we may (root).
_h_devices() {
  local d
  for d in "null 1 3" "full 1 7" "zero 1 5"; do
    set -- $d
    [ -c "/dev/$1" ] && continue
    _h_bad "after this case /dev/$1 is no longer a device ($(stat -c '%F, %s bytes' "/dev/$1" 2>&1))"
    if [ "$(id -u)" = 0 ]; then rm -f "/dev/$1" && mknod -m 666 "/dev/$1" c "$2" "$3"; fi
  done
}

hdone() {
  _h_devices
  if [ -z "$_h_fail" ]; then
    echo "ok hostile.$_h_name"
  else
    echo "FAIL hostile.$_h_name: $_h_fail"
  fi
  rm -rf "$T"
}
