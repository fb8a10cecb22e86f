-- examples/control/dc_motor_pi.lua: a DC motor under a 1 kHz discrete PI
-- speed loop with a current limit, built from library blocks only (no C):
--
--   speed_ref -> [pi: discrete PI, i_ref limited to +-IMAX] -> [ierr: i_ref - i]
--     -> [kc: current loop gain] -> [supply: +-VMAX] -> [motor: state space]
--
-- The motor: L di/dt = V - R i - ke w, J dw/dt = kt i - b w, its state
-- (i, w) its output.  `diagc trim` finds the operating point of a speed
-- setpoint, `diagc linearize` the closed loop in discrete time at 1 kHz
-- (docs/tutorial.md, "A control loop from blocks").
local R, L, KE, KT, J, B = 1.0, 1e-3, 0.05, 0.05, 1e-4, 1e-5
local KC = 10.0            -- V per A of current error
local IMAX, VMAX = 2.0, 24.0

return diagram "dc_motor_pi" {
  system { "motor", blocks.state_space {
    A = { { -R / L, -KE / L }, { KT / J, -B / J } }, B = { { 1 / L }, { 0 } },
    C = { { 1, 0 }, { 0, 1 } } } },
  system { "current", blocks.selector { width = 2, from = 1 } },
  system { "speed", blocks.selector { width = 2, from = 2 } },
  system { "pi", blocks.pid { kp = 0.1, ki = 1.0, period = 1e-3,
    lower = -IMAX, upper = IMAX, anti_windup = "clamp" } },
  system { "ierr", blocks.sum { signs = "+-" } },
  system { "kc", blocks.gain { k = KC } },
  system { "supply", blocks.saturation { lower = -VMAX, upper = VMAX } },
  export_input { "pi.r", as = "speed_ref" },
  connect { "motor.y", "current.u" }, connect { "motor.y", "speed.u" },
  connect { "speed.y", "pi.y" },
  connect { "pi.u", "ierr.u1" }, connect { "current.y", "ierr.u2" },
  connect { "ierr.y", "kc.u" }, connect { "kc.y", "supply.u" },
  connect { "supply.y", "motor.u" },
  export_output { "speed.y", as = "speed" },
  log { "speed.y", period = 0.01 },
  log { "current.y", period = 0.01 },
}
