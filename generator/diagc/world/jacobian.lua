-- world/jacobian.lua: emits PFX_point_jacobian(body, q, X, p, Jp): the 3 x nv
-- Jacobian (row-major) of the world velocity of the point at world position
-- p moving with body `body` (1-based; 0 = the world: zeros).  One case per
-- body, unrolled over the dofs of its ancestor chain (column k = linear part
-- of S_k + angular part of S_k x p); all other columns are zero.
local motion = require("diagc.world.motion")

local M = {}

local function case_lines(world, t, i, out)
  out[#out + 1] = string.format("  case %d: {", i)
  for _, l in ipairs(motion.chain_lines(world, t, i, "    ")) do out[#out + 1] = l end
  local nv = t.nv
  for _, k in ipairs(t.chain[i]) do
    out[#out + 1] = string.format("    Jp[%d] = S%d[3] + S%d[1] * p[2] - S%d[2] * p[1];", k, k, k, k)
    out[#out + 1] = string.format("    Jp[%d] = S%d[4] + S%d[2] * p[0] - S%d[0] * p[2];", nv + k, k, k, k)
    out[#out + 1] = string.format("    Jp[%d] = S%d[5] + S%d[0] * p[1] - S%d[1] * p[0];", 2 * nv + k, k, k, k)
  end
  out[#out + 1] = "    break;\n  }"
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
    if #t.chain[i] > 0 then case_lines(world, t, i, out) end
  end
  out[#out + 1] = "  default:\n    (void)X;\n    (void)p;\n    break;\n  }\n}\n"
  return table.concat(out, "\n")
end

return M
