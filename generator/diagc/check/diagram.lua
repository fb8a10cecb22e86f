-- check/diagram.lua: validate a diagram declaration (subsystems, wiring,
-- exports, fixed inputs, loggers) against its children's checked types.
--
-- A checked diagram type D (M.check(frozen diagram, check_type)):
--   D.kind = "diagram", D.name, D.loc
--   D.systems      {name=, type= (checked type), loc=, params= {{path=, value=,
--                  loc=}} (parameter overrides, checked by flatten)} in order;
--                  D.by_name: name -> system
--   D.connections  {from = {sys=, port=}, to = {sys=, port=}, loc=}
--   D.inputs       exported inputs {name=, size=, targets= {{sys=, port=}},
--                  default= (numbers or nil), loc=, unit= (the first target's)}
--   D.outputs      exported outputs {name=, size=, source= {sys=, port=}, loc=,
--                  elements=, unit= (the source port's, or nil)}
--   D.fixed        fixed inputs {target= {sys=, port=}, value=, loc=}
--   D.logs         {name=, source= {sys=, port=}, period=, loc=}; a log of a
--                  leaf's state reads the port check/state_log.lua adds
--   D.jac_params   numeric parameters asked for by parameter_jacobian:
--                  {path= ("sys.param", "sub.sys.param"), size=, loc=}
-- sys is a D.systems entry, port a port of its type (M.ports).  Every
-- child input has exactly one source and connected sizes agree.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local util = require("diagc.util")
local dsl = require("diagc.spec.dsl")
local state_log = require("diagc.check.state_log")
local added_port = require("diagc.check.added_port")

local M = {}

-- The ports a checked system type offers: list of {name, size}.
function M.ports(t, dir)
  if t.kind == "leaf" then return t.by_kind[dir] end
  return dir == "input" and t.inputs or t.outputs
end

-- A port's name in paths: its label ("ball.pose", a world's per-body
-- ports) or its name.
function M.port_name(p) return p.label or p.name end

local function find_port(t, dir, name)
  for _, p in ipairs(M.ports(t, dir)) do
    if M.port_name(p) == name and not p.from_state then return p end
  end
end

-- A numeric parameter of a leaf below diagram d, named "sys.param" or
-- "sub.sys.param" (item: the parameter_jacobian declaration; i: which of
-- its names) -> {path=, size=, loc=}
function M.param_ref(d, item, ref, i)
  if type(ref) ~= "string" or not ref:find("^[%w_]+%.[%w_.]+$") then
    errors.raise(item.loc, "parameter_jacobian: name %d must be a \"system.parameter\" string", i)
  end
  local t, segs = d, {}
  for seg in ref:gmatch("[^.]+") do segs[#segs + 1] = seg end
  for k = 1, #segs - 1 do
    local child = t.kind == "diagram" and t.by_name[segs[k]]
    if not child then
      errors.raise(item.loc, "parameter_jacobian '%s': no subsystem '%s' in diagram \"%s\"", ref, segs[k], t.name)
    end
    t = child.type
  end
  local it = t.kind == "leaf" and t.names[segs[#segs]]
  if not it or it.kind ~= "pn" then
    errors.raise(item.loc, "parameter_jacobian '%s': %s has no numeric parameter '%s'", ref,
      t.kind == "leaf" and ("leaf \"" .. t.name .. "\"") or ("diagram \"" .. t.name .. "\""), segs[#segs])
  end
  return { path = ref, size = it.size, loc = item.loc }
end

-- check_type(spec) -> checked type (memoized by the caller)
function M.check(spec, check_type)
  local d = {
    kind = "diagram", name = spec.name, loc = spec.loc,
    systems = {}, by_name = {}, connections = {}, inputs = {}, outputs = {},
    fixed = {}, logs = {}, jac_params = {},
  }
  fields.identifier(spec.loc, "diagram name", spec.name)
  local input_source = {} -- "sys.port" -> description of what drives it

  -- "sys.port" -> child, port
  local function port_ref(item, ref, dir, what)
    if type(ref) ~= "string" then
      errors.raise(item.loc, "%s must be a \"system.port\" string", what)
    end
    local sys, port = ref:match("^([^.]+)%.([^.]+)$")
    if not sys and dir == "output" then sys, port = ref:match("^([^.]+)%.([^.].*[^.])$") end
    if not sys then
      errors.raise(item.loc, "%s '%s' must have the form \"system.port\"", what, ref)
    end
    local child = d.by_name[sys]
    if not child then
      local names = {}
      for _, s in ipairs(d.systems) do names[#names + 1] = s.name end
      local best = util.suggest(sys, names)
      errors.raise(item.loc, "%s '%s': diagram \"%s\" has no subsystem '%s'%s", what, ref, d.name, sys,
        best and string.format("; did you mean '%s'?", best) or
        " (add it with system { \"" .. sys .. "\", Type } before referring to it)")
    end
    local p = find_port(child.type, dir, port)
    -- a world's per-body and per-joint ports exist once referred to
    if not p and dir == "output" then p = added_port.world(child.type, port) end
    if not p then
      local other = find_port(child.type, dir == "input" and "output" or "input", port)
      if other then
        errors.raise(item.loc, "%s '%s' is an %s port of '%s', but an %s port is needed here",
          what, ref, dir == "input" and "output" or "input", sys, dir)
      end
      local names = {}
      for _, q in ipairs(M.ports(child.type, dir)) do
        if not q.from_state then names[#names + 1] = M.port_name(q) end
      end
      if dir == "output" and child.type.world then
        for _, l in ipairs(require("diagc.world.signals").labels(child.type.world)) do names[#names + 1] = l end
      end
      local best = util.suggest(port, names)
      errors.raise(item.loc, "%s '%s': subsystem '%s' (%s \"%s\") has no %s port '%s'%s", what, ref,
        sys, child.type.kind, child.type.name, dir, port,
        best and string.format("; did you mean '%s'?", best) or
        (#names > 0 and " (its " .. dir .. " ports: " .. table.concat(names, ", ") .. ")" or
          " (it has no " .. dir .. " ports)"))
    end
    return child, p, ref
  end

  local function claim_input(item, ref, how)
    if input_source[ref] then
      errors.raise(item.loc, "input port '%s' is already %s; an input has exactly one source", ref, input_source[ref])
    end
    input_source[ref] = how
  end

  for _, item in ipairs(spec.items) do
    local k, a = item._item, item.args
    if k == "system" then
      fields.only(item, { "name", "parameters" }, 2)
      local name = fields.name(item, "subsystem name")
      local t = a[2]
      if not dsl.is_system(t) then
        errors.raise(item.loc, "system \"%s\" needs a leaf or diagram as its second value, got %s",
          name, type(t))
      end
      if d.by_name[name] then
        errors.raise(item.loc, "diagram \"%s\" already has a subsystem named '%s'", d.name, name)
      end
      local child = { name = name, type = check_type(t), loc = item.loc, params = {} }
      if a.parameters ~= nil then
        if type(a.parameters) ~= "table" then
          errors.raise(item.loc, "parameters must be a table such as { k = {2.0} }")
        end
        for _, pk in ipairs(util.sorted_keys(a.parameters)) do
          if type(pk) ~= "string" then
            errors.raise(item.loc, "parameters keys must be parameter names")
          end
          child.params[#child.params + 1] = { path = pk, value = a.parameters[pk], loc = item.loc }
        end
      end
      d.systems[#d.systems + 1] = child
      d.by_name[name] = child
    elseif k == "connect" then
      fields.only(item, {}, 2)
      local src, op = port_ref(item, a[1], "output", "connect source")
      local dst, ip, dref = port_ref(item, a[2], "input", "connect destination")
      if op.size ~= ip.size then
        errors.raise(item.loc, "connect: '%s' has size %d but '%s' has size %d", a[1], op.size, a[2], ip.size)
      end
      claim_input(item, dref, "connected to '" .. a[1] .. "'")
      d.connections[#d.connections + 1] = { from = { sys = src, port = op }, to = { sys = dst, port = ip }, loc = item.loc }
    elseif k == "export_input" then
      fields.only(item, { "as", "default" }, 64)
      if a[1] == nil then errors.raise(item.loc, "export_input needs at least one \"system.port\"") end
      local targets, size = {}, nil
      for i = 1, #a do
        local child, p, ref = port_ref(item, a[i], "input", "export_input")
        if size and p.size ~= size then
          errors.raise(item.loc, "export_input: '%s' has size %d, unlike the other targets (size %d)", ref, p.size, size)
        end
        size = p.size
        claim_input(item, ref, "exported")
        targets[#targets + 1] = { sys = child, port = p }
      end
      local name = a.as
      if name == nil then name = targets[1].port.name end
      fields.identifier(item.loc, "exported input name", name)
      for _, p in ipairs(d.inputs) do
        if p.name == name then errors.raise(item.loc, "diagram \"%s\" already exports an input named '%s'", d.name, name) end
      end
      local def
      if a.default ~= nil then def = fields.vector(item.loc, "export_input default", a.default, size) end
      d.inputs[#d.inputs + 1] = { name = name, size = size, targets = targets, loc = item.loc, default = def,
        unit = targets[1].port.unit }
    elseif k == "export_output" then
      fields.only(item, { "as" }, 1)
      local child, p = port_ref(item, a[1], "output", "export_output")
      local name = a.as
      if name == nil then name = p.label and p.label:gsub("%.", "_") or p.name end
      fields.identifier(item.loc, "exported output name", name)
      for _, q in ipairs(d.outputs) do
        if q.name == name then errors.raise(item.loc, "diagram \"%s\" already exports an output named '%s'", d.name, name) end
      end
      d.outputs[#d.outputs + 1] = { name = name, size = p.size, source = { sys = child, port = p }, loc = item.loc,
        elements = p.elements, unit = p.unit }
    elseif k == "fix_input" then
      fields.only(item, { "value" }, 1)
      local child, p, ref = port_ref(item, a[1], "input", "fix_input")
      if a.value == nil then errors.raise(item.loc, "fix_input '%s' needs value = {...}", ref) end
      local v = fields.vector(item.loc, "fix_input value", a.value, p.size)
      claim_input(item, ref, "fixed")
      d.fixed[#d.fixed + 1] = { target = { sys = child, port = p }, value = v, loc = item.loc }
    elseif k == "parameter_jacobian" then
      fields.only(item, {}, #a)
      if #a == 0 then
        errors.raise(item.loc, "parameter_jacobian needs at least one \"system.parameter\" name")
      end
      for i, ref in ipairs(a) do d.jac_params[#d.jac_params + 1] = M.param_ref(d, item, ref, i) end
    elseif k == "log" then
      fields.only(item, { "period", "name" }, 1)
      local child, p, ref
      local sys, st
      if type(a[1]) == "string" then sys, st = a[1]:match("^([^.]+)%.(.+)$") end
      if sys and d.by_name[sys] and not find_port(d.by_name[sys].type, "output", st) then
        p = state_log.port(d.by_name[sys].type, st)
        if p then child, ref = d.by_name[sys], a[1] end
      end
      if not p then child, p, ref = port_ref(item, a[1], "output", "log") end
      local period = a.period == nil and 0 or fields.number(item.loc, "log period", a.period)
      if period < 0 then errors.raise(item.loc, "log period must be >= 0 (0 logs every step)") end
      local name = a.name or ref
      if type(name) ~= "string" or name == "" or name:find("[,\n\"]") then
        errors.raise(item.loc, "log name must be a non-empty string without commas, quotes or newlines")
      end
      d.logs[#d.logs + 1] = { name = name, source = { sys = child, port = p }, period = period, loc = item.loc }
    end
  end

  -- every child input needs a source
  for _, s in ipairs(d.systems) do
    for _, p in ipairs(M.ports(s.type, "input")) do
      local ref = s.name .. "." .. p.name
      if not input_source[ref] then
        errors.raise(s.loc, "input port '%s' of diagram \"%s\" has no source; connect it, "
          .. "export it (export_input) or fix it (fix_input)", ref, d.name)
      end
    end
  end
  return d
end

return M
