-- lib/blocks/hybrid.lua: blocks driven by edges of a signal
-- (docs/library.md, "Hybrid"): an edge detector (sampled), a
-- sample-and-hold and a counter triggered by an input (lib/blocks/edges.lua).
-- Their outputs are held states, so the Jacobians through them are zero
-- (exact: the outputs are piecewise constant).
local edges = require("diagc.lib.blocks.edges")

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, number, count, leaf = K.ctors, K.settings, K.number, K.count, K.leaf

  local function kind(loc, name, v) return K.choice(loc, name, "edge", v, "rising", edges.KINDS) end

  -- sampled at offset + k period: y = 1 from a sample where u has passed
  -- threshold (in the edge's direction) since the sample before, else 0
  def("edge_detector", function(s, loc)
    s = settings(loc, "edge_detector", s, { edge = true, threshold = true, period = true, offset = true })
    local period, offset = K.timing(loc, "edge_detector", s)
    return leaf(loc, "EdgeDetector", {
      ctors.parameter { "threshold", default = { number(loc, "edge_detector", "threshold", s.threshold, 0) } },
      ctors.discrete_state { "last", default = { 0 } },
      ctors.discrete_state { "started", default = { 0 } },
      ctors.discrete_state { "edge", default = { 0 } },
      ctors.input_port { "u", size = 1 },
      ctors.periodic_discrete_update { "sample", period = period, offset = offset, writes = { "last", "started", "edge" },
        prerequisites = { "u", "last", "started", "threshold" }, calc = string.format(
          "edge_next[0] = started[0] != 0.0 && (%s) ? 1.0 : 0.0;\nlast_next[0] = u[0];\nstarted_next[0] = 1.0;",
          edges.condition(kind(loc, "edge_detector", s.edge), "u")) },
      ctors.output_port { "y", size = 1, prerequisites = { "edge" }, calc = "y[0] = edge[0];" },
    })
  end)

  -- y = u as it was at the last edge of the input `trigger` (x0 before)
  def("sample_hold", function(s, loc)
    s = settings(loc, "sample_hold", s, { edge = true, threshold = true, x0 = true, size = true })
    local n = count(loc, "sample_hold", "size", s.size, 1)
    local items = {
      ctors.parameter { "threshold", default = { number(loc, "sample_hold", "threshold", s.threshold, 0) } },
      ctors.discrete_state { "held", default = K.vector(loc, "sample_hold", "x0", s.x0 or 0, n) },
      ctors.input_port { "u", size = n },
      ctors.input_port { "trigger", size = 1 },
      ctors.output_port { "y", size = n, prerequisites = { "held" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = held[i];", n) },
    }
    for _, it in ipairs(edges.items(ctors, "trigger", kind(loc, "sample_hold", s.edge),
      string.format("for (int i = 0; i < %d; i++) held_next[i] = u[i];", n), { "held" }, { "u" })) do
      items[#items + 1] = it
    end
    return leaf(loc, "SampleHold", items)
  end)

  -- y = initial + the number of edges of the input `trigger` so far
  def("counter", function(s, loc)
    s = settings(loc, "counter", s, { edge = true, threshold = true, initial = true })
    local items = {
      ctors.parameter { "threshold", default = { number(loc, "counter", "threshold", s.threshold, 0) } },
      ctors.discrete_state { "count", default = { number(loc, "counter", "initial", s.initial, 0) } },
      ctors.input_port { "trigger", size = 1 },
      ctors.output_port { "y", size = 1, prerequisites = { "count" }, calc = "y[0] = count[0];" },
    }
    for _, it in ipairs(edges.items(ctors, "trigger", kind(loc, "counter", s.edge), "count_next[0] = count[0] + 1.0;",
      { "count" }, { "count" })) do
      items[#items + 1] = it
    end
    return leaf(loc, "Counter", items)
  end)
end

return M
