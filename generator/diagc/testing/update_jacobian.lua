-- testing/update_jacobian.lua: d x+ / d(xc, xd, u) of one timing of a
-- compiled model's periodic discrete updates (the descriptor's
-- jac_updates: coder/jacobian_update.lua), dense with element names, for
-- c:update_jacobian{...} in `diagc test`; or the same matrix by central
-- differences of the update itself, as a reference.
--
-- update_jacobian(model, ctx, opts) -> {J=, rows=, cols=, name=, period=,
--   offset=, pattern= ({row, col} pairs, 1-based)} | nil, message
--   opts.period, opts.offset  choose the timing (needed when there are several)
--   opts.jacobian  "model" (default: the generated function) | "fd": the
--     state or input perturbed (step cbrt(eps) max(1, |value|)), the
--     timing's event handlers run on one buffer preloaded with the state,
--     then their applies (Drake: every update of the instant reads the
--     state before it)
local ffi = require("ffi")
local K = require("diagc.testing.ffi").const
local linear = require("diagc.testing.linear")

local M = {}

-- the options of c:update_jacobian{...} (cli/optcheck.lua)
M.OPTIONS = {
  { "period", range = { min = 0, min_open = true } },
  { "offset", range = { min = 0 } },
  { "jacobian", one_of = { "model", "fd" } },
}

local blocks, elements = linear.blocks, linear.elements

