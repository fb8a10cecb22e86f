-- tests/python: abstract (C-typed) values set and read from Python: a
-- tally (abstract state) that each tick adds the step of a configuration
-- (abstract parameter) to its sum; the output doubles it when the
-- configuration says so.
local Tally = leaf "Tally" {
  c_preamble [[
    typedef struct { int count; double sum; } tally_t;
    typedef struct { double step; int twice; } cfg_t;
  ]],
  abstract_state { "tally", type = "tally_t", init = "{ 0, 0.0 }" },
  abstract_parameter { "cfg", type = "cfg_t", init = "{ 1.0, 0 }" },
  output_port { "total", size = 1, prerequisites = { "tally", "cfg" },
    calc = [[ total[0] = tally->sum * (cfg->twice ? 2.0 : 1.0); ]] },
  periodic_unrestricted_update { "tick", period = 0.1, prerequisites = { "tally", "cfg" },
    writes = { "tally" },
    calc = [[
      tally_next->count = tally->count + 1;
      tally_next->sum = tally->sum + cfg->step;
    ]] },
}
return diagram "abstract" {
  system { "t", Tally },
  log { "t.total", period = 0.1 },
}
