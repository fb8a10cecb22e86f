-- world/jacobian.lua: emits PFX_point_jacobian(body, q, X, p, Jp): the 3 x nv
-- Jacobian (row-major) of the world velocity of the point at world position
-- p moving with body `body` (1-based; 0 = the world: zeros).  One case per
-- body, unrolled over the dofs of its ancestor chain (column k = linear part
-- of S_k + angular part of S_k x p); all other columns are zero.
local motion = require("diagc.world.motion")

local M = {}

-- col(k): the column of dof k; ld: the row stride
local function case_lines(world, t, i, out, col, ld)
  out[#out + 1] = string.format("  case %d: {", i)
  for _, l in ipairs(motion.chain_lines(world, t, i, "    ")) do out[#out + 1] = l end
  for _, k in ipairs(t.chain[i]) do
    local c = col(k)
    out[#out + 1] = string.format("    Jp[%d] = S%d[3] + S%d[1] * p[2] - S%d[2] * p[1];", c, k, k, k)
    out[#out + 1] = string.format("    Jp[%d] = S%d[4] + S%d[2] * p[0] - S%d[0] * p[2];", ld + c, k, k, k)
    out[#out + 1] = string.format("    Jp[%d] = S%d[5] + S%d[0] * p[1] - S%d[1] * p[0];", 2 * ld + c, k, k, k)
  end
  out[#out + 1] = "    break;\n  }"
end

-- The widest tree (dofs), and each dof's column among its tree's dofs.
function M.tree_columns(t)
  local width, col = 0, {}
  for id = 0, t.ntrees - 1 do
    local list = t.tree_dofs[id]
    width = math.max(width, #list)
    for c, k in ipairs(list) do col[k] = c - 1 end
  end
  return width, col
end

-- PFX_point_jacobian_tree(body, q, X, p, Jp): the same Jacobian on the dofs
-- of the body's tree only, 3 x width (width: the widest tree's dofs;
-- column c = the tree's c-th dof, tree_dofs order); zeros for a body
-- welded to the world.
function M.emit_tree(world, t, prefix)
  local width, col = M.tree_columns(t)
  local out = { string.format(
    "static void %s_point_jacobian_tree(int body, const double *q, const double *X, const double p[3], double *Jp)\n{",
    prefix) }
  out[#out + 1] = "  (void)q;"
  if width == 0 then
    out[#out + 1] = "  (void)body;\n  (void)X;\n  (void)p;\n  (void)Jp;\n}\n"
    return table.concat(out, "\n")
  end
  out[#out + 1] = "  int k;"
  out[#out + 1] = string.format("  for (k = 0; k < %d; ++k) Jp[k] = 0.0;", 3 * width)
  out[#out + 1] = "  switch (body) {"
  for i = 1, t.nb do
    if #t.chain[i] > 0 then case_lines(world, t, i, out, function(k) return col[k] end, width) end
  end
  out[#out + 1] = "  default:\n    (void)X;\n    (void)p;\n    break;\n  }\n}\n"
  return table.concat(out, "\n")
end

function M.emit(world, t, prefix)
  local out = { string.format(
    "static void %s_point_jacobian(int body, const double *q, const double *X, const double p[3], double *Jp)\n{",
    prefix) }
  out[#out + 1] = "  (void)q;"
  if t.nv == 0 then
    out[#out + 1] = "  (void)body;\n  (void)X;\n  (void)p;\n  (void)Jp;\n}\n"
    return table.concat(out, "\n")
  end
  out[#out + 1] = "  int k;"
  out[#out + 1] = string.format("  for (k = 0; k < %d; ++k) Jp[k] = 0.0;", 3 * t.nv)
  out[#out + 1] = "  switch (body) {"
  for i = 1, t.nb do
    if #t.chain[i] > 0 then case_lines(world, t, i, out, function(k) return k end, t.nv) end
  end
  out[#out + 1] = "  default:\n    (void)X;\n    (void)p;\n    break;\n  }\n}\n"
  return table.concat(out, "\n")
end

return M
