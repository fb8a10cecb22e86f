-- Caching on versus off: random diagrams (random topology, nesting, state
-- kinds and prerequisite lists) driven by a random sequence of mutations
-- and evals.  Results must be identical bit for bit, and the counters must
-- show that caching skipped work.  Besides the small diagrams (one 64-bit
-- mask word), larger ones have more than 64 and more than 128 cache
-- entries, so that invalidation masks span two and three or more words.
local dsl = diagc.dsl
local ffi = require("ffi")

local N_DIAGRAMS = tonumber(os.getenv("DIAGC_FUZZ_N") or "200")

-- xorshift32, deterministic everywhere
local rng = dofile("tests/lua/fuzz_rng.lua")

-- What a ticket grants, written independently of the generator.
local function grants(L, ticket, out)
  local function add(n) out[n] = true end
  local t = ticket
  if t == "time" then add("t")
  elseif t == "accuracy" then add("accuracy")
  elseif t == "q" or t == "v" or t == "z" then add(t)
  elseif t == "xc" then add("q"); add("v"); add("z")
  elseif t == "xd" then for _, g in ipairs(L.groups) do add(g.name) end
  elseif t == "pn" or t == "all_parameters" then for _, p in ipairs(L.params) do add(p.name) end
  elseif t == "all_state" then grants(L, "xc", out); grants(L, "xd", out)
  elseif t == "all_sources_except_input_ports" then
    add("t"); add("accuracy"); grants(L, "all_state", out); grants(L, "pn", out)
  elseif t == "all_input_ports" then for _, u in ipairs(L.inputs) do add(u.name) end
  elseif t == "all_sources" then grants(L, "all_sources_except_input_ports", out); grants(L, "all_input_ports", out)
  elseif t == "configuration" then
    add("accuracy"); add("q"); add("z"); grants(L, "xd", out); grants(L, "pn", out)
  elseif t == "kinematics" then grants(L, "configuration", out); add("v")
  elseif t == "xcdot" then add("qdot"); add("vdot"); add("zdot")
  elseif L.byname[t] then add(t) end
  return out
end

local FUNS = { "sin", "cos", "tanh", "" }

