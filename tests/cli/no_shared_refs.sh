#!/usr/bin/env bash
# tests/cli/no_shared_refs.sh: the project is self-contained.  No tracked
# file refers to a "shared" folder beside the checkout (its data, reference
# notes or tools); what the tests and benchmarks need lives in the
# repository (bench/executor/topologies, tests/fixtures), and comments cite
# the project's own docs.
set -u
# the pattern is split so that this file does not match itself
pat='\.\./'"shared|"'shared/'"(data|reference|tools)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git grep -n -I -E "$pat" -- . 2>/dev/null | head -10)
else
  # not a git checkout (a copy of the tree, e.g. in the fresh-machine chroot):
  # every file but the build outputs
  hits=$(grep -rn -I -E "$pat" --exclude-dir=build --exclude-dir=.git . 2>/dev/null | head -10)
fi
if [ -z "$hits" ]; then echo "ok no_shared_refs"
else echo "FAIL no_shared_refs: tracked files refer to files outside the project: $(echo "$hits" | tr '\n' ' ')"; fi

# the topologies the tests and the executor bench replay are in the tree
n=$(ls bench/executor/topologies/*.json 2>/dev/null | wc -l)
if [ "$n" -ge 4 ] && [ -f bench/executor/topologies/NOTICE ]; then echo "ok topologies_in_tree"
else echo "FAIL topologies_in_tree: $n topologies in bench/executor/topologies, NOTICE $([ -f bench/executor/topologies/NOTICE ] && echo present || echo missing)"; fi
