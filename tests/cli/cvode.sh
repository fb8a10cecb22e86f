#!/usr/bin/env bash
# An independent reference: diagc's simulator on generated models against
# SUNDIALS CVODE (Debian libsundials-dev) on hand-written equations, at
# tight tolerance.  The program is tests/cli/cvode_ref.c.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! scripts/install-deps.sh libsundials-dev >"$tmp/install.log" 2>&1; then
  echo "skip cvode.reference: libsundials-dev could not be installed ($(tail -1 "$tmp/install.log"))"
  exit 0
fi
cat >"$tmp/vanderpol.lua" <<'SPEC'
-- Van der Pol: x'' = mu (1 - x^2) x' - x, x(0) = 2, x'(0) = 0
local VdP = leaf "VanDerPol" {
  continuous_state { q = { "x" }, v = { "xdot" }, q0 = { 2.0 }, v0 = { 0.0 } },
  parameter { "mu", default = { 1.0 } },
  derivatives { prerequisites = { "q", "v", "mu" },
    calc = [[ qdot[0] = v[0]; vdot[0] = mu[0] * (1 - q[0] * q[0]) * v[0] - q[0]; ]] },
}
return diagram "vanderpol" { system { "vdp", VdP } }
SPEC
if ! $DIAGC examples/pendulum.lua -o "$tmp/pendulum.c" 2>"$tmp/err" ||
   ! $DIAGC "$tmp/vanderpol.lua" -o "$tmp/vanderpol.c" 2>>"$tmp/err"; then
  echo "FAIL cvode.generate: $(head -1 "$tmp/err")"
  exit 0
fi
libs="-lsundials_cvode -lsundials_nvecserial"
if pkg-config --exists sundials-cvode 2>/dev/null; then libs=$(pkg-config --libs sundials-cvode sundials-nvecserial); fi
if ! gcc -std=c11 -O2 -Wall -Wextra -Iruntime/include tests/cli/cvode_ref.c "$tmp/pendulum.c" \
     "$tmp/vanderpol.c" lib/libdiagc.a $libs -lm -lpthread -o "$tmp/cvode_ref" 2>"$tmp/err"; then
  echo "FAIL cvode.build: $(head -3 "$tmp/err" | tr '\n' ' ')"
  exit 0
fi
"$tmp/cvode_ref" 2>"$tmp/detail"
rc=$?
[ -n "${CVODE_VERBOSE:-}" ] && cat "$tmp/detail" >&2
[ $rc = 0 ] || exit 0   # the FAIL lines were printed
