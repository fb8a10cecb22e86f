-- tickets/loops.lua: evaluation dependencies between cache entries, and
-- algebraic-loop detection.  An entry's eval must first evaluate the
-- entries its calc reads (listed cache entries, built-in values, and the
-- outputs that drive its input ports).  A cycle here is an algebraic loop
-- (through direct-feedthrough ports) or a cycle of cache entries.
--
-- Stage contract: F (flatten) -> F with, on every entry of F.entries:
--   e.deps    the entries its eval must evaluate first: {entry=, via= (the
--             input port path "a.b.u" when read through a port), loc=};
--             a calc's reads in parameter order, a diagram_computed
--             entry's parts
--   e.params  (entries with a calc) e.calc.params, the calc function's
--             parameters (check/scope.lua)
-- and no cycle among them (an algebraic loop is an error at the spec).
-- M.calc_deps(F, ctx, params) gives the same list for any calc of a leaf
-- context (events, witnesses, next_update_time calcs).
local errors = require("diagc.errors")
local scope = require("diagc.check.scope")

local M = {}

local function entry_path(e)
  return e.ctx.path == "" and e.name or (e.ctx.path .. "." .. e.name)
end
M.entry_path = entry_path

-- The connect that feeds input `port` of ctx, found up through the
-- export_input hops to the diagram that wires it: its loc, and its place
-- in declaration order (depth of that diagram, index among its connects).
-- A diagram's connects are declared after those inside its subsystems'
-- types, so the shallowest diagram's last connect of a loop closes it.
local function feeding_connect(ctx, port)
  local s = ctx.input_src[port]
  while s.kind == "parent" do
    ctx, port = s.ctx, s.port
    s = ctx.input_src[port]
  end
  local depth, c = 0, ctx.parent
  while c do depth, c = depth + 1, c.parent end
  return s.loc, depth, s.order
end

-- Resolve a calc's read parameters, in a leaf context, to eval deps:
-- returns list of {entry=, via=input port path or nil, loc=, depth=,
-- order=} (for a port: the connect that feeds it, feeding_connect)
function M.calc_deps(F, ctx, params)
  local deps, seen = {}, {}
  local function add(e, via, loc, depth, order)
    if e and not seen[e] then
      seen[e] = true
      deps[#deps + 1] = { entry = e, via = via, loc = loc, depth = depth, order = order }
    end
  end
  for _, p in ipairs(params) do
    local k = p.key
    if k:match("^input:") then
      local port = k:sub(7)
      local r = F.resolve_input(ctx, port)
      if r.entry then
        local loc, depth, order = feeding_connect(ctx, port)
        add(r.entry, (ctx.path == "" and port or (ctx.path .. "." .. port)), loc, depth, order)
      end
    elseif k:match("^cache:") then
      add(ctx.entries[k])
    elseif k:match("^builtin:xcdot") then
      add(ctx.entries.xcdot)
    elseif k:match("^builtin:") then
      add(ctx.entries[k:sub(9)])
    end
  end
  return deps
end

-- The cycle as found by the search: chain[i] = {e=, dep=}, chain[i].e
-- reading chain[i].dep.entry.  Raises the error, naming the entries in
-- data-flow order, at the connect that closes the loop (declared last).
local function cycle_error(chain)
  local names, loc, closing = {}, nil, nil
  for i = #chain, 1, -1 do
    local d = chain[i].dep
    names[#names + 1] = entry_path(d.entry)
    if d.via then
      names[#names + 1] = d.via
      if not closing or d.depth < closing.depth
          or (d.depth == closing.depth and d.order > closing.order) then
        closing = d
      end
    end
  end
  loc = closing and closing.loc
  names[#names + 1] = names[1]
  local is_ports = false
  for _, c in ipairs(chain) do if c.dep.via then is_ports = true end end
  if not is_ports then
    errors.raise(chain[1].e.calc and chain[1].e.calc.loc or nil,
      "cycle of cache entries: %s", table.concat(names, " → "))
  end
  -- an entry in the loop that lists no prerequisites reads its inputs only
  -- because the default (all_sources) includes them
  local defaulted
  for i = #chain, 1, -1 do
    local c = chain[i].e.calc
    if c and c.default_prereqs and chain[i].dep.via then defaulted = chain[i].e; break end
  end
  if defaulted then
    local ok, host = pcall(require, "diagc_host")
    local reads = scope.reads(defaulted.ctx.type, defaulted.calc, ok and host.lex_c or nil)
    local list = {}
    for _, r in ipairs(reads or {}) do list[#list + 1] = string.format("%q", r) end
    errors.raise(loc, "algebraic loop through direct-feedthrough ports: %s; %s lists no "
      .. "prerequisites, so it defaults to all_sources, which includes its input ports: "
      .. "list only what its calc reads%s", table.concat(names, " → "), entry_path(defaulted),
      #list > 0 and (": prerequisites = { " .. table.concat(list, ", ") .. " }") or "")
  end
  errors.raise(loc, "algebraic loop through direct-feedthrough ports: %s; break it with "
    .. "a state (e.g. a discrete delay) or narrow the prerequisites of an output so it "
    .. "does not read its inputs", table.concat(names, " → "))
end

-- Depth-first search of the eval deps from every entry (iterative: a long
-- feedthrough chain is a deep path); a back edge is a cycle.
local function check_acyclic(F)
  local color, parent, parent_dep = {}, {}, {}
  for _, root in ipairs(F.entries) do
    if not color[root] then
      local stack = { { e = root, i = 0 } }
      color[root] = 1
      while #stack > 0 do
        local top = stack[#stack]
        top.i = top.i + 1
        local d = top.e.deps[top.i]
        if not d then
          color[top.e] = 2
          stack[#stack] = nil
        else
          local n = d.entry
          if color[n] == 1 then
            -- back edge top.e -> n: the cycle is n ... top.e -> n
            local chain = {}
            local cur, dep = top.e, d
            while true do
              table.insert(chain, 1, { e = cur, dep = dep })
              if cur == n then break end
              dep = parent_dep[cur]
              cur = parent[cur]
            end
            cycle_error(chain)
          elseif not color[n] then
            color[n] = 1
            parent[n], parent_dep[n] = top.e, d
            stack[#stack + 1] = { e = n, i = 0 }
          end
        end
      end
    end
  end
end

function M.compute(F)
  for _, e in ipairs(F.entries) do
    if e.calc then
      e.params = e.calc.params
      e.deps = M.calc_deps(F, e.ctx, e.params)
    else
      e.deps = {}
      for _, p in ipairs(e.parts) do e.deps[#e.deps + 1] = { entry = p } end
    end
  end
  check_acyclic(F)
end

return M
