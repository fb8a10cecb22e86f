-- Module dependencies go one way: (lib: numerical libraries the spec
-- language exposes: lib/riccati, lib/lti, lib/blocks) spec -> world -> check -> (cdiff) ->
-- flatten -> tickets -> masks -> coder.  cdiff's stage reads the checked
-- leaf types only (a calc body's sparsity and derivative code), so it
-- ranks right after check; its transformation core is a library (CORE).  Every require("diagc.X") line of generator/diagc/**/*.lua
-- is read; a stage may require its own modules, earlier stages and the
-- shared modules (errors, util, vocab/), never a later stage or the
-- commands; the commands and the pipeline (cli/, testing/, driver, jit,
-- compile) may require anything.  No module requires itself through others
-- (no cycle), and every module falls in one of these groups (a new folder
-- or top-level file must be placed here).

-- rank of each group: a module may require modules of its rank or lower
local RANK = { errors = 0, util = 0, vocab = 0,
  lib = 0.5, spec = 1, world = 1.5, check = 2, cdiff = 2.5, flatten = 3, tickets = 4, masks = 5, coder = 6 }
local FREE = { cli = true, testing = true, driver = true, jit = true, compile = true }
-- cdiff's source transformation itself (C text in, C text out) reads no
-- stage's data: a library below the world stage, whose generated
-- dynamics it differentiates (world/tangent.lua); cdiff's stage, infer
-- and iface (which read checked leaves) keep the group's rank.
local CORE = { cdiff = 1.4, ["cdiff.parse"] = 1.4, ["cdiff.preamble"] = 1.4, ["cdiff.unroll"] = 1.4,
  ["cdiff.fold"] = 1.4, ["cdiff.inline"] = 1.4, ["cdiff.activity"] = 1.4, ["cdiff.forward"] = 1.4,
  ["cdiff.writes"] = 1.4, ["cdiff.mathfns"] = 1.4 }
local TOP = 100

-- "generator/diagc/check/init.lua" -> "diagc.check"
local function module_name(rel)
  local m = rel:gsub("%.lua$", ""):gsub("/init$", ""):gsub("/", ".")
  return m
end

-- the group of "diagc.check.leaf" is "check"; its rank, or nil if unplaced
local function rank_of(mod)
  local group = mod:match("^diagc%.([%w_]+)")
  if FREE[group] then return TOP, group end
  if CORE[mod:sub(7)] then return CORE[mod:sub(7)], group end
  return RANK[group], group
end

-- The diagc modules a source text requires (literal names only; a computed
-- name is reported as an error so nothing escapes the check).
local function requires_of(text)
  local out, bad = {}, {}
  local function add(name)
    if name:match("^diagc%.[%w_.]*[%w_]$") then out[#out + 1] = name end
  end
  for name in text:gmatch("require%s*%(?%s*[\"']([%w_.]+)[\"']") do add(name) end
  for name in text:gmatch("pcall%(%s*require%s*,%s*[\"']([%w_.]+)[\"']") do add(name) end
  for arg in text:gmatch("require%s*(%b())") do
    if arg:find("diagc%.") and not arg:match("^%(%s*[\"'][%w_.]+[\"']%s*%)$") then
      bad[#bad + 1] = "computed require" .. arg
    end
  end
  return out, bad
end

-- modules = { [name] = { requires = {names} } }: returns a list of problems
local function problems(modules)
  local out = {}
  local names = {}
  for name in pairs(modules) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local r, group = rank_of(name)
    if not r then
      out[#out + 1] = string.format("%s: '%s' is in no stage; place it in RANK or FREE of "
        .. "tests/lua/module_deps_test.lua", name, group)
    end
    for _, dep in ipairs(modules[name].requires) do
      local rd = rank_of(dep)
      if not modules[dep] then
        out[#out + 1] = string.format("%s requires %s, which does not exist", name, dep)
      elseif r and rd and rd > r then
        out[#out + 1] = string.format("%s requires %s: a later stage (backward edge)", name, dep)
      end
    end
  end
  -- cycles: depth-first search, printing the first cycle through each module
  local color, stack = {}, {}
  local function visit(name)
    color[name] = 1
    stack[#stack + 1] = name
    for _, dep in ipairs(modules[name].requires) do
      if modules[dep] then
        if color[dep] == 1 then
          local cyc, on = {}, false
          for _, s in ipairs(stack) do
            if s == dep then on = true end
            if on then cyc[#cyc + 1] = s end
          end
          cyc[#cyc + 1] = dep
          out[#out + 1] = "require cycle: " .. table.concat(cyc, " -> ")
        elseif not color[dep] then
          visit(dep)
        end
      end
    end
    stack[#stack] = nil
    color[name] = 2
  end
  for _, name in ipairs(names) do if not color[name] then visit(name) end end
  return out
end

local function scan_tree(root)
  local modules, bad = {}, {}
  local base = root .. "/generator/"
  local h = io.popen("find '" .. base .. "diagc' -name '*.lua' -type f | sort")
  for path in h:lines() do
    local f = assert(io.open(path, "rb"))
    local text = f:read("*a")
    f:close()
    local name = module_name(path:sub(#base + 1))
    local reqs, b = requires_of(text)
    modules[name] = { requires = reqs }
    for _, x in ipairs(b) do bad[#bad + 1] = name .. ": " .. x end
  end
  h:close()
  return modules, bad
end

test("module_deps.stages_one_way_no_cycles", function()
  local modules, bad = scan_tree(diagc.root)
  local n = 0
  for _ in pairs(modules) do n = n + 1 end
  truthy(n > 40 and modules["diagc.check.leaf"] and modules["diagc.vocab.tickets"],
    "found " .. n .. " modules under " .. diagc.root)
  local all = problems(modules)
  for _, b in ipairs(bad) do all[#all + 1] = b end
  truthy(#all == 0, "\n  " .. table.concat(all, "\n  "))
end)

test("module_deps.reads_require_forms", function()
  local reqs, bad = requires_of([[
local a = require("diagc.check.leaf")
local b = require "diagc.vocab.tickets"
local ok, c = pcall(require, "diagc.tickets.graph")
local ffi = require("ffi")
local d = require("diagc." .. name)
]])
  eq(reqs, { "diagc.check.leaf", "diagc.vocab.tickets", "diagc.tickets.graph" })
  eq(#bad, 1)
  eq(module_name("diagc/check/init.lua"), "diagc.check")
  eq(module_name("diagc/check/leaf.lua"), "diagc.check.leaf")
end)

test("module_deps.finds_backward_edges_and_cycles", function()
  local function mods(t)
    local m = {}
    for name, reqs in pairs(t) do m[name] = { requires = reqs } end
    return m
  end
  eq(problems(mods({ ["diagc.check.a"] = { "diagc.spec.b", "diagc.vocab.c" }, ["diagc.spec.b"] = {},
    ["diagc.vocab.c"] = {}, ["diagc.cli.d"] = { "diagc.coder.e" }, ["diagc.coder.e"] = { "diagc.check.a" } })), {})
  eq(problems(mods({ ["diagc.tickets.a"] = { "diagc.masks.b" }, ["diagc.masks.b"] = {} })),
    { "diagc.tickets.a requires diagc.masks.b: a later stage (backward edge)" })
  eq(problems(mods({ ["diagc.check.a"] = { "diagc.cli.b" }, ["diagc.cli.b"] = {} })),
    { "diagc.check.a requires diagc.cli.b: a later stage (backward edge)" })
  eq(problems(mods({ ["diagc.check.a"] = { "diagc.check.b" }, ["diagc.check.b"] = { "diagc.check.a" } })),
    { "require cycle: diagc.check.a -> diagc.check.b -> diagc.check.a" })
  eq(problems(mods({ ["diagc.util"] = { "diagc.vocab.x" }, ["diagc.vocab.x"] = { "diagc.util" } })),
    { "require cycle: diagc.util -> diagc.vocab.x -> diagc.util" })
  eq(problems(mods({ ["diagc.newstage.a"] = {}, ["diagc.spec.b"] = { "diagc.spec.missing" } })),
    { "diagc.newstage.a: 'newstage' is in no stage; place it in RANK or FREE of "
      .. "tests/lua/module_deps_test.lua", "diagc.spec.b requires diagc.spec.missing, which does not exist" })
end)
