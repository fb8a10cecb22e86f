-- expect: diagc: FILE:7:25: the calc of event 'unrestricted_update_0' of leaf "Counter" cannot infer its prerequisites: 'n' is of C type long, and only doubles are in the differentiable subset of C (see docs/jacobians.md); list the prerequisites instead of "inferred"
-- prerequisites = "inferred" on a body that reads an abstract state: a
-- value of a C type other than double is outside the subset.
local Counter = leaf "Counter" {
  abstract_state { "n", type = "long", init = "0" },
  periodic_unrestricted_update { period = 1, writes = { "n" }, prerequisites = "inferred",
    calc = "n_next[0] = n[0] + 1;" },
}
return diagram "top" { system { "c", Counter } }
