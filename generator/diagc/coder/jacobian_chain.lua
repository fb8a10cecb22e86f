-- coder/jacobian_chain.lua: the chain rule at compile time, shared by the
-- generated Jacobians (coder/jacobian.lua: d xcdot / d xc; coder/
-- jacobian_lin.lua: d(xcdot, y) / d(xc, u); coder/jacobian_p.lua: d/dp;
-- coder/jacobian_update.lua: d x+ / d(xc, xd, u) of a periodic update).
-- Each leaf calc on the evaluation path has a local Jacobian (cdiff/
-- stage.lua: calc.diff, the structural nonzeros with respect to its
-- inputs); through connections an input is another entry's value, so an
-- entry element's total derivative is its direct partials (columns: the
-- elements of the column blocks `cols` names) plus the local partials
-- times the total derivatives of the entries it reads.  Emitted as
-- straight-line C over structural nonzeros only, each total derivative
-- computed once, in a local.  Adds nothing to the model.
--
-- cols, the column blocks, each the first column of its block or nil (not
-- a column: a constant here): xc (the continuous state), xd (the discrete
-- state), u (the root's exported inputs); or p= and p_of= (the parameters
-- of a parameter Jacobian, coder/jacobian_p.lua: then nothing else is a
-- column).  row_xd: the first row of an update's x_next (default 0).
local util = require("diagc.util")
local eval_paths = require("diagc.tickets.eval_paths")
local loops = require("diagc.tickets.loops")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")
local value_fn = require("diagc.coder.value_fn")
local fd = require("diagc.coder.jacobian_fd")

local M = {}

local XC = { q = "xq", v = "xv", z = "xz" }

-- the inputs of a calc (of leaf type lt) that can depend on the columns:
-- the continuous state (cols.xc), the discrete state (cols.xd), inputs and
-- cache entries; with cols.p (a parameter Jacobian): the parameters
-- cols.p_of[lt] names
local function state_inputs(calc, cols, lt)
  local set, pnames = {}, cols.p and cols.p_of[lt] or {}
  for _, p in ipairs(calc.params) do
    local k = p.key
    local pn = k:match("^pn:(.*)$")
    if not p.write and ((XC[k] and cols.xc) or k:match("^input:") or k:match("^cache:")
        or (cols.xd and k:match("^xd:")) or (pn and pnames[pn])
        or k:match("^builtin:")) then
      set[p.name] = true
    end
  end
  return set
end

