-- world/mesh_read.lua: the vertices of a collision mesh file.  Reads STL
-- (binary and ASCII), Wavefront OBJ and COLLADA (.dae, through the host's
-- XML parser, the one URDF import uses) into one flat list
-- {x1, y1, z1, x2, ...} in the file's units (COLLADA's <unit meter> and
-- the node transforms of its visual scene applied).  A mesh is data, not
-- code: every size is bounded (M.MAX_VERTICES) and every number checked.
--
--   M.vertices(text, kind, fail) -> flat list
--     kind: "stl" | "obj" | "dae" (world/mesh.lua picks it by extension)
--     fail(line, fmt, ...): raises the error; line = the line of the mesh
--       file (text formats) or nil (binary STL: the message says where)
local M = {}

M.MAX_VERTICES = 1000000 -- vertices read from one mesh file (docs/world.md, "Meshes")

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

-- a number token of a mesh file (decimal, as STL, OBJ and COLLADA write them)
-- (nan and inf are read as such, to be refused as non-finite by name)
local function number(tok)
  if tok == nil then return nil end
  local l = tok:lower()
  if l:match("^[+-]?nan") then return 0 / 0 end
  if l:match("^[+-]?inf") then return l:sub(1, 1) == "-" and -math.huge or math.huge end
  if not tok:match("^[+-]?[%d.]") then return nil end
  return tonumber(tok)
end

local function push(out, x, y, z, fail, line, where)
  if not (finite(x) and finite(y) and finite(z)) then
    fail(line, "%s has a non-finite coordinate (%s %s %s); every vertex must be a finite number", where,
      tostring(x), tostring(y), tostring(z))
  end
  local n = #out
  if n >= 3 * M.MAX_VERTICES then
    fail(line, "the mesh has more than %d vertices (the limit of one mesh file); simplify it first", M.MAX_VERTICES)
  end
  out[n + 1], out[n + 2], out[n + 3] = x, y, z
end

-- ---------------------------------------------------------------------
-- STL

local function stl_binary(text, fail)
  local ffi = require("ffi")
  local count = text:byte(81) + 256 * (text:byte(82) + 256 * (text:byte(83) + 256 * text:byte(84)))
  if count > M.MAX_VERTICES / 3 then
    fail(nil, "the binary STL holds %d triangles, %d vertices, more than the limit of %d; simplify it first",
      count, 3 * count, M.MAX_VERTICES)
  end
  local out, f = {}, ffi.new("float[9]")
  local base = ffi.cast("const uint8_t *", text)
  for t = 0, count - 1 do
    ffi.copy(f, base + 84 + 50 * t + 12, 36)
    for k = 0, 2 do
      push(out, tonumber(f[3 * k]), tonumber(f[3 * k + 1]), tonumber(f[3 * k + 2]), fail, nil,
        string.format("triangle %d, vertex %d", t, k))
    end
  end
  return out
end

local function stl_ascii(text, fail)
  local out, line = {}, 0
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    line = line + 1
    local rest = l:match("^%s*vertex%s+(.*)$")
    if rest then
      local a, b, c, extra = rest:match("^(%S+)%s+(%S+)%s+(%S+)%s*(.-)%s*$")
      local x, y, z = number(a), number(b), number(c)
      if x == nil or y == nil or z == nil or extra ~= "" then
        fail(line, "'vertex' needs three numbers, got '%s'", rest:sub(1, 60))
      end
      push(out, x, y, z, fail, line, "the vertex")
    end
  end
  return out
end

