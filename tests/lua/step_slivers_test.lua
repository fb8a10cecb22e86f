-- No sliver steps next to event times (issue 14): a 10 s thermostat on a
-- first-order thermal model, run to 200 s, took a 2.8e-13 s step before
-- t = 70 (the sum of 0.1 s steps a few ulps short of the event time).
-- Structural check: the smallest step is not tiny compared with the period.
local function here()
  local src = debug.getinfo(1, "S").source:gsub("^@", "")
  if src:sub(1, 1) ~= "/" then src = (os.getenv("PWD") or ".") .. "/" .. src end
  return src:match("^(.*)/[^/]*$")
end
local spec = here() .. "/../../examples/thermostat.lua"

for _, integ in ipairs({ "runge_kutta3", "dormand_prince54", "bogacki_shampine3", "implicit_euler", "radau3", "radau5" }) do
  test("slivers.thermostat." .. integ, function()
    local m = diagc.jit(spec)
    local sim = m:simulator({ integrator = integ })
    sim:advance_to(200)
    local st = sim:stats()
    assert(st.smallest_step > 1e-6 * 10, string.format("smallest step %g", st.smallest_step))
    -- the schedule's setpoints took effect at 60 and 135 (logged at 70, 140)
    local l = sim:log("thermostat.target")
    eq(l.v[7], 20); eq(l.v[8], 24); eq(l.v[14], 24); eq(l.v[15], 18)
  end)
end

test("slivers.thermostat.fixed_until_205.3", function()
  local sim = diagc.jit(spec):simulator({ integrator = "runge_kutta4", fixed_step = 0.1, error_control = 0 })
  sim:advance_to(205.3)
  local st = sim:stats()
  assert(st.smallest_step > 1e-6 * 10, string.format("smallest step %g", st.smallest_step))
end)
