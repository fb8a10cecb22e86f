-- A multi-rate hybrid system: a continuous plant under a discrete
-- controller at 100 Hz, whose setpoint comes from a slower (10 Hz)
-- discrete supervisor.
--   plant:       x' = u                      (continuous)
--   controller:  u_{k+1} = K (r - x(t_k))     every 10 ms (sample and hold)
--   supervisor:  r_{k+1} = 1 before t = 0.5 s, then 0.5, every 100 ms
-- Each discrete system also counts its updates.  Discrete updates at one
-- instant all read the state before that instant's updates (Drake's
-- semantics), so the controller's update at t = 0.5 still sees r = 1.
local Plant = leaf "Plant" {
  continuous_state { z = { "x" } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "u" }, calc = [[ zdot[0] = u[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}

local Controller = leaf "Controller" {
  discrete_state { "u", default = { 0.0 } },
  discrete_state { "ticks", default = { 0 } },
  parameter { "gain", default = { 20.0 } },
  input_port { "r", size = 1 },
  input_port { "y", size = 1 },
  periodic_discrete_update { "control", period = 0.01,
    prerequisites = { "r", "y", "gain", "ticks" },
    calc = [[
      u_next[0] = gain[0] * (r[0] - y[0]);
      ticks_next[0] = ticks[0] + 1;
    ]] },
  output_port { "u_out", size = 1, prerequisites = { "u" }, calc = [[ u_out[0] = u[0]; ]] },
  output_port { "count", size = 1, prerequisites = { "ticks" }, calc = [[ count[0] = ticks[0]; ]] },
}

local Supervisor = leaf "Supervisor" {
  discrete_state { "setpoint", default = { 0.0 } },
  discrete_state { "ticks", default = { 0 } },
  parameter { "switch_time", default = { 0.5 } },
  periodic_discrete_update { "schedule", period = 0.1,
    prerequisites = { "time", "switch_time", "ticks" },
    calc = [[
      setpoint_next[0] = t < switch_time[0] ? 1.0 : 0.5;
      ticks_next[0] = ticks[0] + 1;
    ]] },
  output_port { "r", size = 1, prerequisites = { "setpoint" },
    calc = [[ r[0] = setpoint[0]; ]] },
  output_port { "count", size = 1, prerequisites = { "ticks" }, calc = [[ count[0] = ticks[0]; ]] },
}

return diagram "hybrid_controller" {
  system { "plant", Plant },
  system { "controller", Controller },
  system { "supervisor", Supervisor },
  connect { "supervisor.r", "controller.r" },
  connect { "plant.y", "controller.y" },
  connect { "controller.u_out", "plant.u" },
  log { "plant.y", period = 0.01 },
  log { "controller.u_out", period = 0.01 },
  log { "supervisor.r", period = 0.1 },
}
