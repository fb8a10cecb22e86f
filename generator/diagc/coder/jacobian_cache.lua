-- coder/jacobian_cache.lua: the generated Jacobians (jac_xc, jac_lin,
-- jac_p, jac_update<k>) as cache entries of their own: each has a ticket
-- whose prerequisites are the trackers of its rows (jac_xc: the root's
-- xcdot; jac_lin and jac_p: xcdot, or the update calcs' prerequisites for
-- a purely discrete model, and the linearization's output ports;
-- jac_update<k>: the prerequisites of the update calcs of its timing), a
-- valid bit, counters (n_eval, n_calc, n_inval) and a row of the
-- descriptor's cache table, all at index #F.entries + k (after the
-- entries').  The derivative of a value has no prerequisite the value
-- lacks, so entry point ep clears a Jacobian's bit exactly when Drake's
-- sweep from ep's noted trackers reaches one of those prerequisites: the
-- bit is one more bit of ep's masks (coder/invalidate.lua).  A repeated
-- PREFIX_jac_*(c, nz) in an unchanged context is one bit test and a copy.
-- Values live in context fields jac_<tag>[nnz]; the cached functions are
-- coder/jacobian_chain.lua's emit_cached.  Adds nothing to the model;
-- sets K.jcache.
local names = require("diagc.coder.names")
local chain = require("diagc.coder.jacobian_chain")
local lin = require("diagc.coder.jacobian_lin")
local update = require("diagc.coder.jacobian_update")
local builtin = require("diagc.vocab.tickets")

local M = {}

-- the tracker of ticket `tk` of a leaf calc's prerequisite list
local function ticket_node(G, ctx, tk)
  return G.node(ctx, builtin.is_builtin[tk] and tk or (ctx.type.names[tk].kind .. ":" .. tk))
end

-- the trackers the update calcs' prerequisite lists name
local function update_nodes(G, updates, out)
  for _, u in ipairs(updates) do
    for _, tk in ipairs(u.ev.prereqs) do out[#out + 1] = ticket_node(G, u.ctx, tk) end
  end
  return out
end

-- the trackers of the linearization's rows
local function lin_nodes(F, G, outs, updates)
  local l = updates and update_nodes(G, updates, {}) or { G.node(F.root, "xcdot") }
  for _, y in ipairs(outs) do l[#l + 1] = G.node(y.o.ctx, "output:" .. y.o.port) end
  return l
end

-- the Jacobians this model will have: {tag=, pres= (G trackers), list=
-- (the chain's entries, deps first, for the coder module that emits it)}
local function wanted(F, G, no_jacobian)
  local list = {}
  if no_jacobian then return list end
  local xcdot = F.root.entries.xcdot
  local xl = F.nxc > 0 and chain.path_entries({ xcdot })
  if xl then list[#list + 1] = { tag = "xc", pres = { G.node(F.root, "xcdot") }, list = xl } end
  local outs, updates = lin.outputs(F), lin.discrete_updates(F)
  local ll = lin.chain_list(F, outs, updates)
  if ll then
    local pres = lin_nodes(F, G, outs, updates)
    list[#list + 1] = { tag = "lin", pres = pres, list = ll }
    -- a world's parameters (world.friction, world/lower.lua) enter its
    -- step, whose local Jacobian (world/grad_coords.lua) has columns for
    -- the masses only (grad.Tm): for any other no d/dp is generated rather
    -- than a wrong zero one (c:parameter_jacobian{ jacobian = "fd" }
    -- differentiates the model)
    local world_param = false
    for _, jp in ipairs(F.jac_params) do
      local W = jp.ctx.type.world
      local has = W and jp.name == "mass" and W.settings.gradients and require("diagc.world.grad_coords").pattern(W)
        and require("diagc.world.grad_coords").with_mass(W)
      world_param = world_param or (W ~= nil and not has)
    end
    if #F.jac_params > 0 and not world_param then list[#list + 1] = { tag = "p", pres = pres, list = ll } end
  end
  for _, t in ipairs(update.timings(F)) do
    local ul = update.chain_list(F, t)
    if ul then list[#list + 1] = { tag = t.tag, pres = update_nodes(G, t.updates, {}), list = ul } end
  end
  return list
end

-- the trackers whose change reaches one of `pres` in Drake's sweep
-- (tickets/graph.lua's stale_set: suppressed trackers stop it), as a set
-- of ids
local function ancestors(pres)
  local set, stack = {}, {}
  for _, p in ipairs(pres) do stack[#stack + 1] = p end
  while #stack > 0 do
    local n = stack[#stack]
    stack[#stack] = nil
    if not set[n.id] and not n.suppressed then
      set[n.id] = true
      for _, pre in ipairs(n.pres) do stack[#stack + 1] = pre end
    end
  end
  return set
end

-- K.jcache = {list = {{tag=, name=, index=, pres=, list=, reach=}}, by_tag=,
-- first= (#F.entries: the first Jacobian's index)}
function M.plan(K)
  local F, G = K.F, K.opts.graph
  assert(G, "coder/jacobian_cache: generate needs opts.graph (tickets/graph.lua)")
  local list = wanted(F, G, K.opts.no_jacobian)
  K.jcache = { list = list, by_tag = {}, first = #F.entries }
  for i, j in ipairs(list) do
    j.index, j.name, j.reach = #F.entries + i - 1, "jac_" .. j.tag, ancestors(j.pres)
    K.jcache.by_tag[j.tag] = j
  end
end

-- the Jacobians entry point ep makes stale, as pseudo entries {index=}
function M.stale(K, ep)
  local out = {}
  for _, j in ipairs(K.jcache.list) do
    for _, n in ipairs(ep.noted) do
      if j.reach[n.id] then out[#out + 1] = j; break end
    end
  end
  return out
end

-- the header's lengths: valid words and counters (the Jacobians are
-- entries after F.entries)
function M.lengths(K)
  local n = #K.F.entries + #K.jcache.list
  return names.arr(math.ceil(n / 64)), names.arr(n)
end

-- the context fields holding the values (slot `jacobian_storage`)
function M.fields(K)
  local l = {}
  for _, j in ipairs(K.jcache.list) do
    if j.nnz then
      l[#l + 1] = string.format("  double jac_%s[%d];   /* cached P_jac_%s (cache entry %d) */",
        j.tag, names.arr(j.nnz), j.tag, j.index)
    end
  end
  return l
end

-- PREFIX__eval_entry's cases of the Jacobians (the value: the context's copy)
function M.cases(K)
  local l = {}
  for _, j in ipairs(K.jcache.list) do
    l[#l + 1] = string.format("  case %d: return %s_jac_%s(c, NULL);", j.index, K.P, j.tag)
  end
  return l
end

-- the descriptor's rows for them: cache table rows, offsets of the values
function M.cache_rows(K)
  local rows = {}
  for _, j in ipairs(K.jcache.list) do rows[#rows + 1] = string.format("  {\"%s\", %d},", j.name, j.nnz or 0) end
  return rows
end

function M.cache_at(K, j)
  return string.format("(long)offsetof(%s_context, jac_%s)", K.P, j.tag)
end

return M
