-- world/ltdl.lua: emits PFX_factor(M) and PFX_solve(LDL, x): Featherstone's
-- tree-sparse L^T D L factorisation of the mass matrix in place (M = L^T D L,
-- L unit lower triangular with the same sparsity as M's lower triangle: no
-- fill-in) and the solve x <- M^-1 x, unrolled over the dof parent array.
-- Only the lower triangle's entries on ancestor chains are read or written
-- (D on the diagonal, L below it); structural zeros and the upper triangle
-- are never touched.  The solve keeps x in local scalars (no aliasing with
-- the factor), storing it once at the end.
local M = {}

local function factor_lines(t)
  local nv, lam, out = t.nv, t.dof_parent, {}
  for k = nv - 1, 0, -1 do
    if lam[k] >= 0 then
      out[#out + 1] = "  {"
      out[#out + 1] = string.format("    const double r = 1.0 / M[%d];", k * nv + k)
      local i = lam[k]
      while i >= 0 do
        out[#out + 1] = string.format("    const double a%d = M[%d] * r;", i, k * nv + i)
        local j = i
        while j >= 0 do
          out[#out + 1] = string.format("    M[%d] -= a%d * M[%d];", i * nv + j, i, k * nv + j)
          j = lam[j]
        end
        out[#out + 1] = string.format("    M[%d] = a%d;", k * nv + i, i)
        i = lam[i]
      end
      out[#out + 1] = "  }"
    end
  end
  return out
end

-- x <- M^-1 x: x in locals, L^T y = x (leaves to root), D z = y, L x = z
local function solve_lines(t)
  local nv, lam, out = t.nv, t.dof_parent, {}
  for i = 0, nv - 1 do out[#out + 1] = string.format("  double x%d = x[%d];", i, i) end
  for i = nv - 1, 0, -1 do
    local j = lam[i]
    while j >= 0 do
      out[#out + 1] = string.format("  x%d -= LDL[%d] * x%d;", j, i * nv + j, i)
      j = lam[j]
    end
  end
  for i = 0, nv - 1 do out[#out + 1] = string.format("  x%d /= LDL[%d];", i, i * nv + i) end
  for i = 0, nv - 1 do
    local j = lam[i]
    while j >= 0 do
      out[#out + 1] = string.format("  x%d -= LDL[%d] * x%d;", i, i * nv + j, j)
      j = lam[j]
    end
  end
  for i = 0, nv - 1 do out[#out + 1] = string.format("  x[%d] = x%d;", i, i) end
  return out
end

function M.emit(world, t, prefix, what)
  local _ = world
  if what == "factor" then
    local out = { string.format("static void %s_factor(double *M)\n{", prefix) }
    local body = factor_lines(t)
    if #body == 0 then body = { "  (void)M;" } end
    for _, l in ipairs(body) do out[#out + 1] = l end
    out[#out + 1] = "}\n"
    return table.concat(out, "\n")
  end
  local out = { string.format("static void %s_solve(const double *LDL, double *x)\n{", prefix) }
  local body = t.nv > 0 and solve_lines(t) or { "  (void)LDL;", "  (void)x;" }
  for _, l in ipairs(body) do out[#out + 1] = l end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
