-- diagc test compiles models in-process; compiled models are cached by the
-- content of the generated C within a run.  This file JIT-compiles 100
-- distinct small models (timing is reported by the runner, not asserted).
local dsl = diagc.dsl
test("jit.hundred_small_models", function()
  for i = 1, 100 do
    local m = diagc.jit(dsl.diagram("small" .. i) {
      dsl.system { "g", dsl.leaf "Gain" {
        dsl.parameter { "k", default = { i } },
        dsl.input_port { "u", size = 1 },
        dsl.output_port { "y", size = 1, prerequisites = { "k", "u" }, calc = "y[0] = k[0] * u[0];" },
      } },
      dsl.fix_input { "g.u", value = { 2 } },
    })
    eq(m:context():get("g.y"), 2 * i)
  end
end)
test("jit.cache_hit_for_same_model", function()
  local a = diagc.jit(diagc.root .. "/examples/pendulum.lua")
  local b = diagc.jit(diagc.root .. "/examples/pendulum.lua")
  truthy(a.compiled == b.compiled, "same generated C compiles once")
end)
