# tests/hostile/stop.sh: a --timeout, SIGTERM or SIGINT that stops diagc
# while the strict C check's compiler runs leaves nothing behind: no
# process of the compiler's group (the driver, cc1, as) and no temporary
# file or directory in $TMPDIR (generator/host/stop.c).

# procs_in DIR: the processes started with TMPDIR below DIR (diagc runs
# with TMPDIR=DIR; whatever it starts inherits or narrows that)
procs_in() {
  local p
  for p in /proc/[0-9]*; do
    tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -q "^TMPDIR=$1" && printf '%s ' "${p#/proc/}"
  done
}

# expect_nothing_left: no process in $T/tmp, and $T/tmp empty (after a
# moment for the kernel to reap)
expect_nothing_left() {
  local left i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    left=$(procs_in "$T/tmp")
    [ -z "$left" ] && break
    sleep 0.2
  done
  [ -z "$left" ] || { _h_bad "processes left running: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | head -c 80; echo; done)"; kill -9 $left 2>/dev/null; }
  [ -z "$(ls -A "$T/tmp")" ] || _h_bad "temporary files left in TMPDIR: $(ls -A "$T/tmp" | head -5 | tr '\n' ' ')"
}

# a spec whose generated C tcc compiles in a moment and gcc in seconds
# (and hundreds of MB): a macro that expands to 2^19 additions
slow_spec() {
  {
    echo 'local A = leaf "A" {'
    echo '  c_preamble [[
#define A0 1.0'
    local i
    for i in $(seq 1 19); do echo "#define A$i (A$((i - 1)) + A$((i - 1)))"; done
    echo ']],'
    echo '  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = A19 * t; ]] },'
    echo '}'
    echo 'return diagram "top" { system { "a", A } }'
  } >"$T/spec.lua"
}

# a check compiler that leaves a file in its TMPDIR and a grandchild, and
# never ends: a deterministic stand-in for a slow cc1
slow_cc() {
  cat >"$T/slow-cc" <<'EOF'
#!/bin/sh
: >"$TMPDIR/slow-cc-temp"
sleep 60 &
: >"$MARKER_DIR/check-running"
wait
EOF
  chmod +x "$T/slow-cc"
}

hcase stop.timeout_kills_gcc_check
mkdir "$T/tmp"
slow_spec
hrun -- env TMPDIR="$T/tmp" "$DIAGC" --timeout 2 "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua: timed out after 2 s'
expect_absent "$T/out.c" "$T/out.h"
expect_within 5
expect_nothing_left
hdone

hcase stop.timeout_kills_check_group
mkdir "$T/tmp"
slow_spec
slow_cc
hrun -- env TMPDIR="$T/tmp" MARKER_DIR="$T" DIAGC_CHECK_CC="$T/slow-cc" "$DIAGC" --timeout 2 "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua: timed out after 2 s'
check "the check compiler ran" test -e "$T/check-running"
expect_absent "$T/out.c" "$T/out.h"
expect_within 5
expect_nothing_left
hdone

# stop_mid_check SIGNAL STATUS: diagc gets SIGNAL once the check runs
stop_mid_check() {
  hcase "stop.${1,,}_kills_check_group"
  mkdir "$T/tmp"
  slow_spec
  slow_cc
  local pid i
  # (trap - INT: a background job starts with SIGINT ignored otherwise)
  ( trap - INT; TMPDIR="$T/tmp" MARKER_DIR="$T" DIAGC_CHECK_CC="$T/slow-cc" \
    exec timeout -s KILL 30 "$DIAGC" --timeout 0 "$T/spec.lua" -o "$T/out.c" ) >"$T/.stdout" 2>"$T/.stderr" &
  pid=$!
  for i in $(seq 1 100); do [ -e "$T/check-running" ] && break; sleep 0.1; done
  check "the check compiler ran" test -e "$T/check-running"
  pkill -"$1" -P "$pid" -x diagc
  { wait "$pid"; } 2>/dev/null
  rc=$?
  err=$(cat "$T/.stderr")
  expect_exit "$2"
  check "nothing on stderr: $err" test -z "$err"
  expect_absent "$T/out.c" "$T/out.h"
  expect_nothing_left
  hdone
}
stop_mid_check TERM 143
stop_mid_check INT 130
