-- world/mesh_tris.lua: the triangles of a visual mesh file, for the
-- viewer (cli/page_visual.lua): STL (binary and ASCII), Wavefront OBJ
-- (polygons as fans) and COLLADA (<triangles>, <polylist>, <polygons>
-- placed by the nodes of its visual scenes, in <unit meter>, each
-- primitive with its material's diffuse colour) and glTF 2.0 (.gltf,
-- .glb: world/mesh_gltf.lua, each primitive in its baseColorFactor).
-- world/mesh_read.lua
-- reads the vertices of collision meshes for their hulls; this reads the
-- faces too.  Sizes are bounded by mesh_read.MAX_VERTICES.
--
--   M.read(text, kind, fail, xml_parse, name, load) -> mesh
--     mesh = { positions = {x, y, z, ...} (metres of the file), indices =
--       {i, j, k, ...} (0-based), groups = { {start=, count= (in indices),
--       rgba = nil | {4}} ... }, notes = { what the file has that is not
--       drawn (a glTF's textures ...) } }
--     fail(line, fmt, ...) raises; load(uri): a glTF's external buffer
local read = require("diagc.world.mesh_read")
local gltf = require("diagc.world.mesh_gltf")

local M = {}

local number, floats = read.number, read.floats

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

local function new(fail)
  local m = { positions = {}, indices = {}, groups = {} }
  function m.vertex(x, y, z, line)
    if not (finite(x) and finite(y) and finite(z)) then fail(line, "a vertex has a non-finite coordinate") end
    local n = #m.positions
    if n >= 3 * read.MAX_VERTICES then
      fail(line, "the mesh has more than %d vertices (the limit of one mesh file)", read.MAX_VERTICES)
    end
    m.positions[n + 1], m.positions[n + 2], m.positions[n + 3] = x, y, z
    return n / 3
  end
  function m.group(rgba)
    local g = m.groups[#m.groups]
    if g and g.count == 0 then g.rgba = rgba return end
    m.groups[#m.groups + 1] = { start = #m.indices, count = 0, rgba = rgba }
  end
  function m.tri(a, b, c)
    local n = #m.indices
    m.indices[n + 1], m.indices[n + 2], m.indices[n + 3] = a, b, c
    local g = m.groups[#m.groups]
    g.count = g.count + 3
  end
  return m
end

local function stl(text, fail)
  local m = new(fail)
  m.group(nil)
  local n = #text >= 84 and text:byte(81) + 256 * (text:byte(82) + 256 * (text:byte(83) + 256 * text:byte(84)))
  if n and #text == 84 + 50 * n then
    local ffi = require("ffi")
    if 3 * n > read.MAX_VERTICES then fail(nil, "the binary STL holds %d triangles, more than the limit", n) end
    local f, base = ffi.new("float[9]"), ffi.cast("const uint8_t *", text)
    for t = 0, n - 1 do
      ffi.copy(f, base + 84 + 50 * t + 12, 36)
      local a = m.vertex(f[0], f[1], f[2])
      local b = m.vertex(f[3], f[4], f[5])
      m.tri(a, b, m.vertex(f[6], f[7], f[8]))
    end
    return m
  end
  if not text:match("^%s*solid") then fail(nil, "the STL file is neither ASCII ('solid ...') nor binary") end
  local line, face = 0, {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    line = line + 1
    local rest = l:match("^%s*vertex%s+(.*)$")
    if rest then
      local a, b, c = rest:match("^(%S+)%s+(%S+)%s+(%S+)")
      local x, y, z = number(a), number(b), number(c)
      if not (x and y and z) then fail(line, "'vertex' needs three numbers") end
      face[#face + 1] = m.vertex(x, y, z, line)
    elseif l:match("^%s*endloop") then
      for k = 2, #face - 1 do m.tri(face[1], face[k], face[k + 1]) end
      face = {}
    end
  end
  return m
end

local function obj(text, fail)
  local m = new(fail)
  m.group(nil)
  local line, nv = 0, 0
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    line = line + 1
    local rest = l:match("^%s*v%s+(.*)$")
    if rest then
      local a, b, c = rest:match("^(%S+)%s+(%S+)%s+(%S+)")
      local x, y, z = number(a), number(b), number(c)
      if not (x and y and z) then fail(line, "'v' needs three numbers") end
      m.vertex(x, y, z, line)
      nv = nv + 1
    else
      rest = l:match("^%s*f%s+(.*)$")
      if rest then
        local face = {}
        for tok in rest:gmatch("%S+") do
          local i = tonumber(tok:match("^([+-]?%d+)"))
          if i == nil then fail(line, "'f' holds '%s', not a vertex index", tok:sub(1, 40)) end
          i = i < 0 and nv + i or i - 1 -- OBJ: 1-based, negative from the end
          if i < 0 or i >= nv then fail(line, "'f' names vertex %s, but %d are defined so far", tok:sub(1, 40), nv) end
          face[#face + 1] = i
        end
        for k = 2, #face - 1 do m.tri(face[1], face[k], face[k + 1]) end
      end
    end
  end
  return m
end

-- ---------------------------------------------------------------------
-- COLLADA

local kids, kid = read.kids, read.kid

local function ref(s) return s and s:match("^#(.+)$") end

-- material id -> the diffuse colour of its effect (nil: a texture, or none)
local function colours(root, fail)
  local effects, out = {}, {}
  for _, lib in ipairs(kids(root, "library_effects")) do
    for _, e in ipairs(kids(lib, "effect")) do
      local p = kid(e, "profile_COMMON")
      local t = p and kid(p, "technique")
      local shade = t and (kid(t, "phong") or kid(t, "lambert") or kid(t, "blinn") or kid(t, "constant"))
      local d = shade and (kid(shade, "diffuse") or kid(shade, "emission"))
      local c = d and kid(d, "color")
      if c and e.attrs.id then
        local v = floats(c, fail)
        if #v >= 3 then
          local tr = kid(shade, "transparency")
          local a = (v[4] or 1) * (tr and kid(tr, "float") and floats(kid(tr, "float"), fail)[1] or 1)
          effects[e.attrs.id] = { v[1], v[2], v[3], math.max(0, math.min(1, a)) }
        end
      end
    end
  end
  for _, lib in ipairs(kids(root, "library_materials")) do
    for _, mat in ipairs(kids(lib, "material")) do
      local ie = kid(mat, "instance_effect")
      if mat.attrs.id and ie then out[mat.attrs.id] = effects[ref(ie.attrs.url) or ""] end
    end
  end
  return out
end

local PRIMS = { triangles = true, polylist = true, polygons = true }

-- one <geometry>'s primitives, placed by T (4x4 row-major, unit folded in)
local function emit(m, g, T, bind, mats, fail)
  local mesh = kid(g, "mesh")
  if mesh == nil then return end
  local sources = {}
  for _, s in ipairs(kids(mesh, "source")) do
    if s.attrs.id then sources[s.attrs.id] = s end
  end
  local vs = kid(mesh, "vertices")
  if vs == nil then fail(mesh.line, "<mesh> has no <vertices>") end
  local pos
  for _, inp in ipairs(kids(vs, "input")) do
    if inp.attrs.semantic == "POSITION" then pos = sources[ref(inp.attrs.source) or ""] end
  end
  local fa = pos and kid(pos, "float_array")
  if fa == nil then fail(vs.line, "<vertices> names no POSITION source with a <float_array>") end
  local acc = kid(kid(pos, "technique_common") or pos, "accessor")
  local stride = acc and tonumber(acc.attrs.stride) or 3
  if stride < 3 or stride ~= math.floor(stride) then fail(fa.line, "<accessor stride> must be an integer >= 3") end
  local v = floats(fa, fail)
  local base = #m.positions / 3
  local nv = 0
  for i = 1, #v - stride + 1, stride do
    local x, y, z = v[i], v[i + 1], v[i + 2]
    m.vertex(T[1] * x + T[2] * y + T[3] * z + T[4], T[5] * x + T[6] * y + T[7] * z + T[8],
      T[9] * x + T[10] * y + T[11] * z + T[12], fa.line)
    nv = nv + 1
  end
  -- a mirroring transform turns the faces inside out: keep them facing out
  local det = T[1] * (T[6] * T[11] - T[7] * T[10]) - T[2] * (T[5] * T[11] - T[7] * T[9])
    + T[3] * (T[5] * T[10] - T[6] * T[9])
  for _, prim in ipairs(mesh.children) do
    if PRIMS[prim.tag] then
      local off, width = nil, 0
      for _, inp in ipairs(kids(prim, "input")) do
        local o = tonumber(inp.attrs.offset) or 0
        if inp.attrs.semantic == "VERTEX" then off = o end
        width = math.max(width, o + 1)
      end
      if off == nil then fail(prim.line, "<%s> has no <input semantic=\"VERTEX\">", prim.tag) end
      m.group(mats[bind[prim.attrs.material or ""] or prim.attrs.material or ""])
      local function polygon(idx, at, n, line)
        local face = {}
        for k = 0, n - 1 do
          local i = idx[at + k * width + off]
          if i == nil or i < 0 or i >= nv or i ~= math.floor(i) then
            fail(line, "<p> names vertex %s of %d", tostring(i), nv)
          end
          face[#face + 1] = base + i
        end
        for k = 2, n - 1 do
          if det < 0 then m.tri(face[1], face[k + 1], face[k]) else m.tri(face[1], face[k], face[k + 1]) end
        end
      end
      if prim.tag == "polygons" then
        for _, p in ipairs(kids(prim, "p")) do
          local idx = floats(p, fail)
          polygon(idx, 1, math.floor(#idx / width), p.line)
        end
      else
        local p = kid(prim, "p")
        local idx = p and floats(p, fail) or {}
        local counts
        if prim.tag == "polylist" then
          local vc = kid(prim, "vcount")
          counts = vc and floats(vc, fail) or {}
        end
        local at, k = 1, 1
        while at + width * 3 - 1 <= #idx do
          local n = counts and counts[k] or 3
          if n < 3 then fail(prim.line, "a polygon of %s vertices", tostring(n)) end
          polygon(idx, at, n, p.line)
          at, k = at + n * width, k + 1
          if counts and k > #counts then break end
        end
      end
    end
  end
end

local function dae(text, fail, xml_parse, name)
  local root, unit = read.dae_root(text, fail, xml_parse, name)
  local mats = colours(root, fail)
  local geoms, order = {}, {}
  for _, lib in ipairs(kids(root, "library_geometries")) do
    for _, g in ipairs(kids(lib, "geometry")) do
      order[#order + 1] = g
      if g.attrs.id then geoms[g.attrs.id] = g end
    end
  end
  local m = new(fail)
  local U = { unit, 0, 0, 0, 0, unit, 0, 0, 0, 0, unit, 0, 0, 0, 0, 1 }
  local placed, depth = false, 0
  local function walk(node, T)
    depth = depth + 1
    if depth > 64 then fail(node.line, "<node> elements nest deeper than 64") end
    T = read.mat_mul(T, read.node_transform(node, fail))
    for _, ig in ipairs(kids(node, "instance_geometry")) do
      local g = geoms[ref(ig.attrs.url) or ""]
      if g == nil then fail(ig.line, "<instance_geometry> names no <geometry> of this file") end
      -- <bind_material>: the primitives' material symbols -> material ids
      local bind = {}
      local bm = kid(ig, "bind_material")
      local tc = bm and kid(bm, "technique_common")
      for _, im in ipairs(tc and kids(tc, "instance_material") or {}) do
        if im.attrs.symbol then bind[im.attrs.symbol] = ref(im.attrs.target) end
      end
      emit(m, g, T, bind, mats, fail)
      placed = true
    end
    for _, c in ipairs(kids(node, "node")) do walk(c, T) end
    depth = depth - 1
  end
  for _, lib in ipairs(kids(root, "library_visual_scenes")) do
    for _, vs in ipairs(kids(lib, "visual_scene")) do
      for _, n in ipairs(kids(vs, "node")) do walk(n, U) end
    end
  end
  if not placed then
    for _, g in ipairs(order) do emit(m, g, U, {}, mats, fail) end
  end
  return m
end

function M.read(text, kind, fail, xml_parse, name, load)
  local m, notes
  if kind == "stl" then m = stl(text, fail)
  elseif kind == "obj" then m = obj(text, fail)
  elseif kind == "gltf" or kind == "glb" then
    m = new(fail)
    notes = gltf.read(text, kind, fail, m, load)
  else m = dae(text, fail, xml_parse, name) end
  m.notes = notes or {}
  -- groups without triangles are dropped
  local g = {}
  for _, x in ipairs(m.groups) do
    if x.count > 0 then g[#g + 1] = x end
  end
  m.groups = g
  return m
end

return M
