#!/usr/bin/env bash
# The stiff integrators against an independent reference: diagc's radau5,
# radau3 and implicit_euler on the generated models of bench/stiff/specs/
# (Robertson's kinetics, Van der Pol with mu = 1000) against SUNDIALS CVODE
# (Debian libsundials-dev) at tight tolerance on the same right-hand side
# (bench/stiff/cvode_model.h).  The program is tests/cli/cvode_stiff.c.
# Also: `diagc run --stats` reports the implicit integrators' Jacobians
# and their source (--jacobian model|fd).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --stats names the Jacobian source: the generated one by default,
# finite differences with --jacobian fd (same answer, more evaluations)
for src in model fd; do
  $DIAGC run bench/stiff/specs/robertson.lua --integrator radau3 --until 100 \
    --max-step 100 --accuracy 1e-8 --jacobian "$src" --stats >"$tmp/out_$src.csv" 2>"$tmp/stats_$src" || true
done
evals() { sed -n 's/.*derivative evaluations \([0-9]*\),.*/\1/p' "$1"; }
if grep -q "^jacobians [1-9][0-9]* (the model's generated Jacobian), LU factorizations [1-9][0-9]*, newton iterations [1-9]" "$tmp/stats_model" &&
   grep -q "^jacobians [1-9][0-9]* (finite differences), LU factorizations [1-9]" "$tmp/stats_fd" &&
   [ "$(evals "$tmp/stats_model")" -lt "$(evals "$tmp/stats_fd")" ]; then
  echo "ok cvode_stiff.run_stats"
else
  echo "FAIL cvode_stiff.run_stats: $(tr '\n' ' ' <"$tmp/stats_model") / $(tr '\n' ' ' <"$tmp/stats_fd")"
fi
if ! scripts/install-deps.sh libsundials-dev >"$tmp/install.log" 2>&1; then
  echo "skip cvode_stiff.reference: libsundials-dev could not be installed ($(tail -1 "$tmp/install.log"))"
  exit 0
fi
for m in robertson vanderpol; do
  if ! $DIAGC "bench/stiff/specs/$m.lua" -o "$tmp/$m.c" 2>"$tmp/err"; then
    echo "FAIL cvode_stiff.generate: $(head -1 "$tmp/err")"
    exit 0
  fi
done
libs="-lsundials_cvode -lsundials_nvecserial"
if pkg-config --exists sundials-cvode 2>/dev/null; then libs=$(pkg-config --libs sundials-cvode sundials-nvecserial); fi
# shellcheck disable=SC2086
if ! gcc -std=c11 -O2 -Wall -Wextra -Iruntime/include -Ibench/stiff tests/cli/cvode_stiff.c \
     "$tmp/robertson.c" "$tmp/vanderpol.c" lib/libdiagc.a $libs -lm -lpthread \
     -o "$tmp/cvode_stiff" 2>"$tmp/err"; then
  echo "FAIL cvode_stiff.build: $(head -3 "$tmp/err" | tr '\n' ' ')"
  exit 0
fi
"$tmp/cvode_stiff" 2>"$tmp/detail"
rc=$?
[ -n "${CVODE_VERBOSE:-}" ] && cat "$tmp/detail" >&2
[ $rc = 0 ] || exit 0   # the FAIL lines were printed
