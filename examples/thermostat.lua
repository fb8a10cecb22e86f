-- A room heated under a slow thermostat, with a setpoint schedule.
--   room:       T' = (Ta + q - T) / tau               (continuous, first order)
--   thermostat: every 10 s, q = heat while T < setpoint, else 0
--               (periodic discrete update: sample and hold)
--   schedule:   the setpoint steps to the next entry of `times` / `levels`
--               at exactly those times (a next_update_time item: a one-shot
--               event at a time a calc computes, Drake's
--               DoCalcNextUpdateTime), merged with the thermostat's update
--               when they coincide (t = 60)
local Room = leaf "Room" {
  continuous_state { z = { "T" }, z0 = { 15.0 } },
  parameter { "tau", default = { 300.0 } },
  parameter { "ambient", default = { 10.0 } },
  input_port { "heat", size = 1 },
  derivatives { prerequisites = { "heat", "tau", "ambient", "z" },
    calc = [[ zdot[0] = (ambient[0] + heat[0] - z[0]) / tau[0]; ]] },
  output_port { "temperature", size = 1, prerequisites = { "z" },
    calc = [[ temperature[0] = z[0]; ]] },
}

local Thermostat = leaf "Thermostat" {
  discrete_state { "power", default = { 0.0 } },
  discrete_state { "setpoint", default = { 20.0 } },
  discrete_state { "step", default = { 0 } },
  parameter { "heat", default = { 20.0 } },
  parameter { "times", default = { 60.0, 135.0 } },
  parameter { "levels", default = { 24.0, 18.0 } },
  input_port { "temperature", size = 1 },
  periodic_discrete_update { "control", period = 10,
    prerequisites = { "temperature", "setpoint", "heat" }, writes = { "power" },
    calc = [[ power_next[0] = temperature[0] < setpoint[0] ? heat[0] : 0.0; ]] },
  next_update_time { "schedule", prerequisites = { "step", "times", "levels" },
    calc = [=[ if (step[0] < 2) t_next = times[(int)step[0]]; ]=],
    discrete_update = [=[
      setpoint_next[0] = levels[(int)step[0]];
      step_next[0] = step[0] + 1;
    ]=],
    writes = { "setpoint", "step" } },
  output_port { "heating", size = 1, prerequisites = { "power" }, calc = [[ heating[0] = power[0]; ]] },
  output_port { "target", size = 1, prerequisites = { "setpoint" },
    calc = [[ target[0] = setpoint[0]; ]] },
}

return diagram "thermostat" {
  system { "room", Room },
  system { "thermostat", Thermostat },
  connect { "room.temperature", "thermostat.temperature" },
  connect { "thermostat.heating", "room.heat" },
  log { "room.temperature", period = 10 },
  log { "thermostat.target", period = 10 },
}