local function timing_list(d)
  local l = {}
  for k = 0, d.n_jac_updates - 1 do
    local t = d.jac_updates[k]
    l[#l + 1] = string.format("period %.17g offset %.17g", t.period, t.offset)
  end
  return l
end

-- the jac_updates row opts chooses: index k or nil, message
local function pick_timing(d, opts)
  if d.n_jac_updates == 0 then return nil, "the model has no periodic discrete update" end
  local found
  for k = 0, d.n_jac_updates - 1 do
    local t = d.jac_updates[k]
    if (opts.period == nil or t.period == opts.period) and (opts.offset == nil or t.offset == opts.offset) then
      if found then
        return nil, "several periodic update timings match (" .. table.concat(timing_list(d), "; ")
          .. "): choose one with period = and offset ="
      end
      found = k
    end
  end
  if not found then return nil, "no periodic update timing matches (the model has: " .. table.concat(timing_list(d), "; ") .. ")" end
  return found
end

-- the element names of the rows (xc, xd) and columns (xc, xd, u)
local function update_names(d)
  local rows = {}
  for i = 0, d.nxc - 1 do rows[#rows + 1] = ffi.string(d.xc_names[i]) end
  for i = 0, d.nxd - 1 do rows[#rows + 1] = ffi.string(d.xd_names[i]) end
  local ins, isz = blocks(d)
  local cols = {}
  for i, n in ipairs(rows) do cols[i] = n end
  for _, n in ipairs(elements(ins, isz, 1, #ins)) do cols[#cols + 1] = n end
  return rows, cols
end

local function zeros(nr, nc)
  local J = {}
  for i = 1, nr do
    J[i] = {}
    for j = 1, nc do J[i][j] = 0 end
  end
  return J
end

-- the generated Jacobian of timing t, dense
local function generated(ctx, t)
  if t.jac == nil then return nil, ffi.string(t.name) .. " was not generated (an unrestricted update at the same "
    .. "timing, a calc outside the differentiable subset, or --no-jacobian); use jacobian = \"fd\"" end
  local nz = ffi.new("double[?]", math.max(t.nnz, 1))
  local rc = t.jac(ctx.ptr, nz)
  if rc ~= 0 then
    return nil, ffi.string(t.name) .. " failed with status " .. rc .. " (" .. ffi.string(ffi.C.diagc_status_message(rc)) .. ")"
  end
  local J = zeros(t.nrow, t.ncol)
  for col = 0, t.ncol - 1 do
    for k = t.colptr[col], t.colptr[col + 1] - 1 do J[t.rowind[k] + 1][col + 1] = nz[k] end
  end
  return J
end

-- x+ at context c (modified): the timing's handlers on one buffer, then
-- their applies; returns the state (xc then xd) or nil, message
local function apply_update(d, c, t)
  local buf = ffi.new("char[?]", math.max(tonumber(d.state_size), 1))
  ffi.copy(buf, ffi.cast("char *", c.ptr) + d.state_offset, d.state_size)
  local evs = {}
  for i = 0, d.n_events - 1 do
    local e = d.events[i]
    if e.trigger == K.DIAGC_TRIGGER_PERIODIC and e.kind == K.DIAGC_DISCRETE_UPDATE
        and e.period == t.period and e.offset == t.offset then
      evs[#evs + 1] = e
    end
  end
  for _, e in ipairs(evs) do
    local rc = e.handler(c.ptr, buf)
    if rc == K.DIAGC_FAILED then return nil, ffi.string(e.name) .. " failed" end
    if rc < 0 then -- failed, saying why (diagc/model.h)
      return nil, ffi.string(e.name) .. " failed: " .. ffi.string(ffi.C.diagc_status_message(rc))
    end
  end
  for _, e in ipairs(evs) do e.apply(c.ptr, buf) end
  local x = {}
  local xc = ffi.cast("double *", ffi.cast("char *", c.ptr) + d.xc_offset)
  local xd = ffi.cast("double *", ffi.cast("char *", c.ptr) + d.xd_offset)
  for i = 0, d.nxc - 1 do x[#x + 1] = xc[i] end
  for i = 0, d.nxd - 1 do x[#x + 1] = xd[i] end
  return x
end

-- the context ctx with column j (0-based: xc, xd, then u) moved by dv
local function perturbed(d, ctx, j, dv)
  local c = ctx:clone()
  local nx = d.nxc + d.nxd
  if j < nx then
    local st = ffi.new("char[?]", math.max(tonumber(d.state_size), 1))
    ffi.copy(st, ffi.cast("char *", c.ptr) + d.state_offset, d.state_size)
    local off = j < d.nxc and (d.xc_offset + 8 * j) or (d.xd_offset + 8 * (j - d.nxc))
    local p = ffi.cast("double *", st + (off - d.state_offset))
    p[0] = p[0] + dv
    d.set_state(c.ptr, st)
    return c
  end
  local k = j - nx
  for b = 0, d.n_lin_inputs - 1 do
    local si = d.lin_inputs[b]
    local s = d.sources[si]
    if k < s.size then
      local v = ffi.new("double[?]", s.size)
      ffi.copy(v, ffi.cast("char *", c.ptr) + s.offset, 8 * s.size)
      v[k] = v[k] + dv
      d.set_source(c.ptr, si, v)
      return c
    end
    k = k - s.size
  end
  error("testing/linear: no column " .. j)
end

local function value_of(d, ctx, j)
  local nx = d.nxc + d.nxd
  if j < nx then
    local off = j < d.nxc and (d.xc_offset + 8 * j) or (d.xd_offset + 8 * (j - d.nxc))
    return ffi.cast("double *", ffi.cast("char *", ctx.ptr) + off)[0]
  end
  local k = j - nx
  for b = 0, d.n_lin_inputs - 1 do
    local s = d.sources[d.lin_inputs[b]]
    if k < s.size then return ffi.cast("double *", ffi.cast("char *", ctx.ptr) + s.offset)[k] end
    k = k - s.size
  end
end

M.apply_update = apply_update

-- central differences of x+, step cbrt(eps) max(1, |value|)
local function differences(d, ctx, t)
  local J = zeros(t.nrow, t.ncol)
  for j = 0, t.ncol - 1 do
    local h = 6.0554544523933395e-06 * math.max(1, math.abs(value_of(d, ctx, j)))
    local xp, e1 = apply_update(d, perturbed(d, ctx, j, h), t)
    if not xp then return nil, e1 end
    local xm, e2 = apply_update(d, perturbed(d, ctx, j, -h), t)
    if not xm then return nil, e2 end
    for i = 1, t.nrow do J[i][j + 1] = (xp[i] - xm[i]) / (2 * h) end
  end
  return J
end

function M.update_jacobian(model, ctx, opts)
  opts = opts or {}
  local d = model.desc
  local k, why = pick_timing(d, opts)
  if not k then return nil, why end
  local t = d.jac_updates[k]
  local jac = opts.jacobian or "model"
  local J, err
  if jac == "fd" then J, err = differences(d, ctx, t)
  elseif jac == "model" then J, err = generated(ctx, t)
  else return nil, "unknown jacobian '" .. tostring(jac) .. "' (model, fd)" end
  if not J then return nil, err end
  local rows, cols = update_names(d)
  local pattern
  if t.jac ~= nil then
    pattern = {}
    for col = 0, t.ncol - 1 do
      for q = t.colptr[col], t.colptr[col + 1] - 1 do pattern[#pattern + 1] = { t.rowind[q] + 1, col + 1 } end
    end
  end
  return { J = J, rows = rows, cols = cols, name = ffi.string(t.name), period = t.period, offset = t.offset,
    pattern = pattern }
end

return M
