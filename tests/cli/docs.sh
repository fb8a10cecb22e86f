#!/usr/bin/env bash
# tests/cli/docs.sh: the docs cannot go stale.  Every fenced code block of
# README.md and docs/*.md runs through tests/cli/doctest.lua (the contract:
# docs/contributing.md, "Code blocks in the docs"), one "ok docs.DOC.N" or
# "FAIL docs.DOC.N: DOC:LINE: reason" per block that runs.  First the
# runner's own fixture (tests/fixtures/doctest/): its passing blocks must
# pass and its failing ones fail with the expected reason.  Also: the doc
# tests leave the tree's `git status` as it was, and remove their scratch
# directories.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$(pwd)
fails=0
ok() { echo "ok docs.$1"; }
fail() { echo "FAIL docs.$1: $2"; fails=$((fails + 1)); }


if ! command -v luajit >/dev/null 2>&1; then
  fail runner "luajit is not installed (scripts/install-deps.sh installs it)"
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
runner() { luajit tests/cli/doctest.lua "$root" "$@"; }

# --- the runner's fixture -------------------------------------------------------
# (make, diagc test and the user may export variables the blocks must not see)
got=$(MAKELEVEL=1 DIAGC_TEST_FILTER=zzz DIAGC_ROOT=/nowhere runner tests/fixtures/doctest/sample.md 2>&1)
status=$?
results=$(printf '%s\n' "$got" | grep -E '^(ok|FAIL) ')
mismatch=""
n=0
while IFS= read -r want; do
  n=$((n + 1))
  line=$(printf '%s\n' "$results" | sed -n "${n}p")
  [[ "$line" == "$want"* ]] || { mismatch="result $n: expected '$want', got '$line'"; break; }
done <tests/fixtures/doctest/sample.expected
[ -z "$mismatch" ] && [ "$(printf '%s\n' "$results" | grep -c .)" != "$n" ] &&
  mismatch="$(printf '%s\n' "$results" | grep -c .) results, expected $n"
if [ -z "$mismatch" ] && [ "$status" = 1 ]; then ok runner.fixture; else
  fail runner.fixture "${mismatch:-exit status $status, expected 1}"
  printf '%s\n' "$got" | sed 's/^/    | /'
fi
got=$(runner tests/fixtures/doctest/unclosed.md 2>&1)
[[ "$got" == "FAIL docs.unclosed: tests/fixtures/doctest/unclosed.md:3: a fenced block that is never closed"* ]]
if [ $? = 0 ]; then ok runner.unclosed_fence; else fail runner.unclosed_fence "got: $got"; fi
leftover=$(find "$scratch" -mindepth 1 -maxdepth 1 -name 'diagc-doctest.*' | head -1)
if [ -z "$leftover" ]; then ok runner.scratch_removed; else fail runner.scratch_removed "$leftover is left"; fi

# --- the documents ------------------------------------------------------------------
docs=(README.md docs/*.md)
# what the tree holds: git's view in a checkout; in a copy without git (the
# fresh-machine chroot) every file outside the build outputs, with its size
# and time
snapshot() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git status --porcelain
  else
    find . \( -path ./build -o -path ./bin -o -path ./lib -o -path ./.git \) -prune -o \
      \( -type f -o -type l \) -printf '%p %s %T@\n' | sort
  fi
}
before=$(snapshot)
runner "${docs[@]}" 2>&1
[ $? = 0 ] || fails=$((fails + 1))
after=$(snapshot)
if [ "$before" = "$after" ]; then ok tree_unchanged; else
  fail tree_unchanged "the doc tests changed the tree: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
fi
leftover=$(find "$scratch" -mindepth 1 -maxdepth 1 -name 'diagc-doctest.*' | head -1)
if [ -z "$leftover" ]; then ok scratch_removed; else fail scratch_removed "$leftover is left"; fi
[ "$fails" = 0 ]
