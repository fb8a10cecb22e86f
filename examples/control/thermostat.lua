-- A room heated through a relay with hysteresis, from library blocks only
-- (docs/library.md).  Time in hours, temperatures in degrees C.
--   room:       T' = (Ta - T) / tau + q h      (a state space: inputs Ta, h)
--   thermostat: h = 1 once T falls to setpoint - band, 0 once it rises to
--               setpoint + band (a relay on the error setpoint - T)
-- Heating alone would settle at Ta + q tau = 25, so the relay holds the
-- room in a limit cycle between 19.5 and 20.5 (the test checks its
-- switching times against the exponentials'
-- examples/control/thermostat_test.lua).
local tau, q, band = 2, 10, 0.5

return diagram "thermostat" {
  system { "outside", blocks.constant { value = 5 } },
  system { "setpoint", blocks.constant { value = 20 } },
  system { "error", blocks.sum { signs = "+-" } },
  system { "relay", blocks.relay { on = band, off = -band } },
  system { "inputs", blocks.mux { sizes = { 1, 1 } } },
  system { "room", blocks.state_space { A = { { -1 / tau } }, B = { { 1 / tau, q } }, C = { { 1 } }, x0 = { 5 } } },
  connect { "setpoint.y", "error.u1" }, connect { "room.y", "error.u2" },
  connect { "error.y", "relay.u" },
  connect { "outside.y", "inputs.u1" }, connect { "relay.y", "inputs.u2" },
  connect { "inputs.y", "room.u" },
  log { "room.y", period = 0.05 }, log { "relay.y", period = 0.05 },
}
