-- cli/info.lua: diagc info SPEC.lua [--json] [-o FILE] -- what a model
-- contains: its systems (a tree), ports (sizes and wiring), states,
-- parameters (defaults after the spec's overrides), events, witnesses,
-- loggers and the generated Jacobians (cache entries of their own, with
-- their prerequisites: coder/jacobian_cache.lua).  Read from the checked and flattened model: nothing is compiled
-- or run.  Text for people, JSON (sorted keys) for programs.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local compile = require("diagc.compile")
local output = require("diagc.cli.output")
local json = require("diagc.cli.json")
local util = require("diagc.util")
local info_world = require("diagc.cli.info_world")
local columns = require("diagc.cli.columns")

local M = {}

local function join(a, b) return a == "" and b or (a .. "." .. b) end

local function system_tree(ctx)
  local node = { path = ctx.path, name = ctx.path == "" and ctx.type.name or ctx.name,
    kind = ctx.kind, type = ctx.type.name, systems = json.array() }
  for _, ch in ipairs(ctx.children) do node.systems[#node.systems + 1] = system_tree(ch) end
  return node
end

-- where an input port's values come from, in words
local function source_of(F, ctx, port)
  local s = ctx.input_src[port]
  if not s then return "unconnected" end
  if s.kind == "peer" then return join(s.ctx.path, s.port) end
  if s.kind == "parent" then return join(s.ctx.path, s.port) .. " (diagram input)" end
  if s.kind == "fixed" then return "fixed " .. table.concat(s.slot.default, ", ") end
  if s.kind == "root" then return "model input " .. s.slot.name end
  return s.kind
end

local function ports(F)
  local list = json.array()
  local readers = {} -- output path -> {input paths}
  for _, ctx in ipairs(F.contexts) do
    for port, s in pairs(ctx.input_src) do
      if s.kind == "peer" then
        local key = join(s.ctx.path, s.port)
        readers[key] = readers[key] or {}
        table.insert(readers[key], join(ctx.path, port))
      end
    end
  end
  for _, r in pairs(readers) do table.sort(r) end
  for _, ctx in ipairs(F.contexts) do
    local t = ctx.type
    local ins = ctx.kind == "leaf" and t.by_kind.input or t.inputs
    local outs = ctx.kind == "leaf" and t.by_kind.output or t.outputs
    for _, p in ipairs(ins) do
      local e = { path = join(ctx.path, p.name), direction = "input", size = p.size,
        from = source_of(F, ctx, p.name), system = ctx.path, name = p.name, unit = p.unit }
      local s = ctx.input_src[p.name]
      if s and (s.kind == "peer" or s.kind == "parent") then
        e.source = { system = s.ctx.path, port = s.port } -- the same, as a pair (the viewer's wires)
      end
      if ctx == F.root then e.from = "model input"; e.source = nil end
      list[#list + 1] = e
    end
    for _, p in ipairs(outs) do
      if p.from_state then goto next_port end -- a logged state (check/state_log.lua): listed with the loggers
      local e = { path = join(ctx.path, p.label or p.name), direction = "output", size = p.size,
        to = json.array(readers[join(ctx.path, p.name)] or {}),
        elements = p.elements and json.array(p.elements) or nil, system = ctx.path, name = p.label or p.name,
        unit = p.unit }
      if ctx.kind == "diagram" then
        local src = ctx.output_src[p.name]
        e.from = join(src.ctx.path, src.port)
        e.source = { system = src.ctx.path, port = src.port }
      end
      list[#list + 1] = e
      ::next_port::
    end
  end
  return list
end

local function states(F)
  local list = json.array()
  for _, ctx in ipairs(F.leaves) do
    local t = ctx.type
    for _, part in ipairs({ "q", "v", "z" }) do
      if #t[part] > 0 then
        list[#list + 1] = { path = join(ctx.path, part), kind = "continuous " .. part, size = #t[part],
          elements = json.array(t[part]), initial = json.array(t[part .. "0"]) }
      end
    end
    for _, g in ipairs(t.by_kind.xd) do
      list[#list + 1] = { path = join(ctx.path, g.name), kind = "discrete", size = g.size,
        initial = json.array(g.default), elements = g.elements and json.array(g.elements) or nil }
    end
    for _, g in ipairs(t.by_kind.xa) do
      list[#list + 1] = { path = join(ctx.path, g.name), kind = "abstract", ctype = g.ctype }
    end
  end
  return list
end

local function parameters(F)
  local list = json.array()
  for _, ctx in ipairs(F.leaves) do
    for _, p in ipairs(ctx.type.by_kind.pn) do
      list[#list + 1] = { path = join(ctx.path, p.name), kind = "numeric", size = p.size,
        default = json.array(ctx.param_values[p.name]) }
    end
    for _, p in ipairs(ctx.type.by_kind.pa) do
      list[#list + 1] = { path = join(ctx.path, p.name), kind = "abstract", ctype = p.ctype }
    end
  end
  return list
end

local function events(F)
  local list, wit = json.array(), json.array()
  for _, ctx in ipairs(F.leaves) do
    for _, e in ipairs(ctx.type.events) do
      list[#list + 1] = { path = join(ctx.path, e.name), trigger = e.trigger, kind = e.event_kind,
        period = e.period, offset = e.period and e.offset or nil }
    end
    for _, w in ipairs(ctx.type.witnesses) do
      wit[#wit + 1] = { path = join(ctx.path, w.name), direction = w.direction }
    end
  end
  return list, wit
end

-- Whether a change of time, of the continuous state or of a model input
-- marks the cache entry with bit `index` stale (the invalidation masks,
-- masks/entry_points.lua): if none does, the value changes only at
-- discrete updates and holds in between.
local function moves_continuously(gen)
  local moving = {}
  for _, ep in ipairs(gen.entry_points or {}) do
    if ep.name == "time" or ep.name == "xc" or ep.kind == "input" then
      for _, e in ipairs(ep.stale or {}) do moving[e.index] = true end
    end
  end
  return moving
end

-- the loggers with their CSV columns, units and whether they are
-- discrete (cli/plot.lua too)
function M.loggers(gen)
  local F = gen.flat
  local moving = moves_continuously(gen)
  local list = json.array()
  for _, l in ipairs(F.logs) do
    local o = F.outputs[l.output + 1]
    -- the CSV columns (runtime/src/csv.c's rule)
    local cols = json.array(columns.of(l.name, l.size, o.elements))
    list[#list + 1] = { name = l.name, source = o.path, size = l.size, period = l.period, columns = cols,
      unit = o.unit, discrete = not (o.entry and moving[o.entry.index]) }
  end
  return list
end

-- the generated Jacobians: name, cache index, nonzeros, prerequisites
local function jacobians(gen)
  local list = json.array()
  for _, j in ipairs(gen.jacobians or {}) do
    local pres = json.array()
    for _, n in ipairs(j.pres) do
      -- an output by its public name (a label: a world's "ball.pose", a logged state)
      local port = n.name:match("^output:(.*)$")
      local it = port and n.ctx.kind == "leaf" and n.ctx.type.names[port]
      pres[#pres + 1] = join(n.ctx.path, it and it.label and ("output:" .. it.label) or n.name)
    end
    list[#list + 1] = { name = j.name, cache_index = j.index, nnz = j.nnz or 0, prerequisites = pres }
  end
  return list
end

-- the cache entries (F.entries, by bit index) with the tickets they
-- subscribe to, each as "system.ticket" (tickets/graph.lua)
local function cache_entries(gen)
  local list = json.array()
  local node_of = {}
  for _, n in ipairs(gen.graph.nodes) do if n.entry then node_of[n.entry] = n end end
  for _, e in ipairs(gen.flat.entries) do
    local n = node_of[e]
    local pres = json.array()
    for _, p in ipairs(n and n.pres or {}) do pres[#pres + 1] = join(p.ctx.path, p.name) end
    list[#list + 1] = { index = e.index, system = e.ctx.path, ticket = n and n.name or e.name,
      kind = e.kind, prerequisites = pres }
  end
  return list
end

-- the sources a change can come from (masks/entry_points.lua) and the
-- cache entries each marks stale (by index): the invalidation masks
local function sources(gen)
  local list = json.array()
  for _, ep in ipairs(gen.entry_points or {}) do
    local stale = json.array()
    for _, e in ipairs(ep.stale or {}) do stale[#stale + 1] = e.index end
    list[#list + 1] = { name = ep.name, kind = ep.kind, system = ep.ctx and ep.ctx.path or nil, stale = stale }
  end
  return list
end

-- The model as a plain table (the JSON document).
function M.describe(gen)
  local F = gen.flat
  local ev, wit = events(F)
  return {
    model = gen.prefix, spec = gen.spec_main or "", diagram = F.root.type.name,
    systems = system_tree(F.root), ports = ports(F), states = states(F), parameters = parameters(F),
    events = ev, witnesses = wit, loggers = M.loggers(gen), jacobians = jacobians(gen), worlds = info_world.describe(F),
    cache_entries = cache_entries(gen), sources = sources(gen),
    sizes = { nq = F.nq, nv = F.nv, nz = F.nz, nxd = F.nxd, leaves = #F.leaves },
  }
end

local num = json.number
-- A long vector's first LONG values, then how many there are (a world's
-- warm-start state holds thousands of zeros); --json lists them all.
local LONG = 16
local function nums(t)
  local s = {}
  for i = 1, math.min(#t, LONG) do s[i] = num(t[i]) end
  if #t > 2 * LONG then s[#s + 1] = string.format("... (%d values; --json lists them all)", #t)
  else for i = LONG + 1, #t do s[i] = num(t[i]) end end
  return table.concat(s, ", ")
end

-- Element names, cut the same way.
local function names(t)
  if #t <= 2 * LONG then return table.concat(t, ", ") end
  local s = {}
  for i = 1, LONG do s[i] = t[i] end
  s[#s + 1] = string.format("... (%d elements; --json lists them all)", #t)
  return table.concat(s, ", ")
end

-- Text: one section per kind, one line per item.
function M.text(d)
  local L = {}
  local function w(fmt, ...) L[#L + 1] = string.format(fmt, ...) end
  w("model %s (diagram \"%s\", from %s)", d.model, d.diagram, d.spec)
  w("systems:")
  local function tree(n, ind)
    if n.path ~= "" then w("%s%s  %s %s", ind, n.name, n.kind, n.type) end
    for _, c in ipairs(n.systems) do tree(c, n.path == "" and "  " or ind .. "  ") end
  end
  tree(d.systems, "  ")
  w("ports:")
  for _, p in ipairs(d.ports) do
    local wiring = p.direction == "input" and ("<- " .. p.from)
      or (#p.to > 0 and ("-> " .. table.concat(p.to, ", ")) or "")
    if p.direction == "output" and p.from then wiring = "= " .. p.from .. (wiring ~= "" and " " .. wiring or "") end
    w("  %-28s %-6s size %d%s  %s%s", p.path, p.direction, p.size, p.unit and ("  [" .. p.unit .. "]") or "", wiring,
      p.elements and ("  (" .. names(p.elements) .. ")") or "")
  end
  w("states:")
  if #d.states == 0 then w("  (none)") end
  for _, s in ipairs(d.states) do
    if s.kind == "abstract" then w("  %-28s abstract %s", s.path, s.ctype)
    else
      w("  %-28s %-12s size %d  initial %s%s", s.path, s.kind, s.size, nums(s.initial),
        s.elements and ("  (" .. names(s.elements) .. ")") or "")
    end
  end
  w("parameters:")
  if #d.parameters == 0 then w("  (none)") end
  for _, p in ipairs(d.parameters) do
    if p.kind == "abstract" then w("  %-28s abstract %s", p.path, p.ctype)
    else w("  %-28s size %d  default %s", p.path, p.size, nums(p.default)) end
  end
  w("events:")
  if #d.events == 0 then w("  (none)") end
  for _, e in ipairs(d.events) do
    w("  %-28s %s %s%s", e.path, e.trigger, e.kind:gsub("_", " "),
      e.period and ("  period " .. num(e.period) .. " offset " .. num(e.offset)) or "")
  end
  if #d.witnesses > 0 then
    w("witnesses:")
    for _, x in ipairs(d.witnesses) do w("  %-28s %s", x.path, x.direction) end
  end
  w("loggers:")
  if #d.loggers == 0 then w("  (none)") end
  for _, l in ipairs(d.loggers) do
    w("  %-28s %s  size %d%s  %s", l.name, l.source, l.size, l.unit and ("  [" .. l.unit .. "]") or "",
      l.period > 0 and ("period " .. num(l.period)) or "every step")
  end
  if #d.jacobians > 0 then
    w("jacobians (cache entries):")
    for _, j in ipairs(d.jacobians) do
      w("  %-28s nnz %d  <- %s", j.name, j.nnz, table.concat(j.prerequisites, ", "))
    end
  end
  info_world.text(d.worlds, w)
  for i, l in ipairs(L) do L[i] = l:gsub("%s+$", "") end
  return table.concat(L, "\n") .. "\n"
end

function M.main(args)
  local cmd = "diagc info"
  local o, pos = cli.parse(args, { flags = { ["--json"] = false, ["-o"] = true } }, cmd)
  if #pos ~= 1 then errors.raise(nil, "%s: expected one spec file, as in: diagc info spec.lua --json", cmd) end
  local gen = compile.compile(pos[1], {})
  gen.spec_main = require("diagc.spec.load").normalize(pos[1])
  local d = M.describe(gen)
  local text = o["--json"] and json.encode(d) or M.text(d)
  if o["-o"] then
    output.write_file(cmd, o["-o"], text, util.sorted_keys(gen.sources or {}))
  else
    output.stdout(cmd, text)
  end
  return 0
end

return M
