-- check/leaf.lua: validate a leaf declaration and normalize it into a
-- checked leaf type (the "checked model" for leaves).
--
-- A checked leaf type T (M.check(frozen leaf, sources, id)):
--   T.kind = "leaf", T.name, T.loc, T.id
--   T.q, T.v, T.z     names of the continuous state's elements ("q[0]", ...
--                     for a count); T.q0, T.v0, T.z0 their initial values
--   T.by_kind[k]      for k in vocab/kinds.order (xd xa pn pa input output
--                     cache): the items of that kind in declaration order,
--                     each {kind=k, name=, loc=, index= 1-based in by_kind[k]}
--                     plus: xd, pn: size=, default= (numbers); xa, pa:
--                     ctype=, init= (C text or nil); input, output: size=;
--                     cache: size= (vector) or ctype=, init= (typed);
--                     output, cache: calc= (their calc, below)
--   T.names           name -> item; T.name_order: the names in declaration order
--   T.computed[tk]    the calc of built-in value tk (xcdot pe ke pc pnc) if declared
--   T.calcs           every calc of outputs, cache entries, computed values and
--                     events (witness and next_update_time events included), in
--                     declaration order
--   T.events          the event calcs, in declaration order
--   T.witnesses       {name=, loc=, direction=, c_direction=, calc=, event= or nil}
--   T.timed           next_update_time items {name=, loc=, calc=, event=}, or nil
--   T.preambles       {text=, loc={file=, line=, col=}} per c_preamble
-- A calc: {kind = "output" | "cache" | a computed ticket | "event" | "witness"
--   | "next_update_time", name=, loc=, body= (C text), body_loc= (where
--   the body starts in its file), prereqs= (ticket names; the default list
--   when none is given), default_prereqs= (true when defaulted), params=
--   (check/scope.params: the calc function's parameters), item= (outputs
--   and cache entries)}; an event also has trigger= ("periodic" "per_step"
--   "initialization" "witness" "timed"), event_kind= ("publish"
--   "discrete_update" "unrestricted_update"), period=, offset= (periodic)
--   and writes= (updates: the state names it writes, check/writes.lua).
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")
local prereqs = require("diagc.check.prereqs")
local writes = require("diagc.check.writes")
local witness = require("diagc.check.witness")
local next_update = require("diagc.check.next_update")
local scope = require("diagc.check.scope")

local M = {}

local EVENT_ITEMS = {
  periodic_publish = { "periodic", "publish" },
  periodic_discrete_update = { "periodic", "discrete_update" },
  periodic_unrestricted_update = { "periodic", "unrestricted_update" },
  per_step_publish = { "per_step", "publish" },
  per_step_discrete_update = { "per_step", "discrete_update" },
  per_step_unrestricted_update = { "per_step", "unrestricted_update" },
  initialization_publish = { "initialization", "publish" },
  initialization_discrete_update = { "initialization", "discrete_update" },
  initialization_unrestricted_update = { "initialization", "unrestricted_update" },
}

local COMPUTED_ITEM = {}
for t, word in pairs(builtin.computed) do COMPUTED_ITEM[word] = t end

