#!/usr/bin/env bash
# Every example: generated twice (byte-identical), compiled warning-free
# with gcc -O2, clang and tcc (-std=c99 -Wall -Wextra -Werror -pedantic),
# linked natively with the runtime and run; the native run must print the
# same CSV as `diagc run` (TinyCC, in-process).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"
for spec in examples/*.lua; do
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
