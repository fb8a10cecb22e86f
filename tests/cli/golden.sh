#!/usr/bin/env bash
# tests/cli/golden.sh: the generated C of the examples in
# tests/golden/EXAMPLES equals the committed golden files, so any change to
# the output arrives with its golden files in the same commit
# (scripts/update-golden.sh regenerates them; tests/golden/README.md).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in $(cat tests/golden/EXAMPLES); do
  if ! $DIAGC "examples/$name.lua" -o "$tmp/$name.c" --no-check 2>"$tmp/err"; then
    echo "FAIL golden.$name: $(head -1 "$tmp/err")"; continue
  fi
  for ext in c h; do
    if cmp -s "$tmp/$name.$ext" "tests/golden/$name.$ext"; then
      echo "ok golden.$name.$ext"
    else
      first=$(diff "tests/golden/$name.$ext" "$tmp/$name.$ext" | head -3 | tr '\n' ' ')
      echo "FAIL golden.$name.$ext: the generated C differs from tests/golden/$name.$ext" \
        "(run scripts/update-golden.sh and commit the change if it is intended): $first"
    fi
  done
done
