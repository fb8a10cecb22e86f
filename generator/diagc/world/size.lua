-- world/size.lua: how large a world may be, decided from its tree, its
-- candidate pairs and its settings before any code is generated (the
-- generated C, unrolled per tree, and its derivative code grow faster than
-- the bodies; the measured figures behind each limit: docs/world.md §4,
-- "Size").  Each limit is an error at the world's line naming the number
-- that was too large, the limit, and the way out.
--
--   M.LIMITS               the limits (below)
--   M.tree(C)              before the shapes: bodies, dofs, the unrolled factor
--   M.add_slots(C, n, k)   while the candidate pairs are listed (shapes.lua)
--   M.context(C, bytes)    the step's (and its Jacobians') context bytes
--   M.default_contacts(nslots, work_bytes)  the default max_contacts
--   M.gradients(C, nnz, ncol)  the derivative code, estimated
--   M.factor_products(C), M.gradient_bytes(C, nnz, ncol): the figures
local errors = require("diagc.errors")

local M = {}

M.LIMITS = {
  -- bodies of a world (its code grows with them, unrolled body by body)
  bodies = 1000,
  -- velocity dofs of a world (a tree's block of the mass matrix alone is
  -- its dofs^2 doubles)
  dofs = 2000,
  -- products of the unrolled mass-matrix factor: sum over the dofs of
  -- d (d - 1) / 2, d = the dofs from the root to it (deep chains); 20825
  -- is one chain of 50 dofs
  factor = 20825,
  -- contact slots (each candidate pair of shapes owns 1 to 8: its most
  -- contacts); the pair table and the collision loop grow with the pairs
  slots = 50000,
  -- the context of the step and its Jacobians (the work and grad entries)
  context = 2 ^ 30,
  -- the default max_contacts's memory cap: the bytes of step work (the
  -- work entry, with the contact solve's workspace) a world may take
  -- without the user asking for more by setting max_contacts
  default_work = 8 * 2 ^ 20,
  -- with gradients: dofs (cdiff unrolls arrays of at most 100000 entries:
  -- the mass matrix's nv^2)
  gradient_dofs = 316,
  -- with gradients: bytes of derivative code (estimated)
  gradient_bytes = 12e6,
}

local SIZE = "docs/world.md, \"Size\""

-- The form of the generated dynamics (docs/world.md §6, "Two forms"):
-- "unrolled" (straight-line code per body; its derivatives by cdiff) or
-- "looped" (loops over constant tables of the tree; hand-derived
-- tangents), decided apart for the dynamics and for their tangent
-- derivatives (M.mode(world, t, "tangents")).  world.settings.dynamics
-- forces both; "auto" (the default) loops each once the unrolled code's
-- measure passes its threshold: the sum over the dofs of tree bodies of
-- their depth (dofs from the root, inclusive: what the unrolled mass
-- matrix, factor and cdiff's derivative code grow with), plus 6 per lone
-- free body.  The thresholds come from bench/scale (docs/PERFORMANCE.md,
-- "Large trees"): cdiff's derivative code costs seconds of gcc -O2 from
-- a chain of 5 on (a 7-link chain: 13 s, a 10-link one: 80 s, looped: 1-2
-- s), for Jacobians about 1.4 times faster; the unrolled dynamics compile
-- in seconds up to chains of about 15 and step 1.5 times faster.
-- A world without dofs is unrolled (nothing to loop over).
M.LOOP_UNITS = { dynamics = 120, tangents = 10 }

function M.loop_units(world)
  local SIZES = require("diagc.world.tree").SIZES
  local last, children, units = {}, {}, 0
  for _, b in ipairs(world.bodies) do
    local p = b.joint.parent
    if p > 0 then children[p] = true end
  end
  for i, b in ipairs(world.bodies) do
    local p, n = b.joint.parent, SIZES[b.joint.type].nv
    local d = p > 0 and last[p] or 0
    local lone = b.joint.type == "free" and p == 0 and not children[i]
    for _ = 1, n do
      d = d + 1
      units = units + (lone and 1 or d)
    end
    last[i] = d
  end
  return units
end

function M.mode(world, t, part)
  t = t or world
  local s = world.settings
  local forced = type(s) == "table" and s.dynamics or "auto"
  if t.nv == 0 or t.nb == 0 then return "unrolled" end
  if forced ~= "auto" then return forced end
  return M.loop_units(world) > M.LOOP_UNITS[part or "dynamics"] and "looped" or "unrolled"
end

-- depth (dofs from the root, inclusive) of every velocity dof, in order
local function dof_depths(C)
  local last, depth = {}, {}
  for i, b in ipairs(C.bodies) do
    local p = b.joint.parent
    local d = p > 0 and last[p] or 0
    for _ = 1, b.nv do
      d = d + 1
      depth[#depth + 1] = d
    end
    last[i] = d
  end
  return depth
end

function M.factor_products(C)
  local f, deepest = 0, 0
  for _, d in ipairs(dof_depths(C)) do
    f = f + d * (d - 1) / 2
    deepest = math.max(deepest, d)
  end
  return f, deepest
end

-- Before the shapes (world/check.lua, once the tree is numbered).
function M.tree(C)
  local L = M.LIMITS
  if C.nb > L.bodies then
    errors.raise(C.loc, "world \"%s\" has %d bodies, more than the limit of %d (%s)", C.name, C.nb, L.bodies, SIZE)
  end
  if C.nv > L.dofs then
    errors.raise(C.loc, "world \"%s\" has %d dofs (velocity coordinates of its %d bodies), more than the limit "
      .. "of %d (%s)", C.name, C.nv, C.nb, L.dofs, SIZE)
  end
  local f, deepest = M.factor_products(C)
  if f > L.factor and M.mode(C) == "unrolled" then
    errors.raise(C.loc, "world \"%s\" is too deep to unroll: its chains of joints reach %d dofs from the root, "
      .. "so its mass-matrix factor would unroll to %d products, more than the limit of %d (one chain of 50 dofs; "
      .. "%s); set dynamics = \"looped\" (or \"auto\") or use shallower trees", C.name, deepest, f, L.factor, SIZE)
  end
end

-- Called as candidate pairs are found (world/shapes.lua): n slots so far,
-- k pairs; stops the listing as soon as the limit is passed.
function M.add_slots(C, n, k)
  if n > M.LIMITS.slots then
    errors.raise(C.loc, "world \"%s\" needs more than %d contact slots (each candidate pair of shapes owns 1 to 8; "
      .. "%d slots for its first %d pairs), more than the limit of %d (%s); exclude body pairs that never "
      .. "touch (exclude = { {\"a\", \"b\"}, ... }) or give fewer bodies shapes", C.name, M.LIMITS.slots, n, k,
      M.LIMITS.slots, SIZE)
  end
end

local MIB = 1048576

-- The default max_contacts (docs/world.md, "Capacity"): every contact the
-- candidate pairs can produce (nslots, the sum of their most contacts),
-- or, when that much step work would take more than LIMITS.default_work
-- bytes, the largest count whose work fits (at least 1).  work_bytes(n)
-- is the step work's bytes for max_contacts = n, nondecreasing in n; the
-- count is found by bisection over it, so it follows whatever layout the
-- work entry has.
function M.default_contacts(nslots, work_bytes)
  local cap = M.LIMITS.default_work
  if nslots <= 1 or work_bytes(nslots) <= cap then return math.max(nslots, 1) end
  if work_bytes(1) > cap then return 1 end
  local lo, hi = 1, nslots -- work_bytes(lo) <= cap < work_bytes(hi)
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if work_bytes(mid) <= cap then lo = mid else hi = mid end
  end
  return lo
end

-- bytes of the C declarations in `text` ("double a[3], b[4];", "int n;",
-- "diagc_contact con[8];", "int ws[DIAGC_BROADPHASE_WS(n)]"), an estimate
-- of a struct's size without padding
local ELEMENT = { double = 8, int = 4, diagc_contact = 64 }
function M.decl_bytes(text)
  local total = 0
  for ty, rest in text:gmatch("\n%s*([%w_]+)%s+([^;\n]*);") do
    local size = ELEMENT[ty]
    if size then
      for item in (rest .. ","):gmatch("%s*([^,]-)%s*,") do
        local n = 1
        for dim in item:gmatch("%[([^%]]*)%]") do
          n = n * (tonumber(dim) or 2 * (tonumber(dim:match("%((%d+)%)")) or 1))
        end
        total = total + size * n
      end
    end
  end
  return total
end

function M.context(C, work_bytes, grad_bytes)
  local total = work_bytes + grad_bytes
  if total > M.LIMITS.context then
    errors.raise(C.loc, "world \"%s\": the step's context would take %d MiB (%d MiB of step work for max_contacts = "
      .. "%d%s), more than the limit of %d MiB (%s); lower max_contacts%s", C.name, math.ceil(total / MIB),
      math.ceil(work_bytes / MIB), C.max_collide or C.max_contacts,
      grad_bytes > 0 and string.format(", %d MiB of Jacobians", math.ceil(grad_bytes / MIB)) or "",
      M.LIMITS.context / MIB, SIZE, grad_bytes > 0 and ", exclude pairs or set gradients = false" or "")
  end
end

-- The derivative code's bytes, estimated from the tree (fitted to the
-- generated code of chains, binary trees, combs, legged bases and piles of
-- free bodies to within about 25 %): about 26 kB per dof and ancestor dof
-- of a tree (cdiff's forward mode through the unrolled dynamics), 52 kB
-- per lone free body (its closed form), and the sparsity table of the
-- step's Jacobian (nnz structural nonzeros, ncol columns).
-- The sparsity table's text (world/grad.lua): 5 bytes an entry, a
-- component's row list written once when its columns are long.
local function sparsity_bytes(C, nnz, ncol)
  if ncol > 0 and nnz / ncol > 16 then return 25 * ncol + 10 * C.nv end
  return 5 * (nnz + ncol)
end

function M.gradient_bytes(C, nnz, ncol)
  -- looped tangents (world/tangent_looped.lua): the same code at every
  -- size, a copy of the tree's table (about 400 bytes a body), and the
  -- sparsity table
  local sp = sparsity_bytes(C, nnz, ncol)
  if M.mode(C, nil, "tangents") == "looped" then return 400 * C.nb + sp + 60000 end
  local children = {}
  for _, b in ipairs(C.bodies) do
    local p = b.joint.parent
    if p > 0 then children[p] = (children[p] or 0) + 1 end
  end
  local depth = dof_depths(C)
  local tree_units, lone = 0, 0
  for i, b in ipairs(C.bodies) do
    if b.joint.type == "free" and b.joint.parent == 0 and not children[i] then
      lone = lone + 1
    else
      for k = b.v0 + 1, b.v0 + b.nv do tree_units = tree_units + depth[k] end
    end
  end
  return 26000 * tree_units + 52000 * lone + sp + 30000
end

function M.gradients(C, nnz, ncol)
  local L = M.LIMITS
  -- the dofs limit is cdiff's (unrolled derivatives)
  if #C.pairs > 0 and C.nv > L.gradient_dofs and M.mode(C, nil, "tangents") == "unrolled" then
    errors.raise(C.loc, "world \"%s\" has %d dofs, more than the %d a world with gradients may have (its derivative "
      .. "code unrolls the %d x %d mass matrix; %s); set gradients = false", C.name, C.nv, L.gradient_dofs, C.nv,
      C.nv, SIZE)
  end
  local bytes = M.gradient_bytes(C, nnz, ncol)
  if bytes > L.gradient_bytes then
    errors.raise(C.loc, "world \"%s\": the step's Jacobians would be about %.1f MB of generated C (%d bodies, %d dofs, "
      .. "chains up to %d dofs deep, %d candidate pairs), more than the limit of %g MB (%s); set gradients = false "
      .. "to leave them out%s", C.name, bytes / 1e6, C.nb, C.nv, select(2, M.factor_products(C)), #C.pairs,
      L.gradient_bytes / 1e6, SIZE, M.mode(C, nil, "tangents") == "unrolled" and " (or dynamics = \"looped\")"
      or ", or exclude body pairs that never touch")
  end
end

return M
