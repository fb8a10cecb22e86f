-- lib/blocks/discrete.lua: discrete blocks: a periodic update of period and offset
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, count, vector, leaf, timing = K.ctors, K.settings, K.count, K.vector, K.leaf, K.timing
  -- the same update read one period later
  local function held(loc, name, typename, s)
    s = settings(loc, name, s, { period = true, offset = true, x0 = true, size = true })
    local period, offset = timing(loc, name, s)
    local n = count(loc, name, "size", s.size, 1)
    return leaf(loc, typename, {
      ctors.discrete_state { "x", default = vector(loc, name, "x0", s.x0 or 0, n) },
      ctors.input_port { "u", size = n },
      ctors.periodic_discrete_update { "sample", period = period, offset = offset, prerequisites = { "u" },
        writes = { "x" }, calc = string.format("for (int i = 0; i < %d; i++) x_next[i] = u[i];", n) },
      ctors.output_port { "y", size = n, prerequisites = { "x" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = x[i];", n) },
    })
  end
  def("zero_order_hold", function(s, loc) return held(loc, "zero_order_hold", "ZeroOrderHold", s) end)
  def("unit_delay", function(s, loc) return held(loc, "unit_delay", "UnitDelay", s) end)


end

return M
