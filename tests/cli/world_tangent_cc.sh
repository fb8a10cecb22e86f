#!/usr/bin/env bash
# tests/cli/world_tangent_cc.sh: the tangent derivatives of the generated
# world dynamics (generator/diagc/world/tangent.lua) compiled by gcc, clang
# and tcc at the strict flags, their programs agreeing with the JIT, and
# every function emitted alone leaving nothing unused
# (tests/cli/world_tangent_cc.lua).
set -u
DIAGC=${DIAGC:-bin/diagc}
"$DIAGC" test tests/cli/world_tangent_cc.lua --timeout 900
