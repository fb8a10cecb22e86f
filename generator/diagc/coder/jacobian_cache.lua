-- coder/jacobian_cache.lua: the generated Jacobians (jac_xc, jac_lin,
-- jac_p) as cached values with valid bits of their own, so that a repeated
-- PREFIX_jac_*(c, nz) in an unchanged context is one bit test and a copy.
-- Their bits sit in one word after the cache entries' (valid[W]); the
-- invalidation table (coder/invalidate.lua) clears a Jacobian's bit for
-- every entry point that makes one of its rows' values stale: the
-- derivative of a value has no prerequisite the value lacks.  Rows: jac_xc
-- the root's xcdot; jac_lin and jac_p the root's xcdot and the
-- linearization's output entries (for a purely discrete model, whose
-- x[n+1] comes from event calcs that are no cache entries: every entry
-- point).  Values live in context fields jac_<tag>[nnz]; the cached
-- functions are coder/jacobian_chain.lua's emit_cached.  Adds nothing to
-- the model; sets K.jcache.
local names = require("diagc.coder.names")
local chain = require("diagc.coder.jacobian_chain")
local lin = require("diagc.coder.jacobian_lin")

local M = {}

-- the Jacobians this model will have: {tag=, rows= (the entries whose
-- staleness stales it; nil: every entry point), list= (the chain's
-- entries, deps first, for the coder module that emits it)}
local function wanted(K)
  local F, list = K.F, {}
  if K.opts.no_jacobian then return list end
  local xcdot = F.root.entries.xcdot
  local xl = F.nxc > 0 and chain.path_entries({ xcdot })
  if xl then list[#list + 1] = { tag = "xc", rows = { xcdot }, list = xl } end
  local outs, updates = lin.outputs(F), lin.discrete_updates(F)
  local ll = lin.chain_list(F, outs, updates)
  if ll then
    local rows = { xcdot }
    for _, y in ipairs(outs) do rows[#rows + 1] = y.o.entry end
    if updates then rows = nil end
    list[#list + 1] = { tag = "lin", rows = rows, list = ll }
    if #F.jac_params > 0 then list[#list + 1] = { tag = "p", rows = rows, list = ll } end
  end
  return list
end

-- K.jcache = {word=, list = {{tag=, bit=, rows=, list=}}, by_tag=}
function M.plan(K)
  local list = wanted(K)
  K.jcache = { word = math.ceil(#K.F.entries / 64), list = list, by_tag = {} }
  for i, j in ipairs(list) do
    j.bit = i - 1
    K.jcache.by_tag[j.tag] = j
  end
end

-- the mask of Jacobian bits entry point ep clears (0: none), as hex
function M.mask(K, ep)
  local stale, m = {}, 0
  for _, e in ipairs(ep.stale) do stale[e] = true end
  for _, j in ipairs(K.jcache.list) do
    local hit = j.rows == nil
    for _, e in ipairs(j.rows or {}) do hit = hit or stale[e] end
    if hit then m = m + 2 ^ j.bit end
  end
  return m > 0 and string.format("0x%016x", m) or nil
end

-- the header's lengths: valid words and counters (n_inval counts the
-- Jacobian bits too)
function M.lengths(K)
  local n = #K.F.entries
  if #K.jcache.list == 0 then return names.arr(math.ceil(n / 64)), names.arr(n) end
  local w = K.jcache.word
  return w + 1, 64 * w + #K.jcache.list
end

-- the context fields holding the values (slot `jacobian_storage`)
function M.fields(K)
  local l = {}
  for _, j in ipairs(K.jcache.list) do
    if j.nnz then
      l[#l + 1] = string.format("  double jac_%s[%d];   /* cached P_jac_%s (valid bit %d of valid[%d]) */",
        j.tag, names.arr(j.nnz), j.tag, j.bit, K.jcache.word)
    end
  end
  return l
end

return M
