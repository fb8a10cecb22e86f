#!/usr/bin/env bash
# The optional CVODE backend (lib/libdiagc_cvode, diagc/cvode.h): installs
# libsundials-dev with the project's script (skip if impossible), builds
# the backend (make) and its sanitized copy (make asan-cvode), runs
# tests/cli/sim_cvode.c under ASan/UBSan against build/asan/libdiagc.a,
# then `diagc run --integrator cvode_bdf` end to end: the generated
# Robertson model against radau3, its --stats, and the one-line error when
# the backend library is missing.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! scripts/install-deps.sh libsundials-dev >"$tmp/install.log" 2>&1; then
  echo "skip sim_cvode: libsundials-dev could not be installed ($(tail -1 "$tmp/install.log"))"
  exit 0
fi
# SuiteSparse's KLU, for the sparse path (optional: without it the backend
# uses dense LU and the KLU checks print skip lines)
scripts/install-deps.sh libsuitesparse-dev >/dev/null 2>&1 || true
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
if ! mk all asan-runtime asan-cvode >"$tmp/make.log" 2>&1; then
  echo "FAIL sim_cvode.build: $(grep -m1 -i error "$tmp/make.log" || tail -1 "$tmp/make.log")"
  exit 0
fi
libs=$(mk cvode-libs)
CC=${CC:-cc}
# shellcheck disable=SC2086
if ! $CC -std=c11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
     -Wall -Wextra -Werror -Iruntime/include -o "$tmp/sim_cvode" tests/cli/sim_cvode.c \
     build/asan/libdiagc_cvode.a build/asan/libdiagc.a $libs -ldl -lm -lpthread 2>"$tmp/err"; then
  echo "FAIL sim_cvode.compile: $(head -3 "$tmp/err" | tr '\n' ' ')"
  exit 0
fi
"$tmp/sim_cvode" || true   # its ok/FAIL lines; a crash is a FAIL line below
[ "${PIPESTATUS[0]}" -gt 1 ] && echo "FAIL sim_cvode.program: exit status ${PIPESTATUS[0]}"

# diagc run --integrator cvode_bdf on a generated model: the last row of
# the log against radau3's at tight accuracy
spec=bench/stiff/specs/robertson.lua
if ! $DIAGC run "$spec" --integrator cvode_bdf --until 100 --max-step 100 --accuracy 1e-10 \
     --stats >"$tmp/cv.csv" 2>"$tmp/cv.err"; then
  echo "FAIL sim_cvode.run: $(head -1 "$tmp/cv.err")"
else
  $DIAGC run "$spec" --integrator radau3 --until 100 --max-step 100 --accuracy 1e-11 \
    >"$tmp/ra.csv" 2>/dev/null
  d=$(paste -d, <(tail -1 "$tmp/cv.csv") <(tail -1 "$tmp/ra.csv") | awk -F, '{
        n = NF / 2; w = 0
        for (i = 2; i <= n; i++) { a = $i; b = $(i + n); f = (b < 0 ? -b : b); if (f < 1e-12) f = 1e-12
          e = (a - b) / f; if (e < 0) e = -e; if (e > w) w = e }
        print (n > 1 && $1 == $(n + 1)) ? w : "mismatch" }')
  if [ "$d" != mismatch ] && awk -v d="$d" 'BEGIN { exit !(d < 1e-5) }'; then
    echo "ok sim_cvode.run.robertson_vs_radau3"
  else
    echo "FAIL sim_cvode.run.robertson_vs_radau3: worst relative difference $d"
  fi
  if grep -q "^integrator cvode_bdf (SUNDIALS [0-9.]*, .*), jacobians [1-9][0-9]* (the model's generated Jacobian)" "$tmp/cv.err"; then
    echo "ok sim_cvode.run.stats"
  else
    echo "FAIL sim_cvode.run.stats: $(tr '\n' ' ' <"$tmp/cv.err")"
  fi
fi
# the backend missing: one line, exit 2
DIAGC_CVODE_LIBRARY="$tmp/none/libdiagc_cvode.so" $DIAGC run "$spec" --integrator cvode_bdf \
  --until 1 >/dev/null 2>"$tmp/miss.err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$tmp/miss.err")" = 1 ] &&
   grep -q "cvode_bdf needs libsundials-dev: install it with scripts/install-deps.sh libsundials-dev and rebuild" "$tmp/miss.err"; then
  echo "ok sim_cvode.run.missing_backend"
else
  echo "FAIL sim_cvode.run.missing_backend: exit $rc: $(tr '\n' ' ' <"$tmp/miss.err")"
fi
