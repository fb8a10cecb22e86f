-- world/ltdl.lua: emits PFX_factor(M), PFX_solve(LDL, x), PFX_solve_cols(LDL,
-- X, ncol, ld) (the solve of each column of X) and
-- PFX_solve_tree(LDL, tree, x) (the solve over one subtree's dofs, x
-- packed: x[k] is the tree's k-th dof; M is block diagonal over the
-- subtrees): Featherstone's
-- tree-sparse L^T D L factorisation of the mass matrix in place (M = L^T D L,
-- L unit lower triangular with the same sparsity as M's lower triangle: no
-- fill-in) and the solve x <- M^-1 x, unrolled over the dof parent array.
-- M is stored per subtree (world/tree.lua, t.mindex); only the lower
-- triangle's entries on ancestor chains are read or written
-- (D on the diagonal, L below it); structural zeros and the upper triangle
-- are never touched, nor the entries known to be zero for every q (a lone
-- free body's, world/lone.lua), nor what stays zero from them.  The solve keeps x in local scalars (no aliasing with
-- the factor), storing it once at the end.
local M = {}

-- The symbolic factorisation: which lower entries can be nonzero, starting
-- from the tree pattern less the entries known to be zero for every q
-- (lone free bodies), and the updates that can change a value.  Returns
-- nz (flat index -> true) and, per row k, a list of {i, {{j, assign}...}}
-- (assign: the update fills in an entry known zero, so it writes it first).
local function symbolic(world, t)
  local nv, lam = t.nv, t.dof_parent
  local zero = require("diagc.world.lone").known_zero(world, t)
  local nz = {}
  for i = 0, nv - 1 do
    local j = i
    while j >= 0 do
      if not zero[i * nv + j] then nz[i * nv + j] = true end
      j = lam[j]
    end
  end
  local rows = {}
  for k = nv - 1, 0, -1 do
    local row = {}
    local i = lam[k]
    while i >= 0 do
      if nz[k * nv + i] then
        local js = {}
        local j = i
        while j >= 0 do
          if nz[k * nv + j] then
            -- an entry known zero is filled in: its first update assigns
            js[#js + 1] = { j, not nz[i * nv + j] }
            nz[i * nv + j] = true
          end
          j = lam[j]
        end
        row[#row + 1] = { i, js }
      end
      i = lam[i]
    end
    rows[k] = row
  end
  return nz, rows
end

local function factor_lines(world, t)
  local nv, out, at = t.nv, {}, t.mindex
  local _, rows = symbolic(world, t)
  for k = nv - 1, 0, -1 do
    if #rows[k] > 0 then
      out[#out + 1] = "  {"
      out[#out + 1] = string.format("    const double r = 1.0 / M[%d];", at(k, k))
      for _, e in ipairs(rows[k]) do
        local i = e[1]
        out[#out + 1] = string.format("    const double a%d = M[%d] * r;", i, at(k, i))
        for _, jj in ipairs(e[2]) do
          local j, assign = jj[1], jj[2]
          out[#out + 1] = string.format(assign and "    M[%d] = -a%d * M[%d];" or "    M[%d] -= a%d * M[%d];",
            at(i, j), i, at(k, j))
        end
        out[#out + 1] = string.format("    M[%d] = a%d;", at(k, i), i)
      end
      out[#out + 1] = "  }"
    end
  end
  return out
end

-- x <- M^-1 x over `dofs` (increasing; closed under dof_parent): x in
-- locals, L^T y = x (leaves to root), D z = y, L x = z; entries of L that
-- stay zero are skipped
-- (x[i] for dof i, or with `packed` x[k] for the k-th of `dofs`, or with
-- `strided` x[i * ld])
local function solve_lines(t, nz, dofs, indent, packed, strided)
  local nv, lam, out, mi = t.nv, t.dof_parent, {}, t.mindex
  local function add(fmt, ...) out[#out + 1] = indent .. string.format(fmt, ...) end
  local at = {}
  for k, i in ipairs(dofs) do
    at[i] = packed and tostring(k - 1) or strided and (i == 0 and "0" or string.format("%d * ld", i)) or tostring(i)
  end
  for _, i in ipairs(dofs) do add("double x%d = x[%s];", i, at[i]) end
  for n = #dofs, 1, -1 do
    local i = dofs[n]
    local j = lam[i]
    while j >= 0 do
      if nz[i * nv + j] then add("x%d -= LDL[%d] * x%d;", j, mi(i, j), i) end
      j = lam[j]
    end
  end
  for _, i in ipairs(dofs) do add("x%d /= LDL[%d];", i, mi(i, i)) end
  for _, i in ipairs(dofs) do
    local j = lam[i]
    while j >= 0 do
      if nz[i * nv + j] then add("x%d -= LDL[%d] * x%d;", i, mi(i, j), j) end
      j = lam[j]
    end
  end
  for _, i in ipairs(dofs) do add("x[%s] = x%d;", at[i], i) end
  return out
end

local function all_dofs(t)
  local d = {}
  for k = 0, t.nv - 1 do d[#d + 1] = k end
  return d
end

-- `switch (tree)` over the subtrees, each case solve_lines' straight
-- lines on x packed, indented by `ind` (the switch's own indent)
local function tree_switch(world, t, out, ind)
  local nz = symbolic(world, t)
  out[#out + 1] = ind .. "switch (tree) {"
  for id = 0, t.ntrees - 1 do
    if #t.tree_dofs[id] > 0 then
      out[#out + 1] = string.format("%scase %d: {", ind, id)
      for _, l in ipairs(solve_lines(t, nz, t.tree_dofs[id], ind .. "  ", true)) do out[#out + 1] = l end
      out[#out + 1] = ind .. "  break;\n" .. ind .. "}"
    end
  end
  out[#out + 1] = ind .. "default:\n" .. ind .. "  break;\n" .. ind .. "}"
end

local function solve_tree(world, t, prefix)
  local out = { string.format("static void %s_solve_tree(const double *LDL, int tree, double *x)\n{", prefix) }
  if t.nv == 0 then
    out[#out + 1] = "  (void)LDL;\n  (void)tree;\n  (void)x;\n}\n"
    return table.concat(out, "\n")
  end
  tree_switch(world, t, out, "  ")
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

-- the same for a contact's three rows x, x + stride, x + 2 stride:
-- solve_tree's straight lines in a loop over the rows
local function solve_tree3(world, t, prefix)
  local out = { string.format("static void %s_solve_tree3(const double *LDL, int tree, double *x0, int stride)\n{",
    prefix) }
  if t.nv == 0 then
    out[#out + 1] = "  (void)LDL;\n  (void)tree;\n  (void)x0;\n  (void)stride;\n}\n"
    return table.concat(out, "\n")
  end
  out[#out + 1] = "  for (int row = 0; row < 3; row++) {"
  out[#out + 1] = "    double *x = x0 + row * stride;"
  tree_switch(world, t, out, "    ")
  out[#out + 1] = "  }\n}\n"
  return table.concat(out, "\n")
end

-- X <- M^-1 X for the nv x ncol row-major X (row stride ld): solve's
-- straight lines (the same arithmetic) once per column
local function solve_cols(world, t, prefix)
  local out = { string.format("static void %s_solve_cols(const double *LDL, double *X, int ncol, int ld)\n{", prefix) }
  if t.nv == 0 then
    out[#out + 1] = "  (void)LDL;\n  (void)X;\n  (void)ncol;\n  (void)ld;\n}\n"
    return table.concat(out, "\n")
  end
  out[#out + 1] = "  (void)ld; /* unread with a single dof */"
  local nz = symbolic(world, t)
  -- two columns side by side (the same statements on adjacent entries: a
  -- compiler may pair them in vector registers), then the last one alone
  out[#out + 1] = "  int c = 0;"
  out[#out + 1] = "  for (; c + 1 < ncol; c += 2) {"
  out[#out + 1] = "    double *x = X + c, *y = X + c + 1;"
  local one = solve_lines(t, nz, all_dofs(t), "    ", false, true)
  for _, l in ipairs(one) do
    out[#out + 1] = l
    out[#out + 1] = (l:gsub("x(%d+)", "y%1"):gsub("x%[", "y["))
  end
  out[#out + 1] = "  }"
  out[#out + 1] = "  if (c < ncol) {"
  out[#out + 1] = "    double *x = X + c;"
  for _, l in ipairs(one) do out[#out + 1] = l end
  out[#out + 1] = "  }\n}\n"
  return table.concat(out, "\n")
end

function M.emit(world, t, prefix, what)
  if what == "factor" then
    local out = { string.format("static void %s_factor(double *M)\n{", prefix) }
    local body = factor_lines(world, t)
    if #body == 0 then body = { "  (void)M;" } end
    for _, l in ipairs(body) do out[#out + 1] = l end
    out[#out + 1] = "}\n"
    return table.concat(out, "\n")
  end
  if what == "solve_tree" then return solve_tree(world, t, prefix) end
  if what == "solve_tree3" then return solve_tree3(world, t, prefix) end
  if what == "solve_cols" then return solve_cols(world, t, prefix) end
  local out = { string.format("static void %s_solve(const double *LDL, double *x)\n{", prefix) }
  local body = t.nv > 0 and solve_lines(t, symbolic(world, t), all_dofs(t), "  ") or { "  (void)LDL;", "  (void)x;" }
  for _, l in ipairs(body) do out[#out + 1] = l end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
