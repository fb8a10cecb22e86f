-- cdiff/iface.lua: the interface cdiff needs for one calc of a leaf.
-- Takes the checked leaf, the calc and its parameters (as
-- check/scope.lua's params(leaf, calc) lists them: {key=, name=, ctype=,
-- write=}); adds the interface of cdiff/unroll.lua: every value the calc
-- reads as an input (its Jacobian's columns: time, q, v, z, discrete
-- groups, numeric parameters, input ports, cache entries, xcdot, energies;
-- `accuracy` is read but not differentiated), every value it writes as
-- an output (an update's X_next preloaded with X, which becomes a hidden
-- column when the update does not read X), and the value of a witness
-- (`value`) or of a next_update_time calc (`t_next`).
--
-- of(leaf, calc, params) -> iface | nil, why (a calc reading or writing a
-- value of a C type other than double has no Jacobian).
local M = {}

local function size_of(leaf, calc, key)
  if key == "self" then return calc.item and calc.item.size or 1 end
  local part = key:match("^builtin:xcdot:(%a)$") or key:match("^next:(%a)$") or key:match("^self:(%a)$")
    or key
  if part == "q" or part == "v" or part == "z" then return #leaf[part] end
  if key:match("^builtin:") then return 1 end
  local name = key:match("^next:xd:(.*)$") or key:match("^%a+:(.*)$")
  local it = leaf.names[name]
  return it and it.size or 1
end

local function typed(p)
  return p.ctype:gsub("const ", ""):gsub("%s*%*$", "")
end

function M.of(leaf, calc, params)
  local inputs, outputs, read = {}, {}, {}
  for _, p in ipairs(params) do
    local ty = typed(p)
    if ty ~= "double" then
      return nil, string.format("'%s' is of C type %s", p.name, ty)
    end
    if p.write then
      local out = { name = p.name, size = size_of(leaf, calc, p.key) }
      local state = p.key:match("^next:xd:(.*)$") or p.key:match("^next:(%a)$")
      if state then out.preload = state end
      outputs[#outputs + 1] = out
    elseif p.key == "t" or p.key == "accuracy" then
      inputs[#inputs + 1] = { name = p.name, active = p.key ~= "accuracy" or nil }
      read[p.name] = true
    else
      inputs[#inputs + 1] = { name = p.name, size = size_of(leaf, calc, p.key) }
      read[p.name] = true
    end
  end
  for _, o in ipairs(outputs) do
    if o.preload and not read[o.preload] then
      inputs[#inputs + 1] = { name = o.preload, size = o.size, hidden = true }
      read[o.preload] = true
    end
  end
  if calc.kind == "witness" then outputs[#outputs + 1] = { name = "value" } end
  if calc.kind == "next_update_time" then outputs[#outputs + 1] = { name = "t_next" } end
  return { inputs = inputs, outputs = outputs }
end

return M
