-- Automatic event names (kind_<n>) never collide with names the leaf gives
-- its events explicitly, whichever comes first.
local dsl = diagc.dsl
local ffi = require("ffi")

local function event_names(m)
  local names = {}
  for i = 0, m.desc.n_events - 1 do names[#names + 1] = ffi.string(m.desc.events[i].name) end
  table.sort(names)
  return names
end

local function model(items)
  local L = dsl.leaf "Ev" (items)
  return diagc.jit(dsl.diagram "d" { dsl.system { "e", L } })
end

test("events.auto_name_skips_explicit_later", function()
  local m = model {
    dsl.periodic_publish { period = 1, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
    dsl.periodic_publish { "publish_0", period = 2, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
  }
  eq(event_names(m), { "e.publish_0", "e.publish_1" })
end)

test("events.auto_name_skips_explicit_earlier", function()
  local m = model {
    dsl.periodic_publish { "publish_1", period = 2, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
    dsl.periodic_publish { period = 1, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
    dsl.periodic_publish { period = 3, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
  }
  eq(event_names(m), { "e.publish_1", "e.publish_2", "e.publish_3" })
end)

test("events.explicit_duplicate_is_an_error", function()
  expect_error(function()
    model {
      dsl.periodic_publish { "tick", period = 1, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
      dsl.periodic_publish { "tick", period = 2, calc = [[ (void)0; ]], prerequisites = { "nothing" } },
    }
  end, "already has an event named 'tick'")
end)
