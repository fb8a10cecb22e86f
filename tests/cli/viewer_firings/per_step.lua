-- tests/cli/viewer_firings.sh: a per-step publish that fires at every step
-- (and at initialization), to run past the firings file's 100 000 rows per
-- event; its one state is a clock, logged every step, so the CSV has one
-- row per firing.
local Clock = leaf "Clock" {
  continuous_state { z = { "c" } },
  derivatives { calc = [[ zdot[0] = 1.0; ]] },
  per_step_publish { "tick", calc = [[ return DIAGC_DID_NOTHING; ]] },
  output_port { "c", size = 1, prerequisites = { "z" }, calc = [[ c[0] = z[0]; ]] },
}
return diagram "per_step" {
  system { "clock", Clock },
  log { "clock.c", period = 0 },
}