function M.check(spec, sources, type_id)
  local leaf = {
    kind = "leaf", name = spec.name, loc = spec.loc, id = type_id,
    preambles = {}, q = {}, v = {}, z = {}, q0 = {}, v0 = {}, z0 = {},
    by_kind = {}, names = {}, name_order = {}, computed = {}, events = {}, calcs = {}, witnesses = {},
  }
  for _, k in ipairs(kinds.order) do leaf.by_kind[k] = {} end
  fields.identifier(spec.loc, "leaf name", spec.name)
  local has_xc = false

  local function declare(item, kind, name)
    if builtin.reserved[name] or name:match("_next$") then
      errors.raise(item.loc, "'%s' is reserved in calc bodies (built-in ticket or generated name); "
        .. "choose another name", name)
    end
    local prev = leaf.names[name]
    if prev then
      errors.raise(item.loc, "leaf \"%s\" already declares '%s' (as %s at line %d); names must be "
        .. "unique within a leaf", leaf.name, name, kinds.words[prev.kind], prev.loc.line)
    end
    local it = { kind = kind, name = name, loc = item.loc, index = #leaf.by_kind[kind] + 1 }
    leaf.names[name] = it
    leaf.name_order[#leaf.name_order + 1] = name
    table.insert(leaf.by_kind[kind], it)
    return it
  end

  local explicit_event_names = {}
  for _, item in ipairs(spec.items) do
    if EVENT_ITEMS[item._item] then
      local n = item.args[1] or item.args.name
      if type(n) == "string" then explicit_event_names[n] = true end
    end
  end

  -- pass 1: sources and ports (names must exist before prerequisites refer to them)
  local deferred = {}
  for _, item in ipairs(spec.items) do
    local k, a = item._item, item.args
    if k == "continuous_state" then
      fields.only(item, { "q", "v", "z", "q0", "v0", "z0" })
      if has_xc then errors.raise(item.loc, "leaf \"%s\" declares continuous_state twice; "
        .. "declare q, v and z in one continuous_state", leaf.name) end
      has_xc = true
      for _, part in ipairs({ "q", "v", "z" }) do
        local spec_part = a[part]
        local names = {}
        if type(spec_part) == "number" then
          if spec_part ~= math.floor(spec_part) or spec_part < 0 then
            errors.raise(item.loc, "continuous_state %s must be a count or a list of names", part)
          end
          for i = 1, spec_part do names[i] = part .. "[" .. (i - 1) .. "]" end
        elseif type(spec_part) == "table" then
          for i, n in ipairs(spec_part) do
            names[i] = fields.identifier(item.loc, "continuous_state " .. part .. " element", n)
          end
        elseif spec_part ~= nil then
          errors.raise(item.loc, "continuous_state %s must be a count or a list of names", part)
        end
        leaf[part] = names
        local d = a[part .. "0"]
        if d ~= nil then
          leaf[part .. "0"] = fields.vector(item.loc, "continuous_state " .. part .. "0", d, #names)
        else
          local z = {}
          for i = 1, #names do z[i] = 0 end
          leaf[part .. "0"] = z
        end
      end
      if #leaf.q + #leaf.v + #leaf.z == 0 then
        errors.raise(item.loc, "continuous_state declares no variables; give q, v or z")
      end
    elseif k == "discrete_state" or k == "parameter" then
      fields.only(item, { "name", "size", "default" }, 1)
      local name = fields.name(item)
      local size = a.size and fields.positive_int(item.loc, k .. " size", a.size)
      local def
      if a.default ~= nil then
        def = fields.vector(item.loc, k .. " '" .. name .. "' default", a.default, size)
      elseif size then
        def = {}
        for i = 1, size do def[i] = 0 end
      else
        errors.raise(item.loc, "%s '%s' needs a size or a default, as in %s { \"%s\", default = {0} }",
          k, name, k, name)
      end
      local it = declare(item, k == "discrete_state" and "xd" or "pn", name)
      it.size, it.default = #def, def
    elseif k == "abstract_state" or k == "abstract_parameter" then
      fields.only(item, { "name", "type", "init" }, 1)
      local name = fields.name(item)
      local it = declare(item, k == "abstract_state" and "xa" or "pa", name)
      it.ctype = fields.c_type(item.loc, k .. " type", a.type)
      if a.init ~= nil then it.init = fields.c_code(item.loc, k .. " init", a.init) end
    elseif k == "input_port" then
      fields.only(item, { "name", "size" }, 1)
      local name = fields.name(item)
      local it = declare(item, "input", name)
      it.size = fields.positive_int(item.loc, "input_port size", a.size)
    elseif k == "output_port" then
      fields.only(item, { "name", "size", "calc", "prerequisites" }, 1)
      local name = fields.name(item)
      local it = declare(item, "output", name)
      it.size = fields.positive_int(item.loc, "output_port size", a.size)
      deferred[#deferred + 1] = { item = item, it = it }
    elseif k == "cache_entry" then
      fields.only(item, { "name", "size", "type", "init", "calc", "prerequisites" }, 1)
      local name = fields.name(item)
      local it = declare(item, "cache", name)
      if a.size ~= nil and a.type ~= nil then
        errors.raise(item.loc, "cache_entry '%s' has both size and type; a cache entry is either a "
          .. "vector (size) or a C value (type)", name)
      elseif a.type ~= nil then
        it.ctype = fields.c_type(item.loc, "cache_entry type", a.type)
        if a.init ~= nil then it.init = fields.c_code(item.loc, "cache_entry init", a.init) end
      else
        if a.init ~= nil then
          errors.raise(item.loc, "cache_entry '%s': init is only for typed entries (type = ...)", name)
        end
        it.size = fields.positive_int(item.loc, "cache_entry size", a.size)
      end
      deferred[#deferred + 1] = { item = item, it = it }
    elseif k == "c_preamble" then
      fields.only(item, {}, 1)
      local text = fields.c_code(item.loc, "c_preamble", a[1])
      leaf.preambles[#leaf.preambles + 1] = { text = text, loc = fields.locate(sources, item.loc, text) }
    else
      deferred[#deferred + 1] = { item = item }
    end
  end

  -- an abstract value's C type must be a C type or defined in this leaf's c_preamble
  local BUILTIN_TYPES = { int = true, double = true, float = true, char = true, long = true,
    short = true, unsigned = true, signed = true, _Bool = true, size_t = true }
  for w in ("int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t"):gmatch("%S+") do
    BUILTIN_TYPES[w] = true
  end
  local function check_ctype(it, what)
    local last = it.ctype:match("([%w_]+)$")
    if BUILTIN_TYPES[last] then return end
    for _, pre in ipairs(leaf.preambles) do
      if pre.text:find("%f[%w_]" .. last .. "%f[^%w_]") then return end
    end
    errors.raise(it.loc, "%s '%s': unknown C type '%s'; define it in a c_preamble", what, it.name, it.ctype)
  end
  for _, it in ipairs(leaf.by_kind.xa) do check_ctype(it, "abstract_state") end
  for _, it in ipairs(leaf.by_kind.pa) do check_ctype(it, "abstract_parameter") end
  for _, it in ipairs(leaf.by_kind.cache) do if it.ctype then check_ctype(it, "cache_entry") end end

  local function calc_of(item, kind, name, default_prereqs, self_name)
    local a = item.args
    if a.calc == nil then
      errors.raise(item.loc, "%s needs a calc = [[ C statements ]]", item._item)
    end
    local body = fields.c_code(item.loc, item._item .. " calc", a.calc)
    local list, is_default = prereqs.check(leaf, item, self_name, default_prereqs)
    local c = { kind = kind, name = name, loc = item.loc, body = body,
      body_loc = fields.locate(sources, item.loc, body),
      prereqs = list, default_prereqs = is_default }
    leaf.calcs[#leaf.calcs + 1] = c
    return c
  end

  -- pass 2: calcs and events
  for _, d in ipairs(deferred) do
    local item, k, a = d.item, d.item._item, d.item.args
    if k == "output_port" or k == "cache_entry" then
      d.it.calc = calc_of(item, d.it.kind, d.it.name, builtin.default_list, d.it.name)
      d.it.calc.item = d.it
    elseif COMPUTED_ITEM[k] then
      local ticket = COMPUTED_ITEM[k]
      fields.only(item, { "calc", "prerequisites" })
      if leaf.computed[ticket] then
        errors.raise(item.loc, "leaf \"%s\" declares %s twice", leaf.name, k)
      end
      if ticket == "xcdot" and not has_xc then
        errors.raise(item.loc, "leaf \"%s\" declares derivatives but no continuous_state", leaf.name)
      end
      leaf.computed[ticket] = calc_of(item, ticket, ticket, builtin.default_prereqs[ticket], ticket)
    elseif EVENT_ITEMS[k] then
      local trig, kind = EVENT_ITEMS[k][1], EVENT_ITEMS[k][2]
      local allowed = { "name", "calc", "prerequisites" }
      if trig == "periodic" then allowed[#allowed + 1] = "period"; allowed[#allowed + 1] = "offset" end
      if kind ~= "publish" then allowed[#allowed + 1] = "writes" end
      fields.only(item, allowed, 1)
      local name = a[1] or a.name
      if name ~= nil then
        fields.identifier(item.loc, "event name", name)
      else
        -- kind_<n>, skipping names the leaf gives its events explicitly and
        -- names already given
        local n = #leaf.events
        while explicit_event_names[kind .. "_" .. n] do n = n + 1 end
        name = kind .. "_" .. n
        explicit_event_names[name] = true
      end
      for _, e in ipairs(leaf.events) do
        if e.name == name then errors.raise(item.loc, "leaf \"%s\" already has an event named '%s'", leaf.name, name) end
      end
      local ev = calc_of(item, "event", name, builtin.default_list, nil)
      ev.trigger, ev.event_kind = trig, kind
      if trig == "periodic" then
        ev.period = fields.number(item.loc, k .. " period", a.period)
        if ev.period <= 0 then errors.raise(item.loc, "%s period must be positive, got %s", k, tostring(a.period)) end
        ev.offset = a.offset == nil and 0 or fields.number(item.loc, k .. " offset", a.offset)
        if ev.offset < 0 then errors.raise(item.loc, "%s offset must be non-negative", k) end
      end
      -- writes: which state the handler may write
      if kind ~= "publish" then
        ev.writes = writes.check(item, writes.allowed(leaf, item, kind, k), k)
      end
      leaf.events[#leaf.events + 1] = ev
    elseif k == "witness" then
      witness.check(leaf, item, sources)
    elseif k == "next_update_time" then
      next_update.check(leaf, item, sources)
    end
  end

  local all_calcs = {}
  for _, c in ipairs(leaf.calcs) do all_calcs[#all_calcs + 1] = c end
  for _, w in ipairs(leaf.witnesses) do all_calcs[#all_calcs + 1] = w.calc end
  for _, d in ipairs(leaf.timed or {}) do all_calcs[#all_calcs + 1] = d.calc end
  for _, c in ipairs(all_calcs) do
    for _, t in ipairs(c.prereqs) do
      if builtin.computed[t] and not leaf.computed[t] then
        errors.raise(c.loc, "prerequisite '%s' names a value leaf \"%s\" does not declare; "
          .. "declare %s { calc = ... } in the leaf or remove it", t, leaf.name, builtin.computed[t])
      end
    end
  end
  if has_xc and not leaf.computed.xcdot then
    errors.raise(spec.loc, "leaf \"%s\" has continuous state but no derivatives { calc = ... }", leaf.name)
  end
  for _, c in ipairs(all_calcs) do c.params = scope.params(leaf, c) end
  return leaf
end

return M
