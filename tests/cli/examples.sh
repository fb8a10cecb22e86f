#!/usr/bin/env bash
# Every example (examples/ and examples/control/): generated twice (byte-identical), compiled warning-free
# with gcc -O2, clang and tcc (-std=c99 -Wall -Wextra -Werror -pedantic),
# linked natively with the runtime and run; the native run must print the
# same CSV as `diagc run` (TinyCC, in-process).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"
for spec in examples/*.lua examples/control/*.lua; do
  case "$spec" in *_test.lua) continue ;; esac
  name=$(basename "$spec" .lua)
  d="$tmp/$name"; mkdir -p "$d"
  if ! $DIAGC "$spec" -o "$d/model.c" 2>"$d/err"; then
    echo "FAIL example.$name.generate: $(head -1 "$d/err")"; continue
  fi
  echo "ok example.$name.generate"
  $DIAGC "$spec" -o "$d/again.c" 2>/dev/null
  if cmp -s <(sed 's/again/model/g' "$d/again.c") "$d/model.c" && cmp -s <(sed 's/again/model/g' "$d/again.h") "$d/model.h"; then
    echo "ok example.$name.byte_identical"
  else
    echo "FAIL example.$name.byte_identical: two generations differ"
  fi
  prefix=$(sed -n 's/^extern const diagc_model \(.*\)_model;$/\1/p' "$d/model.h")
  for cc in "gcc -O2" clang tcc; do
    tag=${cc%% *}
    if $cc $FLAGS -c "$d/model.c" -o "$d/model_$tag.o" 2>"$d/cc_$tag.err"; then
      echo "ok example.$name.compile_$tag"
    else
      echo "FAIL example.$name.compile_$tag: $(head -3 "$d/cc_$tag.err" | tr '\n' ' ')"
    fi
  done
  until=1
  [ "$name" = discrete_counter ] && until=0.06
  if gcc -O2 $FLAGS -DMODEL="${prefix}_model" -include "$d/model.h" tests/cli/run_model.c "$d/model_gcc.o" \
       lib/libdiagc.a -lm -o "$d/run" 2>"$d/link.err" && "$d/run" "$until" >"$d/native.csv" 2>"$d/run.err"; then
    echo "ok example.$name.run_native"
  else
    echo "FAIL example.$name.run_native: $(head -2 "$d/link.err" "$d/run.err" | tr '\n' ' ')"
  fi
  if $DIAGC run "$spec" --until "$until" >"$d/jit.csv" 2>"$d/jit.err"; then
    echo "ok example.$name.run_jit"
  else
    echo "FAIL example.$name.run_jit: $(head -1 "$d/jit.err")"
  fi
  if cmp -s "$d/native.csv" "$d/jit.csv"; then
    echo "ok example.$name.native_equals_jit"
  else
    echo "FAIL example.$name.native_equals_jit: $(diff "$d/native.csv" "$d/jit.csv" | head -3 | tr '\n' ' ')"
  fi
done
# the discrete counter prints exactly Drake's four samples
expected=$'t,example.Sn\n0,0\n0.02,10\n0.04,20\n0.06,30'
got=$($DIAGC run examples/discrete_counter.lua --until 0.06)
if [ "$got" = "$expected" ]; then echo "ok example.discrete_counter.drake_samples"
else echo "FAIL example.discrete_counter.drake_samples: got $(echo "$got" | tr '\n' ' ')"; fi

# A C++ product: g++ compiles a main that includes a generated header (its
# extern "C" guards) and links the C-compiled model and the runtime.
# spring_mass at q = 2, v = 0, k = 4, m = 1: qdot = 0, vdot = -k q / m = -8,
# energy = k q^2 / 2 = 8.
if command -v g++ >/dev/null; then
  d="$tmp/cxx"; mkdir -p "$d"
  cat >"$d/main.cpp" <<'CXX'
#include <cstdio>
#include "model.h"
int main()
{
  spring_mass_context c;
  const double q = 2.0, k = 4.0;
  const double *xcdot = 0, *energy = 0;
  spring_mass_init(&c);
  spring_mass_set_spring__q(&c, &q);
  spring_mass_set_spring__stiffness(&c, &k);
  if (spring_mass_calc_derivatives(&c, &xcdot) != 0) return 1;
  if (spring_mass_eval_spring__energy(&c, &energy) != 0) return 1;
  std::printf("%g %g %g %s\n", xcdot[0], xcdot[1], energy[0], spring_mass_model.name);
  return 0;
}
CXX
  if $DIAGC examples/spring_mass.lua -o "$d/model.c" 2>"$d/err" &&
     gcc $FLAGS -c "$d/model.c" -o "$d/model.o" 2>>"$d/err" &&
     g++ -std=c++11 -Wall -Wextra -Werror -pedantic -Iruntime/include -I"$d" "$d/main.cpp" "$d/model.o" \
       lib/libdiagc.a -lm -lpthread -o "$d/main" 2>>"$d/err" &&
     got=$("$d/main") && [ "$got" = "0 -8 8 spring_mass" ]; then
    echo "ok example.cxx_product_links"
  else
    echo "FAIL example.cxx_product_links: $(head -3 "$d/err" | tr '\n' ' ') ${got:-}"
  fi
else
  echo "ok example.cxx_product_links (skipped: no g++)"
fi

# Degenerate shapes compile warning-free too: no output port, no input, no
# parameter (empty descriptor tables); only discrete state; only a
# parameter Jacobian request on a leaf without state.
mkdir -p "$tmp/edge"
cat >"$tmp/edge/noout.lua" <<'EOF2'
local Lag = leaf "Lag" {
  continuous_state { z = 1 },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
}
return diagram "noout" { system { "l", Lag } }
EOF2
cat >"$tmp/edge/onlyxd.lua" <<'EOF2'
local C = leaf "C" {
  discrete_state { "n", size = 1 },
  periodic_discrete_update { "tick", period = 1, prerequisites = { "xd" }, calc = [[ n_next[0] = n[0] + 1.0; ]] },
}
return diagram "onlyxd" { system { "c", C } }
EOF2
cat >"$tmp/edge/gainp.lua" <<'EOF2'
local G = leaf "G" {
  parameter { "k", default = { 2 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u", "k" }, calc = [[ y[0] = k[0] * u[0]; ]] },
}
return diagram "gainp" { system { "g", G }, export_input { "g.u", as = "u" }, export_output { "g.y", as = "y" },
  parameter_jacobian { "g.k" } }
EOF2
for name in noout onlyxd gainp; do
  if ! $DIAGC "$tmp/edge/$name.lua" -o "$tmp/edge/$name.c" 2>"$tmp/edge/err"; then
    echo "FAIL example.edge_$name.generate: $(head -1 "$tmp/edge/err")"; continue
  fi
  for cc in "gcc -O2" clang tcc; do
    tag=${cc%% *}
    if $cc $FLAGS -c "$tmp/edge/$name.c" -o "$tmp/edge/$name.o" 2>"$tmp/edge/cc.err"; then
      echo "ok example.edge_$name.compile_$tag"
    else
      echo "FAIL example.edge_$name.compile_$tag: $(head -3 "$tmp/edge/cc.err" | tr '\n' ' ')"
    fi
  done
done
