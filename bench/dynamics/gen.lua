-- bench/dynamics/gen.lua ROOT OUT.c: writes the generated dynamics of the
-- benchmark worlds (arm7, tree20, tree50, boxes50: the five functions the
-- benchmark times), their sizes and default q, and prints the generation
-- time (ms) of each as "GEN name bodies nv ms" lines.
local root, out = arg[1], arg[2]
package.path = root .. "/generator/?.lua;" .. root .. "/bench/dynamics/?.lua;" .. package.path
local dyn = require("diagc.world.dynamics")
local worlds = require("worlds")

local list = { { "arm7", worlds.arm() }, { "tree20", worlds.tree(20) }, { "tree50", worlds.tree(50) },
  { "boxes50", worlds.boxes(50) } }
local FUNCTIONS = { "kinematics", "mass_matrix", "bias", "factor", "solve" }
local f = assert(io.open(out, "wb"))
for _, w in ipairs(list) do
  local t0 = os.clock()
  local text = dyn.emit(w[2], w[1], { functions = FUNCTIONS })
  local ms = (os.clock() - t0) * 1e3
  local facts = dyn.facts(w[2])
  f:write(text, "\n")
  f:write(string.format("enum { %s_NQ = %d, %s_NV = %d, %s_NB = %d };\n", w[1], facts.nq, w[1], facts.nv, w[1], facts.nb))
  local qd = {}
  for i, x in ipairs(facts.q_default) do qd[i] = string.format("%g", x) end
  f:write(string.format("static const double %s_q_default[%d] = { %s };\n", w[1], math.max(facts.nq, 1),
    #qd > 0 and table.concat(qd, ", ") or "0"))
  print(string.format("GEN %s %d %d %.2f", w[1], facts.nb, facts.nv, ms))
end
assert(f:close())
