-- testing/param_fd.lua: the parameter Jacobian of parameter_jacobian
-- { ... } by central differences of the model itself, for
-- c:parameter_jacobian{ jacobian = "fd" } in `diagc test`: the reference
-- for the generated one, and the only one for a world's parameters
-- (world.friction: the step's local Jacobian has no parameter columns,
-- coder/jacobian_cache.lua).  Rows and columns as the generated one's
-- (testing/linear.lua): x[n+1] (a purely discrete model: its periodic
-- update, run as update_jacobian's differences run it) or xcdot, then the
-- linearization's outputs; columns the parameters' elements, each moved
-- by cbrt(eps) max(1, |p|) both ways on a copy of the context.
local ffi = require("ffi")
local linear = require("diagc.testing.linear")

local M = {}

-- the rows at context c (a copy: the update is applied to it)
local function rows_at(d, c)
  local r = {}
  -- the outputs first: the update changes the state
  for k = 0, d.n_lin_outputs - 1 do
    local out = ffi.new("const double *[1]")
    local rc = d.eval_output(c.ptr, d.lin_outputs[k], out)
    if rc ~= 0 then return nil, "output " .. ffi.string(d.outputs[d.lin_outputs[k]].name) .. " failed (" .. rc .. ")" end
    for i = 0, d.outputs[d.lin_outputs[k]].size - 1 do r[#r + 1] = out[0][i] end
  end
  local x
  if d.lin_time_period > 0 then
    local t = { period = d.lin_time_period, offset = 0 }
    for k = 0, d.n_jac_updates - 1 do
      if d.jac_updates[k].period == d.lin_time_period then t = d.jac_updates[k] end
    end
    local all, why = require("diagc.testing.update_jacobian").apply_update(d, c, t)
    if not all then return nil, why end
    x = {}
    for i = d.nxc + 1, #all do x[#x + 1] = all[i] end
  else
    x = c:derivatives()
  end
  for i, v in ipairs(r) do x[#x + 1] = v end
  return x
end

local function moved(d, ctx, si, i, dv)
  local c = ctx:clone()
  local s = d.sources[si]
  local v = ffi.new("double[?]", s.size)
  ffi.copy(v, ffi.cast("char *", c.ptr) + s.offset, 8 * s.size)
  v[i] = v[i] + dv
  d.set_source(c.ptr, si, v)
  return c
end

function M.parameter_jacobian(model, ctx)
  local d = model.desc
  if d.n_jac_params == 0 then return nil, "the spec asks for no parameter Jacobian (parameter_jacobian { ... })" end
  local cols = {}
  local J
  for k = 0, d.n_jac_params - 1 do
    local si = d.jac_params[k]
    local s = d.sources[si]
    for i = 0, s.size - 1 do
      local p = ffi.cast("double *", ffi.cast("char *", ctx.ptr) + s.offset)[i]
      local h = 6.0554544523933395e-06 * math.max(1, math.abs(p))
      local rp, e1 = rows_at(d, moved(d, ctx, si, i, h))
      if not rp then return nil, e1 end
      local rm, e2 = rows_at(d, moved(d, ctx, si, i, -h))
      if not rm then return nil, e2 end
      J = J or {}
      cols[#cols + 1] = true
      for r = 1, #rp do
        J[r] = J[r] or {}
        J[r][#cols] = (rp[r] - rm[r]) / (2 * h)
      end
    end
  end
  -- names as the generated one's
  local _, _, outs, osz, oel = linear.blocks(d)
  local params, psz = {}, {}
  for k = 0, d.n_jac_params - 1 do
    params[k + 1] = ffi.string(d.sources[d.jac_params[k]].name)
    psz[k + 1] = d.sources[d.jac_params[k]].size
  end
  local rows = {}
  local disc = d.lin_time_period > 0
  for i = 0, (disc and d.nxd or d.nxc) - 1 do rows[#rows + 1] = ffi.string((disc and d.xd_names or d.xc_names)[i]) end
  for _, n in ipairs(linear.elements(outs, osz, 1, #outs, oel)) do rows[#rows + 1] = n end
  return { J = J, rows = rows, cols = linear.elements(params, psz, 1, #params) }
end

return M
