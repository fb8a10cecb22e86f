-- world/hull.lua: the convex hull of a point set, by quickhull, for the
-- collision meshes (docs/world.md, "Meshes").  Deterministic: the same
-- points give the same hull, in the same order, bit for bit.
--
--   M.hull(pts, cap) -> hull | nil, why
--     pts: flat {x1, y1, z1, ...}; cap: the most vertices kept (M.MAX_VERTICES)
--     hull = { vertices = { {x, y, z}, ... }  sorted by (z, y, x): a box's
--              corners come in the runtime's corner order (bit 0: +x,
--              bit 1: +y, bit 2: +z),
--              faces = { { verts = {i, ...} (1-based, counter-clockwise seen
--              from outside, from the smallest index), n = {unit outward
--              normal}, d = max of n.v over the vertices }, ... } sorted by
--              their vertex lists,
--              dropped = points left outside when the cap stopped the hull
--              (0: the exact hull), outside = the farthest of them from it (m),
--              radius = the largest |v| }
--     why: "coincident", "collinear" or "coplanar" (no volume), with a
--     length for the message
--
-- Quickhull: a tetrahedron of extreme points, each other point assigned to
-- the first face it lies above (by more than eps = 1e-9 of the points'
-- extent); then, repeatedly, the point farthest above any face (ties: the
-- earlier point) joins the hull: the faces it sees (or lies within eps
-- of the plane of) go, and its horizon edges make new faces.  The cap stops this once the hull has `cap`
-- vertices: the result is the hull of the points added so far, each of
-- which was the farthest outside the hull before it (a simplification
-- that keeps the mesh's extreme points first).  Triangles in the plane of
-- a seed triangle (normals within 1e-9, vertices within eps of its plane)
-- merge into one polygon face.
local M = {}

M.MAX_VERTICES = 64 -- hull vertices kept per mesh (docs/world.md, "Meshes")

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end
local function norm(a) return math.sqrt(dot(a, a)) end

-- unique points in first-seen order
local function unique(pts)
  local P, seen = {}, {}
  for i = 1, #pts - 2, 3 do
    local x, y, z = pts[i], pts[i + 1], pts[i + 2]
    local k = string.format("%.17g %.17g %.17g", x, y, z)
    if not seen[k] then
      seen[k] = true
      P[#P + 1] = { x, y, z }
    end
  end
  return P
end

local function less_zyx(a, b)
  if a[3] ~= b[3] then return a[3] < b[3] end
  if a[2] ~= b[2] then return a[2] < b[2] end
  return a[1] < b[1]
end

-- the initial tetrahedron: i0, i1 the farthest pair of the six axis
-- extremes; i2 the farthest from their line; i3 from their plane
local function simplex(P, eps)
  local ext = {}
  for ax = 1, 3 do
    local lo, hi = 1, 1
    for i = 2, #P do
      if P[i][ax] < P[lo][ax] then lo = i end
      if P[i][ax] > P[hi][ax] then hi = i end
    end
    ext[#ext + 1], ext[#ext + 2] = lo, hi
  end
  local i0, i1, best = ext[1], ext[2], -1
  for a = 1, 6 do
    for b = a + 1, 6 do
      local dd = norm(sub(P[ext[a]], P[ext[b]]))
      if dd > best then i0, i1, best = ext[a], ext[b], dd end
    end
  end
  if best <= eps then return nil, "coincident", best end
  local u = sub(P[i1], P[i0])
  local i2, b2 = nil, -1
  for i = 1, #P do
    local dd = norm(cross(u, sub(P[i], P[i0]))) / best
    if dd > b2 then i2, b2 = i, dd end
  end
  if b2 <= eps then return nil, "collinear", b2 end
  local n = cross(u, sub(P[i2], P[i0]))
  n = { n[1] / norm(n), n[2] / norm(n), n[3] / norm(n) }
  local i3, b3 = nil, -1
  for i = 1, #P do
    local dd = math.abs(dot(n, sub(P[i], P[i0])))
    if dd > b3 then i3, b3 = i, dd end
  end
  if b3 <= eps then return nil, "coplanar", b3 end
  return { i0, i1, i2, i3 }
end

function M.hull(pts, cap)
  cap = cap or M.MAX_VERTICES
  local P = unique(pts)
  if #P < 4 then return nil, #P <= 1 and "coincident" or (#P == 2 and "collinear" or "coplanar"), 0 end
  local lo, hi = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
  for _, p in ipairs(P) do
    for k = 1, 3 do
      lo[k], hi[k] = math.min(lo[k], p[k]), math.max(hi[k], p[k])
    end
  end
  local extent = norm(sub(hi, lo))
  local eps = 1e-9 * extent
  local s, why, len = simplex(P, eps)
  if not s then return nil, why, len end
  local N = #P
  local faces, E = {}, {} -- E[a * (N + 1) + b]: the face holding directed edge a -> b
  local function ekey(a, b) return a * (N + 1) + b end
  local function new_face(a, b, c)
    local n = cross(sub(P[b], P[a]), sub(P[c], P[a]))
    local l = norm(n)
    if l > 0 then n = { n[1] / l, n[2] / l, n[3] / l } end
    local f = { v = { a, b, c }, n = n, d = dot(n, P[a]), out = {}, alive = true, id = #faces + 1 }
    faces[f.id] = f
    E[ekey(a, b)], E[ekey(b, c)], E[ekey(c, a)] = f, f, f
    return f
  end
  local function dist(f, i) return dot(f.n, P[i]) - f.d end
  -- the tetrahedron, outward: the fourth point below each face
  local t = s
  local c0 = { 0, 0, 0 }
  for k = 1, 4 do for j = 1, 3 do c0[j] = c0[j] + P[t[k]][j] / 4 end end
  local tri = { { t[1], t[2], t[3] }, { t[1], t[2], t[4] }, { t[1], t[3], t[4] }, { t[2], t[3], t[4] } }
  for _, v in ipairs(tri) do
    local n = cross(sub(P[v[2]], P[v[1]]), sub(P[v[3]], P[v[1]]))
    if dot(n, sub(c0, P[v[1]])) > 0 then v[2], v[3] = v[3], v[2] end
    new_face(v[1], v[2], v[3])
  end
  local on = { [t[1]] = true, [t[2]] = true, [t[3]] = true, [t[4]] = true }
  local function assign(list, cand)
    for _, i in ipairs(list) do
      for _, f in ipairs(cand) do
        if dist(f, i) > eps then
          f.out[#f.out + 1] = i
          break
        end
      end
    end
  end
  local all = {}
  for i = 1, N do if not on[i] then all[#all + 1] = i end end
  assign(all, { faces[1], faces[2], faces[3], faces[4] })
  local nverts = 4
  while true do
    -- the point farthest above any face
    local bf, bi, bd = nil, nil, -1
    for _, f in ipairs(faces) do
      if f.alive then
        for _, i in ipairs(f.out) do
          local dd = dist(f, i)
          if dd > bd or (dd == bd and i < bi) then bf, bi, bd = f, i, dd end
        end
      end
    end
    if bf == nil or nverts >= cap then break end
    -- the faces it sees (a walk over neighbours from bf), and those it
    -- lies in the plane of (within eps): the new faces then replace them
    -- instead of meeting them in a sliver, whose normal would be noise
    local vis, list, stack = { [bf] = true }, { bf }, { bf }
    while #stack > 0 do
      local f = table.remove(stack)
      for k = 1, 3 do
        local a, b = f.v[k], f.v[k % 3 + 1]
        local g = E[ekey(b, a)]
        if g and not vis[g] and dist(g, bi) > -eps then
          vis[g] = true
          list[#list + 1], stack[#stack + 1] = g, g
        end
      end
    end
    local horizon = {}
    for _, f in ipairs(list) do
      for k = 1, 3 do
        local a, b = f.v[k], f.v[k % 3 + 1]
        if not vis[E[ekey(b, a)]] then horizon[#horizon + 1] = { a, b } end
      end
    end
    local orphans = {}
    for _, f in ipairs(list) do
      f.alive = false
      for k = 1, 3 do
        local a, b = f.v[k], f.v[k % 3 + 1]
        if E[ekey(a, b)] == f then E[ekey(a, b)] = nil end
      end
      for _, i in ipairs(f.out) do if i ~= bi then orphans[#orphans + 1] = i end end
      f.out = {}
    end
    local made = {}
    for _, h in ipairs(horizon) do made[#made + 1] = new_face(h[1], h[2], bi) end
    table.sort(orphans)
    assign(orphans, made)
    -- the vertices of the hull so far
    local used = {}
    nverts = 0
    for _, f in ipairs(faces) do
      if f.alive then
        for k = 1, 3 do
          if not used[f.v[k]] then used[f.v[k]], nverts = true, nverts + 1 end
        end
      end
    end
  end
  -- what the cap left outside
  local dropped, outside = 0, 0
  for _, f in ipairs(faces) do
    if f.alive then
      for _, i in ipairs(f.out) do
        dropped = dropped + 1
        outside = math.max(outside, dist(f, i))
      end
    end
  end
  -- the vertices, sorted by (z, y, x), renumbered
  local vid, verts = {}, {}
  for _, f in ipairs(faces) do
    if f.alive then
      for k = 1, 3 do
        if not vid[f.v[k]] then
          vid[f.v[k]] = true
          verts[#verts + 1] = f.v[k]
        end
      end
    end
  end
  table.sort(verts, function(a, b)
    if less_zyx(P[a], P[b]) then return true end
    if less_zyx(P[b], P[a]) then return false end
    return a < b
  end)
  local V, new = {}, {}
  for k, i in ipairs(verts) do V[k], new[i] = { P[i][1], P[i][2], P[i][3] }, k end
  -- triangles in one plane -> one polygon: grown from a seed triangle over
  -- neighbours in the seed's plane (normals within 1e-9, vertices within
  -- eps of it: never a drift along a slightly curved surface)
  local alive = {}
  for _, f in ipairs(faces) do if f.alive then alive[#alive + 1] = f end end
  local function in_plane(seed, g)
    if dot(seed.n, g.n) < 1 - 1e-9 then return false end
    for k = 1, 3 do
      if math.abs(dist(seed, g.v[k])) > eps then return false end
    end
    return true
  end
  local group_of, groups = {}, {}
  for _, seed in ipairs(alive) do
    if not group_of[seed] then
      local members, stack = { seed }, { seed }
      group_of[seed] = seed
      while #stack > 0 do
        local f = table.remove(stack)
        for k = 1, 3 do
          local g = E[ekey(f.v[k % 3 + 1], f.v[k])]
          if g and g.alive and not group_of[g] and in_plane(seed, g) then
            group_of[g] = seed
            members[#members + 1], stack[#stack + 1] = g, g
          end
        end
      end
      groups[#groups + 1] = members
    end
  end
  -- a polygon's boundary: one loop over every edge to another group (else,
  -- a group that does not close into one loop: its triangles stay faces)
  local function loop_of(members)
    local nxt, start, count = {}, nil, 0
    local mine = group_of[members[1]]
    for _, f in ipairs(members) do
      for k = 1, 3 do
        local a, b = f.v[k], f.v[k % 3 + 1]
        if group_of[E[ekey(b, a)]] ~= mine then
          if nxt[new[a]] then return nil end
          nxt[new[a]] = new[b]
          count = count + 1
          if start == nil or new[a] < start then start = new[a] end
        end
      end
    end
    local loop, v = {}, start
    repeat
      loop[#loop + 1] = v
      v = nxt[v]
    until v == start or v == nil or #loop > count
    if v ~= start or #loop ~= count then return nil end
    return loop
  end
  local F = {}
  local function add_face(loop)
    -- Newell's normal of the polygon; d: the largest n.v over all vertices
    local n = { 0, 0, 0 }
    for k = 1, #loop do
      local a, b = V[loop[k]], V[loop[k % #loop + 1]]
      n[1] = n[1] + (a[2] - b[2]) * (a[3] + b[3])
      n[2] = n[2] + (a[3] - b[3]) * (a[1] + b[1])
      n[3] = n[3] + (a[1] - b[1]) * (a[2] + b[2])
    end
    local l = norm(n)
    n = { n[1] / l, n[2] / l, n[3] / l }
    local d = -math.huge
    for _, p in ipairs(V) do d = math.max(d, dot(n, p)) end
    F[#F + 1] = { verts = loop, n = n, d = d }
  end
  for _, members in ipairs(groups) do
    local loop = loop_of(members)
    if loop then
      add_face(loop)
    else
      for _, f in ipairs(members) do
        local t = { new[f.v[1]], new[f.v[2]], new[f.v[3]] }
        while t[1] > math.min(t[2], t[3]) do t = { t[2], t[3], t[1] } end
        add_face(t)
      end
    end
  end
  table.sort(F, function(a, b)
    for k = 1, math.min(#a.verts, #b.verts) do
      if a.verts[k] ~= b.verts[k] then return a.verts[k] < b.verts[k] end
    end
    return #a.verts < #b.verts
  end)
  local radius = 0
  for _, p in ipairs(V) do radius = math.max(radius, norm(p)) end
  return { vertices = V, faces = F, dropped = dropped, outside = outside, radius = radius }
end

-- the hull's volume (by the divergence theorem over its faces)
function M.volume(h)
  local vol = 0
  for _, f in ipairs(h.faces) do
    local a = h.vertices[f.verts[1]]
    for k = 2, #f.verts - 1 do
      local b, c = h.vertices[f.verts[k]], h.vertices[f.verts[k + 1]]
      vol = vol + dot(a, cross(b, c)) / 6
    end
  end
  return vol
end

return M
