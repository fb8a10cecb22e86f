-- world/integrate.lua: emits PFX_integrate(q, v, dt, q_next), q (+) dt v per
-- joint: revolute and prismatic add dt v; ball and free joints turn their
-- quaternion by the exponential map of dt * omega (child-frame angular
-- velocity, right multiplication) and renormalize it; a free joint's
-- position adds dt * its linear velocity (joint frame).
local M = {}

local function joint_lines(t, i, ty, h, out)
  local q0, v0 = t.q0[i], t.v0[i]
  if ty == "revolute" or ty == "prismatic" then
    out[#out + 1] = string.format("  q_next[%d] = q[%d] + dt * v[%d];", q0, q0, v0)
  elseif ty == "ball" then
    out[#out + 1] = string.format("  %s(q + %d, v + %d, dt, q_next + %d);", h:use("quat_step"), q0, v0, q0)
  elseif ty == "free" then
    for e = 0, 2 do
      out[#out + 1] = string.format("  q_next[%d] = q[%d] + dt * v[%d];", q0 + e, q0 + e, v0 + e)
    end
    out[#out + 1] = string.format("  %s(q + %d, v + %d, dt, q_next + %d);", h:use("quat_step"), q0 + 3, v0 + 3,
      q0 + 3)
  end
end

function M.emit(world, t, prefix, h)
  local out = { string.format("static void %s_integrate(const double *q, const double *v, double dt, double *q_next)\n{",
    prefix) }
  if t.nq == 0 then out[#out + 1] = "  (void)q;\n  (void)v;\n  (void)dt;\n  (void)q_next;" end
  for i, b in ipairs(world.bodies) do joint_lines(t, i, b.joint.type, h, out) end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
