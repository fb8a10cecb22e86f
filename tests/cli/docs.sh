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

# Documents whose blocks are not annotated yet (issue #25: the second docs
# engineer annotates them); they are not run.  This list must end up empty.
pending=" docs/tutorial.md docs/testing.md docs/jacobians.md "

if ! command -v luajit >/dev/null 2>&1; then
  fail runner "luajit is not installed (scripts/install-deps.sh installs it)"
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
runner() { luajit tests/cli/doctest.lua "$root" "$@"; }

# --- the runner's fixture -------------------------------------------------------
got=$(runner tests/fixtures/doctest/sample.md 2>&1)
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
docs=()
pending=" $(echo $pending) "
for f in README.md docs/*.md; do
  if [[ "$pending" == *" $f "* ]]; then echo "skip docs.$(basename "$f" .md): not annotated yet (pending, issue #25)"
  else docs+=("$f"); fi
done
before=$(git status --porcelain 2>/dev/null)
runner "${docs[@]}" 2>&1
[ $? = 0 ] || fails=$((fails + 1))
after=$(git status --porcelain 2>/dev/null)
if [ "$before" = "$after" ]; then ok tree_unchanged; else
  fail tree_unchanged "the doc tests changed the tree: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
fi
leftover=$(find "$scratch" -mindepth 1 -maxdepth 1 -name 'diagc-doctest.*' | head -1)
if [ -z "$leftover" ]; then ok scratch_removed; else fail scratch_removed "$leftover is left"; fi
[ "$fails" = 0 ]
