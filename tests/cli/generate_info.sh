#!/usr/bin/env bash
# tests/cli/generate_info.sh: `diagc SPEC.lua -o OUT.c --info OUT.json`
# writes, with OUT.c and OUT.h, the document of `diagc info SPEC --json`
# byte for byte (one generation for both: what diagc.build uses), for a
# plain model and a world; the C is the same as without --info.  (Bad
# --info names: tests/hostile/paths.sh.)
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for spec in examples/pendulum.lua examples/world/cartpole.lua; do
  name=$(basename "$spec" .lua)
  if ! "$DIAGC" "$spec" -o "$tmp/a.c" --info "$tmp/a.json" 2>"$tmp/err"; then
    echo "FAIL generate_info.$name: exit status $?: $(head -1 "$tmp/err")"; status=1; continue
  fi
  mkdir -p "$tmp/plain"
  "$DIAGC" "$spec" -o "$tmp/plain/a.c" >/dev/null 2>&1 || { echo "FAIL generate_info.$name: without --info"; status=1; continue; }
  "$DIAGC" info "$spec" --json >"$tmp/ref.json" 2>/dev/null || { echo "FAIL generate_info.$name: diagc info"; status=1; continue; }
  if ! cmp -s "$tmp/a.json" "$tmp/ref.json"; then
    echo "FAIL generate_info.$name: OUT.json differs from diagc info --json"; status=1
  elif ! cmp -s "$tmp/a.h" "$tmp/plain/a.h" || ! cmp -s "$tmp/a.c" "$tmp/plain/a.c"; then
    echo "FAIL generate_info.$name: the C differs with --info"; status=1
  else
    echo "ok generate_info.$name"
  fi
done
exit $status
