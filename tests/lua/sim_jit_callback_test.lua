-- The simulator calls the loggers' Lua callback from C: a loop over
-- advance_to that LuaJIT compiles must not call it from compiled code
-- (LuaJIT panics, "bad callback", and the test process dies without a
-- word).  CI once died so in examples/control/dc_motor_pi_test.lua; here
-- the JIT is made eager (every loop hot at once) to make it certain.
local m = diagc.jit(diagc.root .. "/examples/pendulum.lua")

test("sim_jit_callback.hot_advance_loop", function()
  local luajit = require("jit")
  luajit.opt.start("hotloop=1", "hotexit=1")
  local ok, err = pcall(function()
    local sim = m:simulator()
    sim:initialize()
    for k = 1, 300 do sim:advance_to(k * 1e-3) end
    local log = sim:log(next(sim.logs))
    truthy(#log.t > 0, "the logger's callback ran")
  end)
  luajit.opt.start("hotloop=56", "hotexit=10") -- LuaJIT's defaults
  truthy(ok, tostring(err))
end)