local function body(L, g, outs, r)
  local lines = { "double acc = 0.25;" }
  local function term(expr)
    lines[#lines + 1] = string.format("acc += %s(%s) * %.3f;", FUNS[r(1, #FUNS)], expr, r() * 2 - 1)
  end
  if g.t then term("t") end
  if g.accuracy then term("accuracy * 100.0") end
  for _, k in ipairs({ "q", "v", "z" }) do
    if g[k] then for i = 0, L["n" .. k] - 1 do term(k .. "[" .. i .. "]") end end
    if g[k .. "dot"] then for i = 0, L["n" .. k] - 1 do term(k .. "dot[" .. i .. "]") end end
  end
  for _, list in ipairs({ L.groups, L.params, L.inputs, L.caches }) do
    for _, it in ipairs(list) do
      if g[it.name] then for i = 0, it.size - 1 do term(it.name .. "[" .. i .. "]") end end
    end
  end
  for _, o in ipairs(outs) do
    for i = 0, o.size - 1 do
      lines[#lines + 1] = string.format("%s[%d] = tanh(acc + %d.0 * 0.1);", o.name, i, i)
    end
  end
  return table.concat(lines, " ")
end

local function random_prereqs(L, r, allow_xcdot, earlier_caches)
  local x = r()
  if x < 0.15 then return nil end               -- default: all_sources
  if x < 0.2 then return { "nothing" } end
  local pool = { "time", "accuracy", "q", "v", "z", "xc", "xd", "all_state", "pn",
    "all_parameters", "all_sources_except_input_ports", "all_input_ports", "all_sources",
    "configuration", "kinematics", "xd_unique_periodic_update" }
  if allow_xcdot then pool[#pool + 1] = "xcdot" end
  for _, list in ipairs({ L.groups, L.params, L.inputs, earlier_caches }) do
    for _, it in ipairs(list) do pool[#pool + 1] = it.name end
  end
  local out, seen = {}, {}
  for _ = 1, r(1, 3) do
    local t = pool[r(1, #pool)]
    if not seen[t] then seen[t] = true; out[#out + 1] = t end
  end
  return out
end

local function granted(L, list)
  local g = {}
  for _, t in ipairs(list or { "all_sources" }) do grants(L, t, g) end
  if L.nq == 0 then g.q, g.qdot = nil, nil end
  return g
end

local function random_leaf(r, id)
  local L = { nq = r(0, 2), nv = r(0, 1), nz = r(0, 1), groups = {}, params = {}, inputs = {},
    caches = {}, outputs = {}, byname = {} }
  if r() < 0.4 then L.nq, L.nv, L.nz = 0, 0, 0 end
  local items = {}
  local function named(list, prefix, n)
    for i = 1, n do
      local it = { name = prefix .. i, size = r(1, 2) }
      list[#list + 1] = it
      L.byname[it.name] = it
    end
  end
  named(L.groups, "g", r(0, 2)); named(L.params, "k", r(0, 2)); named(L.inputs, "u", r(0, 2))
  local nxc = L.nq + L.nv + L.nz
  if nxc > 0 then
    items[#items + 1] = dsl.continuous_state { q = L.nq, v = L.nv, z = L.nz,
      q0 = L.nq > 0 and { 0.1, 0.2 } and (L.nq == 1 and { 0.1 } or { 0.1, 0.2 }) or nil }
  end
  for _, g in ipairs(L.groups) do
    local d = {}
    for i = 1, g.size do d[i] = r() end
    items[#items + 1] = dsl.discrete_state { g.name, default = d }
  end
  for _, p in ipairs(L.params) do
    local d = {}
    for i = 1, p.size do d[i] = r() end
    items[#items + 1] = dsl.parameter { p.name, default = d }
  end
  for _, u in ipairs(L.inputs) do items[#items + 1] = dsl.input_port { u.name, size = u.size } end
  if nxc > 0 then
    local pr = random_prereqs(L, r, false, {})
    local outs = {}
    if L.nq > 0 then outs[#outs + 1] = { name = "qdot", size = L.nq } end
    if L.nv > 0 then outs[#outs + 1] = { name = "vdot", size = L.nv } end
    if L.nz > 0 then outs[#outs + 1] = { name = "zdot", size = L.nz } end
    items[#items + 1] = dsl.derivatives { prerequisites = pr, calc = body(L, granted(L, pr), outs, r) }
  end
  for i = 1, r(0, 2) do
    local c = { name = "c" .. i, size = r(1, 2) }
    local pr = random_prereqs(L, r, nxc > 0, L.caches)
    items[#items + 1] = dsl.cache_entry { c.name, size = c.size, prerequisites = pr,
      calc = body(L, granted(L, pr), { c }, r) }
    L.caches[#L.caches + 1] = c
    L.byname[c.name] = c
  end
  for i = 1, r(1, 2) do
    local o = { name = "y" .. i, size = r(1, 2) }
    local pr = random_prereqs(L, r, nxc > 0, L.caches)
    items[#items + 1] = dsl.output_port { o.name, size = o.size, prerequisites = pr,
      calc = body(L, granted(L, pr), { o }, r) }
    L.outputs[#L.outputs + 1] = o
  end
  L.type = dsl.leaf("R" .. id)(items)
  return L
end

-- a leaf, or the leaf wrapped in one or two diagrams exporting its ports
local function random_system(r, id)
  local L = random_leaf(r, id)
  local sys = L.type
  for depth = 1, r(0, 2) do
    local items = { dsl.system { "inner", sys } }
    for _, u in ipairs(L.inputs) do items[#items + 1] = dsl.export_input { "inner." .. u.name, as = u.name } end
    for _, o in ipairs(L.outputs) do items[#items + 1] = dsl.export_output { "inner." .. o.name, as = o.name } end
    sys = dsl.diagram("W" .. id .. "_" .. depth)(items)
    L.depth = depth
  end
  L.sys = sys
  return L
end

local function build(seed, nmin, nmax)
  local r = rng(seed * 2654435761 % 4294967296 + 1)
  local systems, items = {}, {}
  local n = r(nmin or 2, nmax or 6)
  local exported = 0
  for i = 1, n do
    local S = random_system(r, seed .. "_" .. i)
    S.name = "s" .. i
    systems[i] = S
    items[#items + 1] = dsl.system { S.name, S.sys }
    for _, u in ipairs(S.inputs) do
      -- feed from an earlier system's output of the same size, else fix/export
      local cands = {}
      for j = 1, i - 1 do
        for _, o in ipairs(systems[j].outputs) do
          if o.size == u.size then cands[#cands + 1] = systems[j].name .. "." .. o.name end
        end
      end
      local x = r()
      if #cands > 0 and x < 0.6 then
        items[#items + 1] = dsl.connect { cands[r(1, #cands)], S.name .. "." .. u.name }
      elseif x < 0.8 then
        local v = {}
        for k = 1, u.size do v[k] = r() end
        items[#items + 1] = dsl.fix_input { S.name .. "." .. u.name, value = v }
      else
        exported = exported + 1
        items[#items + 1] = dsl.export_input { S.name .. "." .. u.name, as = "in" .. exported }
      end
    end
  end
  return dsl.diagram("fuzz" .. seed)(items)
end

local function same(a, b)
  if type(a) == "table" then
    for i = 1, #a do if not same(a[i], b[i]) then return false end end
    return #a == #b
  end
  return a == b and (a ~= 0 or 1 / a == 1 / b)
end

-- Drives a cached and an uncached context of model m through `steps`
-- random mutations and evals (random generator seeded by `seed`).
local function run_case(m, seed, steps)
  local r = rng(seed + 7)
  local A, B = m:context(), m:context()
  B:set_caching(false)
  local names = {}
  for n, s in pairs(m.sources) do if s.size > 0 then names[#names + 1] = n end end
  table.sort(names)
  local values = m:cache_names()
  for n in pairs(m.outputs) do values[#values + 1] = n end
  table.sort(values)
  local d = m.desc
  local xcbuf = ffi.new("double[?]", math.max(1, d.nxc))
  for step = 1, steps do
    local x = r()
    if x < 0.45 then
      local n = names[r(1, #names)]
      local s = m.sources[n]
      local v = {}
      for k = 1, s.size do v[k] = n == "accuracy" and (r() * 1e-3) or (r() * 4 - 2) end
      A:set(n, v); B:set(n, v)
    elseif x < 0.5 and d.nxc > 0 then
      for k = 0, d.nxc - 1 do xcbuf[k] = r() end
      if r() < 0.5 then d.set_xc(A.ptr, xcbuf); d.set_xc(B.ptr, xcbuf)
      else
        local pa, pb = d.mutable_xc(A.ptr), d.mutable_xc(B.ptr)
        local k = r(0, d.nxc - 1)
        pa[k] = xcbuf[k]; pb[k] = xcbuf[k]
      end
    elseif x < 0.55 then
      local da, db = A:derivatives(), B:derivatives()
      if not same(da, db) then error("step " .. step .. ": derivatives differ") end
    else
      local n = values[r(1, #values)]
      local ra, va = A:try_eval(n)
      local rb, vb = B:try_eval(n)
      if ra ~= rb or not same(va, vb) then
        error(string.format("step %d: %s differs: cached %s, uncached %s", step, n,
          assert_fmt and assert_fmt(va) or tostring(va), tostring(vb)))
      end
    end
  end
  -- a final full sweep
  for _, n in ipairs(values) do
    local _, va = A:try_eval(n)
    local _, vb = B:try_eval(n)
    if not same(va, vb) then error("final: " .. n .. " differs") end
  end
  local ca, cb = 0, 0
  for _, n in ipairs(m:cache_names()) do
    ca = ca + A:counters(n).calcs
    cb = cb + B:counters(n).calcs
  end
  if ca > cb then error(string.format("caching computed more (%d) than no caching (%d)", ca, cb)) end
  if cb > 0 and ca == cb and #values > 2 then
    -- caching must skip at least some work on a nontrivial sequence
    error(string.format("caching skipped nothing (%d calcs both ways)", ca))
  end
end

for seed = 1, N_DIAGRAMS do
  test(string.format("fuzz.caching.%03d", seed), function()
    run_case(diagc.jit(build(seed), { prefix = "fuzz" .. seed }), seed, 80)
  end)
end

-- Larger diagrams, with longer mutation sequences: 65 to 128 cache entries
-- (two mask words), 129 to 192 (three) and more than 192 (four or five).
local BIG = {
  { name = "words2", min_entries = 65, max_entries = 128, nmin = 17, nmax = 24, count = 6 },
  { name = "words3", min_entries = 129, max_entries = 192, nmin = 33, nmax = 40, count = 6 },
  { name = "words4", min_entries = 193, max_entries = 320, nmin = 55, nmax = 65, count = 2 },
}
for _, big in ipairs(BIG) do
  for i = 1, big.count do
    local seed = 1000 * #big.name + 100 * big.min_entries + i
    test(string.format("fuzz.caching.%s.%02d", big.name, i), function()
      local m = diagc.jit(build(seed, big.nmin, big.nmax), { prefix = "fuzzbig" .. seed })
      if m.desc.n_cache < big.min_entries or m.desc.n_cache > big.max_entries then
        error(string.format("the model has %d cache entries; this case needs %d to %d",
          m.desc.n_cache, big.min_entries, big.max_entries))
      end
      run_case(m, seed, 400)
    end)
  end
end
