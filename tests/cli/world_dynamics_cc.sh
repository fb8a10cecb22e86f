#!/usr/bin/env bash
# tests/cli/world_dynamics_cc.sh: the generated world dynamics
# (generator/diagc/world/) compiled by gcc, clang and tcc at the strict
# flags, their programs agreeing with the JIT, and every function emitted
# alone leaving nothing unused (tests/cli/world_dynamics_cc.lua).
set -u
DIAGC=${DIAGC:-bin/diagc}
"$DIAGC" test tests/cli/world_dynamics_cc.lua
