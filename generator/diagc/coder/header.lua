-- coder/header.lua: the slots of templates/model.h.in: the spec's
-- c_preambles (types of abstract values), the size macros, and the
-- fields of the state, parameter and context structs.  The prototypes of
-- the public API (slot `api`) are collected by the modules that define
-- the functions (K.api).  Adds nothing to the model.
local names = require("diagc.coder.names")
local jcache = require("diagc.coder.jacobian_cache")

local M = {}

-- each distinct preamble text once; the macros a leaf's preambles define
-- end with them (check/c_text.lua: lt.c_scope)
local function preambles(K)
  return function(H)
    local seen = {}
    for _, lt in ipairs(K.opts.leaf_types) do
      for _, pre in ipairs(lt.preambles) do
        if not seen[pre.text] then
          seen[pre.text] = true
          H:user_code(pre.text, pre.loc, "a c_preamble")
        end
      end
      for _, m in ipairs(lt.c_scope and lt.c_scope.macros or {}) do H:linef("#undef %s", m) end
    end
  end
end

-- the size macros: state and parameter vectors, the input vector u, the
-- number of cache entries; then each port's width, named after its
-- function (PREFIX_eval_NAME, PREFIX_set_input_NAME, PREFIX_fix_NAME)
local function sizes(K)
  local F, PU = K.F, K.PU
  local l = {}
  for _, s in ipairs({ { "NQ", F.nq }, { "NV", F.nv }, { "NZ", F.nz }, { "NXC", F.nxc },
    { "NXD", F.nxd }, { "NPN", F.npn }, { "NU", F.nu }, { "NCACHE", #F.entries } }) do
    l[#l + 1] = string.format("#define %s_%s %d", PU, s[1], s[2])
  end
  for _, o in ipairs(F.outputs) do
    l[#l + 1] = string.format("#define %s_OUT_%s_SIZE %d", PU, o.cname, o.size)
  end
  for _, s in ipairs(F.u_slots) do
    local name = s.ep.api:gsub("^set_input_", "IN_"):gsub("^fix_", "FIXED_")
    l[#l + 1] = string.format("#define %s_%s_SIZE %d", PU, name, s.size)
  end
  return l
end

local function fields(list)
  local l = {}
  for _, a in ipairs(list) do l[#l + 1] = string.format("  %s %s;", a.ctype, a.field) end
  return l
end

local function typed_entries(F)
  local l = {}
  for _, e in ipairs(F.entries) do
    if e.field then l[#l + 1] = string.format("  %s %s;", e.ctype, e.field) end
  end
  return l
end

-- the slots of model.h.in
function M.slots(K)
  local F, arr = K.F, names.arr
  local valid_len, counter_len = jcache.lengths(K)
  return {
    P = K.P, PU = K.PU, version = K.opts.version, spec = K.spec_comment,
    preambles = preambles(K), sizes = sizes(K),
    xc_len = arr(F.nxc), xd_len = arr(F.nxd), pn_len = arr(F.npn), u_len = arr(F.nu),
    cache_len = arr(F.ncache_d), valid_len = valid_len, counter_len = counter_len,
    jacobian_storage = jcache.fields(K),
    abstract_state = fields(F.xa), abstract_params = fields(F.pa),
    abstract_cache = typed_entries(F),
    api = K.api,
  }
end

return M
