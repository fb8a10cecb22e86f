-- world/tree.lua: the structural facts of a checked world's kinematic tree,
-- computed once at generation time: coordinate sizes and offsets per body,
-- the dof parent array (Featherstone's lambda, used by the tree-sparse
-- factorisation), each dof's body, each body's chain of ancestor dofs, and
-- the contact-island tree of each body.
--
--   tree = this module (diagc.world.tree)
--   local t = tree.facts(world)
--   t.nq, t.nv, t.nb
--   t.q0[i], t.v0[i], t.nqi[i], t.nvi[i]   body i (1-based): 0-based offsets and sizes
--   t.dof_parent[k]  0-based dof k's parent dof (0-based), -1 at a root
--   t.dof_body[k]    the body (1-based) that dof k (0-based) moves
--   t.children[i]    bodies (1-based) whose parent is body i
--   t.chain[i]       0-based dofs that move body i (its ancestors' and its own), increasing
--   t.tree_root[i]   1-based index of body i's top-most ancestor that is not welded
--                    to the world (its subtree root); -1 if body i is welded to the world
--   t.tree_id[i]     0-based id of that subtree (numbered in body order), -1 if welded
--   t.ntrees         the number of such subtrees
--   t.tree_dofs[id]  the 0-based dofs of subtree id (0-based), increasing
--   t.nm             doubles of the mass matrix as stored (t.mindex)
--   t.mindex(i, j)   where entry (i, j) (0-based dofs) of the mass matrix is
--                    stored, or nil when dofs i and j are in different subtrees
--   t.q_default      nq zeros, with w = 1 in every quaternion
--
-- The mass matrix is block diagonal over the subtrees (dofs of different
-- subtrees never share a body), so it is stored per subtree: subtree id's
-- block is n x n (n = #tree_dofs[id]), row-major in the order of its dofs,
-- the blocks one after another in subtree order (t.nm = the sum of n^2;
-- a free body's block is its 6 x 6).
--
-- Dofs are numbered in body order, so a dof's parent always has a smaller
-- index (what the factorisation needs).  q0 / v0 given in the world must
-- match that packing.
local M = {}

M.SIZES = {
  revolute = { nq = 1, nv = 1 },
  prismatic = { nq = 1, nv = 1 },
  fixed = { nq = 0, nv = 0 },
  ball = { nq = 4, nv = 3 },
  free = { nq = 7, nv = 6 },
}

local function sizes(body, i)
  local s = M.SIZES[body.joint.type]
  if not s then error(string.format("world body %d: unknown joint type %s", i, tostring(body.joint.type)), 0) end
  return s
end

-- offsets and the dof chains, in body order
local function pack(world, t)
  local nq, nv = 0, 0
  for i, b in ipairs(world.bodies) do
    local s = sizes(b, i)
    local p = b.joint.parent
    if type(p) ~= "number" or p < 0 or p >= i then
      error(string.format("world body %d: parent %s must precede it", i, tostring(p)), 0)
    end
    t.q0[i], t.v0[i], t.nqi[i], t.nvi[i] = nq, nv, s.nq, s.nv
    local last = -1 -- the nearest ancestor dof
    local chain = {}
    if p > 0 then
      for _, k in ipairs(t.chain[p]) do chain[#chain + 1] = k end
      last = t.last_dof[p]
    end
    for k = nv, nv + s.nv - 1 do
      t.dof_parent[k], t.dof_body[k] = last, i
      chain[#chain + 1] = k
      last = k
    end
    t.chain[i], t.last_dof[i] = chain, last
    for _, key in ipairs({ "q0", "v0" }) do
      if b[key] ~= nil and b[key] ~= t[key][i] then
        error(string.format("world body %d: %s = %s, expected %d (body order packing)", i, key,
          tostring(b[key]), t[key][i]), 0)
      end
    end
    nq, nv = nq + s.nq, nv + s.nv
  end
  t.nq, t.nv = nq, nv
end

-- contact islands: a body welded to the world (a chain of fixed joints up to
-- it) belongs to none; others to the subtree under their top-most non-welded
-- ancestor
local function islands(world, t)
  t.ntrees = 0
  for i, b in ipairs(world.bodies) do
    local p = b.joint.parent
    local welded_parent = p == 0 or t.tree_root[p] == -1
    if welded_parent and b.joint.type == "fixed" then
      t.tree_root[i], t.tree_id[i] = -1, -1
    elseif welded_parent then
      t.tree_root[i], t.tree_id[i] = i, t.ntrees
      t.ntrees = t.ntrees + 1
    else
      t.tree_root[i], t.tree_id[i] = t.tree_root[p], t.tree_id[p]
    end
  end
end

local function tree_dofs(t)
  t.tree_dofs = {}
  for id = 0, t.ntrees - 1 do t.tree_dofs[id] = {} end
  for k = 0, t.nv - 1 do
    local id = t.tree_id[t.dof_body[k]]
    local list = t.tree_dofs[id]
    list[#list + 1] = k
  end
  -- the mass matrix's blocks (t.mindex)
  t.m_off, t.m_n, t.m_pos, t.nm = {}, {}, {}, 0
  for id = 0, t.ntrees - 1 do
    local n = #t.tree_dofs[id]
    t.m_off[id], t.m_n[id] = t.nm, n
    for p, k in ipairs(t.tree_dofs[id]) do t.m_pos[k] = p - 1 end
    t.nm = t.nm + n * n
  end
  function t.mindex(i, j)
    local a, b = t.tree_id[t.dof_body[i]], t.tree_id[t.dof_body[j]]
    if a ~= b then return nil end
    return t.m_off[a] + t.m_pos[i] * t.m_n[a] + t.m_pos[j]
  end
end

function M.facts(world)
  local t = { nb = #world.bodies, q0 = {}, v0 = {}, nqi = {}, nvi = {}, dof_parent = {}, dof_body = {},
    chain = {}, last_dof = {}, tree_root = {}, tree_id = {}, q_default = {}, children = {} }
  pack(world, t)
  for i = 1, t.nb do t.children[i] = {} end
  for i, b in ipairs(world.bodies) do
    local p = b.joint.parent
    if p > 0 then t.children[p][#t.children[p] + 1] = i end
  end
  islands(world, t)
  tree_dofs(t)
  for k = 1, t.nq do t.q_default[k] = 0 end
  for i, b in ipairs(world.bodies) do
    local ty = b.joint.type
    if ty == "ball" then t.q_default[t.q0[i] + 1] = 1 end
    if ty == "free" then t.q_default[t.q0[i] + 4] = 1 end
  end
  for _, key in ipairs({ "nq", "nv", "nb" }) do
    if world[key] ~= nil and world[key] ~= t[key] then
      error(string.format("world: %s = %s, the bodies give %d", key, tostring(world[key]), t[key]), 0)
    end
  end
  return t
end

-- Is dof a an ancestor of dof b (or b itself)?
function M.dof_ancestor(t, a, b)
  while b >= 0 do
    if b == a then return true end
    b = t.dof_parent[b]
  end
  return false
end

-- The inertial numbers of the moving bodies are the world's parameters
-- mass, com and inertia (docs/world.md, "Parameters"): the generated
-- functions take them packed as `const double *inertial`, 10 per moving
-- body in body order (M.INERTIAL: m, the centre of mass cx, cy, cz, the
-- inertia about it ixx, iyy, izz, ixy, ixz, iyz; world/step.lua packs them).
M.INERTIAL = 10

-- body i's place j among the moving bodies (0-based), nil for a body no dof moves
function M.moving_index(t, i)
  if #t.chain[i] == 0 then return nil end
  local j = 0
  for k = 1, i - 1 do
    if #t.chain[k] > 0 then j = j + 1 end
  end
  return j
end

-- the C expression of body i's mass ("inertial[10 j]"), nil for a body no dof moves
function M.mass(t, i)
  local j = M.moving_index(t, i)
  return j and string.format("inertial[%d]", M.INERTIAL * j) or nil
end

-- the C expressions of body i's 10 inertial numbers (M.INERTIAL), nil for
-- a body no dof moves
function M.inertial(t, i)
  local j = M.moving_index(t, i)
  if not j then return nil end
  local e = {}
  for k = 0, M.INERTIAL - 1 do e[k + 1] = string.format("inertial[%d]", M.INERTIAL * j + k) end
  return e
end

-- the number of moving bodies (the size of `mass`)
function M.nmass(t)
  local n = 0
  for i = 1, t.nb do
    if #t.chain[i] > 0 then n = n + 1 end
  end
  return n
end

return M