local function stl(text, fail)
  local n = #text >= 84 and text:byte(81) + 256 * (text:byte(82) + 256 * (text:byte(83) + 256 * text:byte(84)))
  -- binary when the size says so (some binary files begin with "solid" too)
  if n and #text == 84 + 50 * n then return stl_binary(text, fail) end
  if text:match("^%s*solid") then return stl_ascii(text, fail) end
  if #text < 84 then fail(nil, "the STL file is %d bytes, too short for a binary STL (84 bytes or more)", #text) end
  fail(nil, "the STL file is neither ASCII ('solid ...') nor binary (%d bytes, but its header counts %d "
    .. "triangles: %d bytes)", #text, n, 84 + 50 * n)
end

-- ---------------------------------------------------------------------
-- OBJ: every 'v' line (w, colours ignored)

local function obj(text, fail)
  local out, line = {}, 0
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    line = line + 1
    local rest = l:match("^%s*v%s+(.*)$")
    if rest then
      local a, b, c = rest:match("^(%S+)%s+(%S+)%s+(%S+)")
      local x, y, z = number(a), number(b), number(c)
      if x == nil or y == nil or z == nil then
        fail(line, "'v' needs three numbers, got '%s'", rest:gsub("%s+$", ""):sub(1, 60))
      end
      push(out, x, y, z, fail, line, "the vertex")
    end
  end
  return out
end

-- ---------------------------------------------------------------------
-- COLLADA

local function kids(el, tag)
  local out = {}
  for _, c in ipairs(el.children) do
    if c.tag == tag then out[#out + 1] = c end
  end
  return out
end

local function kid(el, tag) return kids(el, tag)[1] end

-- numbers of an element's text
local function floats(el, fail, want)
  local out = {}
  for tok in (el.text or ""):gmatch("%S+") do
    local v = number(tok)
    if v == nil then fail(el.line, "<%s> holds '%s', not a number", el.tag, tok:sub(1, 40)) end
    out[#out + 1] = v
    if #out > 3 * M.MAX_VERTICES then
      fail(el.line, "<%s> holds more than %d numbers (the limit of one mesh file)", el.tag, 3 * M.MAX_VERTICES)
    end
  end
  if want and #out ~= want then
    fail(el.line, "<%s> must hold %d numbers, got %d", el.tag, want, #out)
  end
  return out
end

-- 4x4 row-major matrices (flat, 16)
local function mat_mul(A, B)
  local C = {}
  for i = 0, 3 do
    for j = 0, 3 do
      local s = 0
      for k = 0, 3 do s = s + A[4 * i + k + 1] * B[4 * k + j + 1] end
      C[4 * i + j + 1] = s
    end
  end
  return C
end

local ID = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }

local function rotation(x, y, z, deg)
  local n = math.sqrt(x * x + y * y + z * z)
  if n == 0 then return ID end
  x, y, z = x / n, y / n, z / n
  local a = math.rad(deg)
  local c, s, t = math.cos(a), math.sin(a), 1 - math.cos(a)
  return { t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0,
    t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0,
    t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0, 0, 0, 0, 1 }
end

-- a <node>'s transform (its <matrix>, <translate>, <rotate>, <scale> in order)
local function node_transform(node, fail)
  local T = ID
  for _, c in ipairs(node.children) do
    local m
    if c.tag == "matrix" then
      m = floats(c, fail, 16)
    elseif c.tag == "translate" then
      local v = floats(c, fail, 3)
      m = { 1, 0, 0, v[1], 0, 1, 0, v[2], 0, 0, 1, v[3], 0, 0, 0, 1 }
    elseif c.tag == "rotate" then
      local v = floats(c, fail, 4)
      m = rotation(v[1], v[2], v[3], v[4])
    elseif c.tag == "scale" then
      local v = floats(c, fail, 3)
      m = { v[1], 0, 0, 0, 0, v[2], 0, 0, 0, 0, v[3], 0, 0, 0, 0, 1 }
    end
    if m then T = mat_mul(T, m) end
  end
  return T
end

-- the positions of a <geometry>'s <mesh>: its <vertices>' POSITION source
local function geometry_positions(g, fail)
  local mesh = kid(g, "mesh")
  if mesh == nil then return {} end
  local sources = {}
  for _, s in ipairs(kids(mesh, "source")) do
    if s.attrs.id then sources[s.attrs.id] = s end
  end
  local vs = kid(mesh, "vertices")
  if vs == nil then fail(mesh.line, "<mesh> has no <vertices>") end
  for _, inp in ipairs(kids(vs, "input")) do
    if inp.attrs.semantic == "POSITION" then
      local id = (inp.attrs.source or ""):match("^#(.+)$")
      local s = id and sources[id]
      if s == nil then fail(inp.line, "<input semantic=\"POSITION\"> names source '%s', which this <mesh> lacks",
          tostring(inp.attrs.source):sub(1, 60)) end
      local fa = kid(s, "float_array")
      if fa == nil then fail(s.line, "<source> '%s' has no <float_array>", id:sub(1, 60)) end
      local v = floats(fa, fail)
      local acc = kid(kid(s, "technique_common") or s, "accessor")
      local stride = acc and tonumber(acc.attrs.stride) or 3
      if stride == nil or stride < 3 or stride ~= math.floor(stride) then
        fail(acc and acc.line or s.line, "<accessor stride> must be an integer of at least 3")
      end
      local out = {}
      for i = 1, #v - 2, stride do out[#out + 1] = { v[i], v[i + 1], v[i + 2], fa.line } end
      return out
    end
  end
  fail(vs.line, "<vertices> has no <input semantic=\"POSITION\">")
end

-- A COLLADA file's root element and its unit in metres (1 without <unit>).
local function dae_root(text, fail, xml_parse, name)
  local root, _, line, _, reason = xml_parse(text, name)
  if not root then fail(line, "malformed XML: %s", tostring(reason)) end
  if root.tag ~= "COLLADA" then fail(root.line, "a COLLADA file's root element is <COLLADA>, not <%s>", root.tag) end
  local unit = 1
  local asset = kid(root, "asset")
  local u = asset and kid(asset, "unit")
  if u and u.attrs.meter then
    unit = number(u.attrs.meter)
    if unit == nil or not finite(unit) or unit <= 0 then
      fail(u.line, "<unit meter=\"%s\"> must be a positive number", tostring(u.attrs.meter):sub(1, 40))
    end
  end
  return root, unit
end

local function dae(text, fail, xml_parse, name)
  local root, unit = dae_root(text, fail, xml_parse, name)
  local geoms, order = {}, {}
  for _, lib in ipairs(kids(root, "library_geometries")) do
    for _, g in ipairs(kids(lib, "geometry")) do
      order[#order + 1] = g
      if g.attrs.id then geoms[g.attrs.id] = g end
    end
  end
  local out = {}
  local function emit(g, T)
    for _, p in ipairs(geometry_positions(g, fail)) do
      local x = T[1] * p[1] + T[2] * p[2] + T[3] * p[3] + T[4]
      local y = T[5] * p[1] + T[6] * p[2] + T[7] * p[3] + T[8]
      local z = T[9] * p[1] + T[10] * p[2] + T[11] * p[3] + T[12]
      push(out, unit * x, unit * y, unit * z, fail, p[4], "a position")
    end
  end
  -- the visual scenes' nodes place their geometries; without a scene, every geometry as is
  local placed, depth = false, 0
  local function walk(node, T)
    depth = depth + 1
    if depth > 64 then fail(node.line, "<node> elements nest deeper than 64") end
    T = mat_mul(T, node_transform(node, fail))
    for _, ig in ipairs(kids(node, "instance_geometry")) do
      local id = (ig.attrs.url or ""):match("^#(.+)$")
      local g = id and geoms[id]
      if g == nil then fail(ig.line, "<instance_geometry url=\"%s\"> names no <geometry> of this file",
          tostring(ig.attrs.url):sub(1, 60)) end
      emit(g, T)
      placed = true
    end
    for _, c in ipairs(kids(node, "node")) do walk(c, T) end
    depth = depth - 1
  end
  for _, lib in ipairs(kids(root, "library_visual_scenes")) do
    for _, vs in ipairs(kids(lib, "visual_scene")) do
      for _, n in ipairs(kids(vs, "node")) do walk(n, ID) end
    end
  end
  if not placed then
    for _, g in ipairs(order) do emit(g, ID) end
  end
  return out
end

-- shared with world/mesh_tris.lua (the viewer's triangles of a visual mesh)
M.number, M.floats, M.node_transform, M.mat_mul, M.ID = number, floats, node_transform, mat_mul, ID
M.kids, M.kid, M.dae_root = kids, kid, dae_root

function M.vertices(text, kind, fail, xml_parse, name)
  if kind == "stl" then return stl(text, fail) end
  if kind == "obj" then return obj(text, fail) end
  return dae(text, fail, xml_parse, name)
end

return M