-- the leaf entries the roots read (roots included), deps first; nil and
-- the first entry whose calc has no Jacobian
function M.path_entries(roots)
  local list = {}
  for _, e in ipairs(eval_paths.post_order(roots)) do
    if e.calc then
      local d = e.calc.diff
      if not (d and (d.fd or (d.r and e.calc.jacobian ~= "finite_difference"))) then return nil, e end
      list[#list + 1] = e
    end
  end
  return list
end

-- the suffix of a local Jacobian's function: the columns decide its
-- inputs (_jac: the state of a model with one kind of state; _jacx: xc
-- and xd of a hybrid model; _jacp: parameters)
local function suffix_of(F, cols)
  if cols.p then return "_jacp" end
  if cols.xd and cols.xc and F.nxc > 0 and F.nxd > 0 then return "_jacx" end
  return "_jac"
end

-- the entries an update reads whose values its Jacobian needs: all of
-- them, but a world's step (world/lower.lua), whose Jacobian (the grad
-- entry, world/grad_coords.lua) already holds the work entry's
function M.update_deps(F, u)
  local deps = loops.calc_deps(F, u.ctx, u.ev.params)
  if not (u.ev.diff and u.ev.diff.world_step) then return deps end
  local out, work = {}, u.ctx.entries["cache:work"]
  for _, d in ipairs(deps) do if d.entry ~= work then out[#out + 1] = d end end
  return out
end

-- whether an update has a local Jacobian (cdiff's, or a world's)
-- Why the calc of chain entry e (or update: e.event) has no Jacobian,
-- with the advice that applies: declaring the calc jacobian =
-- "finite_difference" only when it is not declared so already and is not
-- a world's (whose reasons carry their own advice: cdiff/stage.lua).
-- `fd` is how finite differences are asked for ("use finite differences
-- (--jacobian fd)").
function M.why_missing(e, fd)
  local d = e.calc.diff
  if not d then return "calc bodies were not analyzed (no C lexer)" end
  if d.world_step then return d.why end
  if e.ctx and e.ctx.type and e.ctx.type.world then
    return string.format("it is computed by the world's generated code, outside the differentiable subset (of a "
      .. "world's outputs, position, velocity, impulses and step_info have Jacobians); leave it out (choose "
      .. "other output ports) or %s", fd)
  end
  if e.calc.jacobian == "finite_difference" then
    return string.format("it is declared jacobian = \"finite_difference\", but central differences of it "
      .. "are not possible: %s; %s", d.fd_why or d.why or "its values are not all double", fd)
  end
  return string.format("%s; declare that calc jacobian = \"finite_difference\", or %s",
    d.why or "an event's values are not all double", fd)
end

function M.update_has_jacobian(ev)
  return ev.diff and (ev.diff.r or ev.diff.world) and true or false
end

-- one local Jacobian per leaf type and calc: {name=, pattern=, code=}
function M.local_jacobians(K, list, cols)
  local by_calc, suffix = {}, suffix_of(K.F, cols)
  for _, e in ipairs(list) do
    local calc = e.calc
    if not by_calc[calc] and calc.diff.world then
      -- masses: a parameter Jacobian of the world's mass (its columns from
      -- the grad_mass entry; otherwise they are constants here and not computed)
      by_calc[calc] = { name = names.calc_fn(K.P, e.ctx.type, calc) .. suffix, pattern = calc.diff.world,
        world = true, lt = e.ctx.type, calc = calc,
        masses = cols.p ~= nil and cols.p_of[e.ctx.type] ~= nil and cols.p_of[e.ctx.type].mass == true }
    elseif not by_calc[calc] and calc.diff.fd then
      by_calc[calc] = fd.local_jacobian(K, e, state_inputs(calc, cols, e.ctx.type), suffix)
    elseif not by_calc[calc] then
      local j = calc.diff.r.jacobian({ inputs = state_inputs(calc, cols, e.ctx.type), outputs = false,
        jac = "diagc_jac" })
      by_calc[calc] = { name = names.calc_fn(K.P, e.ctx.type, calc) .. suffix, pattern = j.pattern,
        code = j.code, lt = e.ctx.type, calc = calc }
    end
  end
  return by_calc
end

local function emit_local(C, lj)
  local ps = lj.calc.params
  local decl = value_fn.declarations(ps)
  decl[#decl + 1] = "double *diagc_jac"
  C:begin_checked()
  C:linef("static int %s(%s)", lj.name, table.concat(decl, ", "))
  C:line("{")
  for _, p in ipairs(ps) do C:linef("  (void)%s;", p.name) end
  C:line("  (void)diagc_jac;")
  C:line("  {")
  names.in_leaf_scope(C, lj.lt, function()
    for l in (lj.code .. "\n"):gmatch("(.-)\n") do
      if l ~= "" then C:line("    " .. l) end
    end
  end)
  C:line("  }")
  C:line("  return 0;")
  C:line("}")
  C:end_checked(lj.name)
  C:line()
end

-- where an input element comes from: {col = a column of cols} |
-- {entry=, elem=} | {row=} (a leaf's own xcdot) | {} (constant here)
local function source(F, e, key, index, cols)
  local ctx = e.ctx
  if cols.p then
    local pn = key:match("^pn:(.*)$")
    local base = pn and cols.p[ctx] and cols.p[ctx][pn]
    if base then return { col = base + index } end
  end
  if XC[key] then return cols.xc and { col = cols.xc + ctx[XC[key]] + index } or {} end
  local g = key:match("^xd:(.*)$")
  if g then return cols.xd and { col = cols.xd + ctx.xd_off[g] + index } or {} end
  local name = key:match("^input:(.*)$")
  if name then
    local r = F.resolve_input(ctx, name)
    if r.entry then return { entry = r.entry, elem = index } end
    if cols.u and r.slot.kind == "input" then return { col = cols.u + r.slot.offset + index } end
    return {}
  end
  if key:match("^cache:") then return { entry = ctx.entries[key], elem = index } end
  -- a leaf's own derivative: its rows of the state derivative, composed
  -- before (the calc that reads it comes after it in evaluation order)
  local part = key:match("^builtin:xcdot:(%a)$")
  if part then return { row = ctx[XC[part]] + index } end
  local b = key:match("^builtin:(.*)$")
  if b then return { entry = ctx.entries[b], elem = index } end
  return {}
end

-- the element a local output writes: {entry=, elem=} or {row = xc index}
-- (a discrete update's x_next: {row = cols.row_xd + xd index})
local function target(e, key, index, cols)
  local part = key:match("^self:(%a)$")
  if part then return { row = e.ctx[XC[part]] + index } end
  local g = key:match("^next:xd:(.*)$")
  if g then return { row = (cols.row_xd or 0) + e.ctx.xd_off[g] + index } end
  return { entry = e, elem = index }
end

-- the terms of each target element of entry e, by column
local function terms_of(F, D, R, e, lj, arr, cols)
  local key_of, out = {}, {}
  for _, p in ipairs(e.calc.params) do key_of[p.name] = p.key end
  for k, nz in ipairs(lj.pattern) do
    local t = target(e, key_of[nz.out], nz.out_index, cols)
    local tkey = t.row and ("r" .. t.row) or ("e" .. t.elem)
    local slot = out[tkey] or { t = t, cols = {}, uses = {} }
    out[tkey] = slot
    -- an update's hidden input: the group its x_next is preloaded with
    local key = key_of[nz.input] or ("xd:" .. nz.input)
    local s, ref = source(F, e, key, nz.in_index, cols), string.format("%s[%d]", arr, k - 1)
    local function add(col, term, d)
      local c, u = slot.cols[col] or {}, slot.uses[col] or { arr }
      c[#c + 1] = term
      if d then u[#u + 1] = d end
      slot.cols[col], slot.uses[col] = c, u
    end
    if s.col then
      add(s.col, ref)
    elseif s.entry or s.row then
      local dd = (s.row and R[s.row]) or (s.entry and D[s.entry] and D[s.entry][s.elem]) or {}
      for _, col in ipairs(util.sorted_keys(dd)) do add(col, ref .. " * " .. dd[col], dd[col]) end
    end
  end
  local list = {}
  for _, tk in ipairs(util.sorted_keys(out)) do list[#list + 1] = out[tk] end
  return list
end

-- a world's update: its Jacobian in state coordinates from the grad entry
-- (evaluated through the context: computed once per state, cached), and
-- the grad_mass entry when the masses are columns (lj.masses)
local function world_step(K, e, lj, arr)
  local F, ctx = K.F, e.ctx
  local ge = ctx.entries["cache:grad"]
  local WP = require("diagc.world.lower").prefix(ctx.type.world)
  local a = {}
  for _, p in ipairs(e.calc.params) do a[p.key] = args.expr(F, ctx, p, e, "(&c->x)") end
  local g = "&c->" .. ge.field -- a typed entry's value lives in its own field (coder/eval_api.lua)
  local lines = {
    string.format("  double %s[%d];", arr, math.max(#lj.pattern, 1)),
    string.format("  if (%s__eval_entry(c, %d) != 0 || (%s)->status != 0) return DIAGC_E_CALC;", K.P, ge.index, g) }
  local gm = "NULL"
  if lj.masses then
    local me = ctx.entries["cache:grad_mass"]
    gm = "&c->" .. me.field
    lines[#lines + 1] = string.format("  if (%s__eval_entry(c, %d) != 0 || (%s)->status != 0) return DIAGC_E_CALC;", K.P,
      me.index, gm)
  end
  lines[#lines + 1] = string.format("  %scoords_jacobian(%s, %s, %s, %s, %s);", WP, a["xd:pos"], a["cache:work"], g, gm,
    arr)
  return { def = arr, uses = {}, always = true, lines = lines }
end

-- the call of e's local Jacobian into the array `arr`, as a step of the
-- body (below)
local function call_step(K, e, lj, arr)
  if lj.world then return world_step(K, e, lj, arr) end
  local a = {}
  for _, p in ipairs(e.calc.params) do a[#a + 1] = args.expr(K.F, e.ctx, p, e, "(&c->x)") end
  a[#a + 1] = arr
  return { def = arr, uses = {}, always = true, lines = {
    string.format("  double %s[%d];", arr, math.max(#lj.pattern, 1)),
    string.format("  if (%s(%s) != 0) return DIAGC_E_CALC;", lj.name, table.concat(a, ", ")) } }
end

-- the body of a Jacobian function: R[row][col] = the name of the local
-- holding each nonzero of the state's rows (xcdot; an update's x_next);
-- D[entry][elem][col] the same for the entries' elements; columns as cols
-- says (above).  The steps (local Jacobian calls, total derivatives) wait
-- in K.jchain until M.finish writes those its nonzeros need.
function M.emit_chain(K, list, locals, cols)
  local D, R, n, steps = {}, {}, 0, {}
  for _, e in ipairs(list) do
    local lj, arr = locals[e.calc], "jl" .. e.index
    if #lj.pattern > 0 then steps[#steps + 1] = call_step(K, e, lj, arr) end
    for _, slot in ipairs(terms_of(K.F, D, R, e, lj, arr, cols)) do
      local t, vals = slot.t, {}
      for _, col in ipairs(util.sorted_keys(slot.cols)) do
        steps[#steps + 1] = { def = "d" .. n, uses = slot.uses[col],
          lines = { string.format("  const double d%d = %s;", n, table.concat(slot.cols[col], " + ")) } }
        vals[col] = "d" .. n
        n = n + 1
      end
      if t.row then R[t.row] = vals
      else D[t.entry] = D[t.entry] or {}; D[t.entry][t.elem] = vals end
    end
  end
  K.jchain = steps
  return R, D
end

-- the steps of K.jchain the values `vals` need, in order: every local
-- Jacobian call (its function is in the source: coder/jacobian_chain's
-- emit_locals) and the total derivatives a nonzero uses (one no row uses,
-- e.g. of an entry an update reads only through a constant, is left out)
local function live_steps(K, vals)
  local live, out = {}, {}
  for _, v in ipairs(vals) do live[v] = true end
  local steps = K.jchain or {}
  for i = #steps, 1, -1 do
    if live[steps[i].def] then
      for _, u in ipairs(steps[i].uses) do live[u] = true end
    end
  end
  for _, st in ipairs(steps) do
    if st.always or live[st.def] then out[#out + 1] = st end
  end
  K.jchain = nil
  return out
end

-- the local Jacobian functions of `list` not yet in the source (K.jac_done
-- keeps the names emitted, for the Jacobians that share them)
function M.emit_locals(K, list, locals)
  K.jac_done = K.jac_done or {}
  for _, e in ipairs(list) do
    local lj = locals[e.calc]
    if not K.jac_done[lj.name] and #lj.pattern > 0 and not lj.world then
      K.jac_done[lj.name] = true
      if lj.fd then fd.emit(K, lj) else emit_local(K.C, lj) end
    end
    if lj.fd then
      K.jac_fd = K.jac_fd or {}
      local path = loops.entry_path(e)
      if not K.jac_fd[path] then K.jac_fd[path] = true; K.jac_fd[#K.jac_fd + 1] = path end
    end
  end
end

-- CSC of R (R[row][col] = value) with ncol columns: {colptr=, rowind=, vals=}
function M.csc(R, ncol)
  local cols = {}
  for row, vals in pairs(R) do
    for col, v in pairs(vals) do
      cols[col] = cols[col] or {}
      cols[col][#cols[col] + 1] = { row = row, v = v }
    end
  end
  local colptr, rowind, vals = { 0 }, {}, {}
  for col = 0, ncol - 1 do
    local list = cols[col] or {}
    table.sort(list, function(a, b) return a.row < b.row end)
    for _, x in ipairs(list) do rowind[#rowind + 1] = x.row; vals[#vals + 1] = x.v end
    colptr[#colptr + 1] = #rowind
  end
  return { colptr = colptr, rowind = rowind, vals = vals }
end


-- the end of a Jacobian function: the nonzeros of R (R[row][col] = local)
-- in compressed columns into nz, `return 0;`; returns the CSC
function M.finish(K, R, ncol)
  local C, s = K.C, M.csc(R, ncol)
  for _, st in ipairs(live_steps(K, s.vals)) do
    for _, l in ipairs(st.lines) do C:line(l) end
  end
  for k, v in ipairs(s.vals) do C:linef("  nz[%d] = %s;", k - 1, v) end
  if #s.vals == 0 then C:line("  (void)nz;") end
  C:line("  return 0;")
  C:line("}")
  C:line()
  return s
end

-- the cached `P_jac_TAG` (M.emit_cached), `const int
-- P_jac_TAG_sparsity[] = {nrow, ncol, colptr..., rowind...};` and the
-- descriptor's `P__v_jac_TAG(void *, double *)`
function M.emit_pattern(K, tag, nrow, ncol, s)
  M.emit_cached(K, tag, #s.rowind)
  local all, P = { nrow, ncol }, K.P
  for _, x in ipairs(s.colptr) do all[#all + 1] = x end
  for _, x in ipairs(s.rowind) do all[#all + 1] = x end
  K.C:linef("const int %s_jac_%s_sparsity[%d] = {%s};", P, tag, #all, table.concat(all, ", "))
  K.C:line()
  K.C:linef("static int %s__v_jac_%s(void *c, double *nz)", P, tag)
  K.C:linef("{ return %s_jac_%s((%s_context *)c, nz); }", P, tag, P)
  K.C:line()
end

-- the header's declarations of P_jac_TAG: `comment` lines, then
-- PU_HAS_JAC_TAG 1, its sizes, the pattern and the function
function M.declare(K, tag, comment, nnz, nrow, ncol)
  local api, P, TAG = K.api, K.P, K.PU .. "_JAC_" .. tag:upper()
  for _, l in ipairs(comment) do api[#api + 1] = l end
  api[#api + 1] = string.format("#define %s_HAS_JAC_%s 1", K.PU, tag:upper())
  api[#api + 1] = string.format("#define %s_NROW %d", TAG, nrow)
  api[#api + 1] = string.format("#define %s_NCOL %d", TAG, ncol)
  api[#api + 1] = string.format("#define %s_NNZ %d", TAG, nnz)
  api[#api + 1] = string.format("extern const int %s_jac_%s_sparsity[];", P, tag)
  api[#api + 1] = string.format("int %s_jac_%s(%s_context *c, double *nz);", P, tag, P)
end

-- `int P_jac_TAG(c, nz)`, a cache entry (coder/jacobian_cache.lua): counts
-- the eval, on a miss P__jac_TAG_calc into the context's copy (counting
-- the calc), then a copy out (none when nz is NULL)
function M.emit_cached(K, tag, nnz)
  local j, C, P = K.jcache.by_tag[tag], K.C, K.P
  assert(j, "coder/jacobian_cache: no plan for jac_" .. tag)
  j.nnz = nnz
  local w, b = math.floor(j.index / 64), j.index % 64
  C:linef("int %s_jac_%s(%s_context *c, double *nz)", P, tag, P)
  C:line("{")
  C:linef("  %s__CNT(c->n_eval[%d]++);", P, j.index)
  C:linef("  if (!(c->valid[%d] & c->cache_on & (UINT64_C(1) << %d))) {", w, b)
  C:line("    int rc;")
  C:line("    if (c->frozen) return DIAGC_E_FROZEN;")
  C:linef("    %s__CNT(c->n_calc[%d]++);", P, j.index)
  C:linef("    rc = %s__jac_%s_calc(c, c->jac_%s);", P, tag, tag)
  C:line("    if (rc != 0) return rc;")
  C:linef("    c->valid[%d] |= UINT64_C(1) << %d;", w, b)
  C:line("  }")
  if nnz > 0 then
    C:linef("  if (nz) memcpy(nz, c->jac_%s, %d * sizeof(double));", tag, nnz)
  else
    C:line("  (void)nz;")
  end
  C:line("  return 0;")
  C:line("}")
  C:line()
end

return M
