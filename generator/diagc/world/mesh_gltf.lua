-- world/mesh_gltf.lua: the triangles of a glTF 2.0 mesh file (.gltf: JSON
-- with its buffers in external files or base64 data: URIs; .glb: the
-- binary container with its BIN chunk), for the viewer's visual meshes
-- (world/mesh_tris.lua) and for collision meshes' hulls (world/mesh.lua).
--
-- Read: the default scene's node trees (every root node when the file has
-- no scene; every mesh as is when it has no node), each node's matrix or
-- translation/rotation/scale, each mesh's TRIANGLES primitives, indexed or
-- not, their POSITION accessors (float VEC3) and indices (unsigned byte,
-- short or int), and each primitive's material's baseColorFactor.  glTF is
-- y-up and a URDF's link frames z-up: every position is turned by +90
-- degrees about x, (x, y, z) -> (x, -z, y), as Drake does.  Ignored: normals
-- (the viewer shades flat from the faces), texture coordinates, tangents,
-- cameras, lights; ignored with a note (M.read's notes): textures (the part
-- is painted in its baseColorFactor), vertex colours, skins, animations,
-- morph targets, primitives of points, lines, strips or fans.  Refused
-- with the reason: extensions the file requires (Draco compression, mesh
-- quantization ...), sparse accessors.
--
-- A mesh file is data, not code: every index and offset is checked
-- against what the file holds, every number is finite, the sizes are
-- bounded (mesh_read.MAX_VERTICES vertices and triangles, M.MAX_NODES
-- nodes, node trees M.MAX_DEPTH deep).  Errors name what in the file is
-- wrong (accessor 3, bufferView 2 ...) through fail(nil, fmt, ...).
--
--   M.read(text, kind, fail, mesh, buffer) -> notes
--     kind: "gltf" | "glb"; mesh: world/mesh_tris.lua's builder (vertex,
--     group, tri); buffer(uri) -> bytes | nil, why: an external buffer,
--     uri percent-decoded, relative to the glTF file's folder
local ffi = require("ffi")
local bit = require("bit")
local json = require("diagc.world.json_read")
local read = require("diagc.world.mesh_read")

local M = {}

M.MAX_NODES = 100000 -- nodes of one file
M.MAX_DEPTH = 64 -- nodes nested in one another

local FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
local SIZE = { [5120] = 1, [UBYTE] = 1, [5122] = 2, [USHORT] = 2, [UINT] = 4, [FLOAT] = 4 }
local NAME = { [5120] = "byte", [UBYTE] = "unsigned byte", [5122] = "short", [USHORT] = "unsigned short",
  [UINT] = "unsigned int", [FLOAT] = "float" }
local MODES = { [0] = "points", [1] = "lines", [2] = "line loops", [3] = "line strips", [4] = "triangles",
  [5] = "triangle strips", [6] = "triangle fans" }

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- ---------------------------------------------------------------------
-- base64 (a data: URI's buffer)

local B64 = {}
do
  local a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, 64 do B64[a:byte(i)] = i - 1 end
end

-- the bytes of base64 text s, or nil, why
local function unbase64(s)
  s = s:gsub("[ \t\r\n]", "")
  local n = #s
  if n % 4 ~= 0 then return nil, string.format("its base64 text is %d characters, not a multiple of 4", n) end
  local pad = s:sub(-2) == "==" and 2 or (s:sub(-1) == "=" and 1 or 0)
  local out = ffi.new("uint8_t[?]", math.max(1, n / 4 * 3))
  local p = ffi.cast("const uint8_t *", s)
  local o = 0
  for i = 0, n - 1, 4 do
    local last = i + 4 == n
    local a, b, c, d = B64[p[i]], B64[p[i + 1]], B64[p[i + 2]], B64[p[i + 3]]
    if last and pad >= 1 then d = 0 end
    if last and pad == 2 then c = 0 end
    if not (a and b and c and d) then
      return nil, string.format("its base64 text holds '%s' at character %d", string.char(p[i], p[i + 1], p[i + 2],
        p[i + 3]), i + 1)
    end
    local v = bit.bor(bit.lshift(a, 18), bit.lshift(b, 12), bit.lshift(c, 6), d)
    out[o], out[o + 1], out[o + 2] = bit.rshift(v, 16), bit.band(bit.rshift(v, 8), 255), bit.band(v, 255)
    o = o + 3
  end
  return ffi.string(out, o - pad)
end

local function unpercent(s)
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

-- ---------------------------------------------------------------------
-- reading the JSON's parts, checked

local function reader(doc, fail)
  local R = {}
  -- doc[key][i] (0-based i), an object, or fail naming who refers to it
  function R.item(key, i, who)
    local list = doc[key]
    local n = json.is_array(list) and #list or 0
    if type(i) ~= "number" or i ~= math.floor(i) or i < 0 or i >= n then
      fail(nil, "%s names %s %s, but the file has %d", who, key:gsub("s$", ""), tostring(i):sub(1, 20), n)
    end
    local v = list[i + 1]
    if not json.is_object(v) then fail(nil, "%s %d is not a JSON object", key:gsub("s$", ""), i) end
    return v
  end
  -- a non-negative integer field (default when absent)
  function R.int(obj, field, what, default)
    local v = obj[field]
    if v == nil and default ~= nil then return default end
    if type(v) ~= "number" or v ~= math.floor(v) or v < 0 or v > 2 ^ 53 then
      fail(nil, "%s: %s must be a non-negative integer, not %s", what, field,
        v == nil and "missing" or tostring(v):sub(1, 30))
    end
    return v
  end
  -- n finite numbers (default when absent)
  function R.numbers(obj, field, n, what, default)
    local v = obj[field]
    if v == nil then return default end
    if not json.is_array(v) or #v ~= n then fail(nil, "%s: %s must be an array of %d numbers", what, field, n) end
    for k = 1, n do
      if not finite(v[k]) then fail(nil, "%s: %s[%d] is %s, not a finite number", what, field, k - 1, tostring(v[k]):sub(1, 30)) end
    end
    return v
  end
  return R
end

-- the bytes of buffer i (cached), at least its byteLength
local function buffers(doc, R, fail, bin, load)
  local got = {}
  return function(i, who)
    if got[i] then return got[i] end
    local b = R.item("buffers", i, who)
    local what = string.format("buffer %d", i)
    local len = R.int(b, "byteLength", what)
    local bytes, why
    if b.uri == nil then
      if bin == nil then fail(nil, "%s has no uri (only a .glb file's first buffer may omit it)", what) end
      if i ~= 0 then fail(nil, "%s has no uri; only buffer 0 is the .glb file's BIN chunk", what) end
      bytes = bin
    elseif type(b.uri) ~= "string" then
      fail(nil, "%s: uri must be a string", what)
    elseif b.uri:match("^data:") then
      local head, body = b.uri:match("^data:([^,]*),(.*)$")
      if not head or not head:match(";base64$") then
        fail(nil, "%s: a data: URI must be base64 ('data:application/octet-stream;base64,...')", what)
      end
      bytes, why = unbase64(body)
      if not bytes then fail(nil, "%s: the data: URI is malformed: %s", what, why) end
    else
      local uri = unpercent(b.uri)
      if uri:match("^%a[%w+.-]*:") or uri:sub(1, 1) == "/" or uri:find("\\", 1, true) or uri:find("%z") then
        fail(nil, "%s: uri '%s' must be a relative file name or a data: URI", what, b.uri:sub(1, 80))
      end
      bytes, why = load(uri)
      if not bytes then fail(nil, "%s: cannot read its file '%s': %s", what, uri:sub(1, 80), why or "cannot read it") end
    end
    if #bytes < len then
      fail(nil, "%s is %d bytes, shorter than its byteLength %d", what, #bytes, len)
    end
    got[i] = bytes
    return bytes
  end
end

-- accessor i as { bytes=, at= (0-based offset of element 0), stride=,
-- count=, size= (of a component) }, its type and componentType checked
local function accessor(doc, R, fail, buffer, i, who, want_type, types)
  local a = R.item("accessors", i, who)
  local what = string.format("accessor %d (%s)", i, who)
  if a.sparse ~= nil then fail(nil, "%s is sparse; diagc reads only plain accessors", what) end
  if a.type ~= want_type then
    fail(nil, "%s has type %s; it must be %s", what, tostring(a.type):sub(1, 20), want_type)
  end
  local ct = a.componentType
  if not types[ct] then
    fail(nil, "%s has componentType %s (%s), which diagc does not read here; it reads %s", what,
      tostring(ct):sub(1, 20), NAME[ct] or "not a glTF component type", types.names)
  end
  if a.normalized == true then fail(nil, "%s is normalized; diagc reads only plain values", what) end
  local count = R.int(a, "count", what)
  local ncomp = want_type == "VEC3" and 3 or 1
  local esize = SIZE[ct] * ncomp
  if a.bufferView == nil then fail(nil, "%s has no bufferView", what) end
  local vi = R.int(a, "bufferView", what)
  local v = R.item("bufferViews", vi, what)
  local vwhat = string.format("bufferView %d", vi)
  local voff = R.int(v, "byteOffset", vwhat, 0)
  local vlen = R.int(v, "byteLength", vwhat)
  local stride = R.int(v, "byteStride", vwhat, esize)
  if v.byteStride ~= nil and (stride < esize or stride > 252 or stride % 4 ~= 0) then
    fail(nil, "%s: byteStride %d for %s of %d bytes (it must be a multiple of 4 from the element's size to 252)",
      vwhat, stride, what, esize)
  end
  local aoff = R.int(a, "byteOffset", what, 0)
  if aoff % SIZE[ct] ~= 0 then fail(nil, "%s: byteOffset %d is not a multiple of its component's size", what, aoff) end
  local need = count == 0 and 0 or aoff + stride * (count - 1) + esize
  if need > vlen then
    fail(nil, "%s: %d elements of %d bytes every %d from byte %d need %d bytes; %s holds %d", what, count, esize,
      stride, aoff, need, vwhat, vlen)
  end
  local bi = R.int(v, "buffer", vwhat)
  local bytes = buffer(bi, vwhat)
  local blen = R.int(R.item("buffers", bi, vwhat), "byteLength", "buffer " .. bi)
  if voff + vlen > blen then
    fail(nil, "%s: bytes %d to %d are past the end of buffer %d (%d bytes)", vwhat, voff, voff + vlen, bi, blen)
  end
  return { bytes = bytes, at = voff + aoff, stride = stride, count = count, size = SIZE[ct], what = what }
end

local POS = { [FLOAT] = true, names = "float (5126)" }
local IDX = { [UBYTE] = true, [USHORT] = true, [UINT] = true, names = "unsigned byte, short or int (5121, 5123, 5125)" }

local LE = ffi.abi("le")

-- element k's components (0-based) of a float VEC3 accessor
local function vec3_reader(acc)
  local p = ffi.cast("const uint8_t *", acc.bytes)
  local f = ffi.new("float[3]")
  local b = ffi.cast("uint8_t *", f)
  return function(k)
    local at = acc.at + acc.stride * k
    if LE then
      ffi.copy(f, p + at, 12)
    else
      for c = 0, 2 do
        for j = 0, 3 do b[4 * c + j] = p[at + 4 * c + 3 - j] end
      end
    end
    return tonumber(f[0]), tonumber(f[1]), tonumber(f[2])
  end
end

local function index_reader(acc)
  local p = ffi.cast("const uint8_t *", acc.bytes)
  local size = acc.size
  return function(k)
    local at = acc.at + acc.stride * k
    if size == 1 then return p[at] end
    if size == 2 then return p[at] + 256 * p[at + 1] end
    return p[at] + 256 * (p[at + 1] + 256 * (p[at + 2] + 256 * p[at + 3]))
  end
end

-- 4x4 row-major matrices (flat, 16), as world/mesh_read.lua's
local mat_mul = read.mat_mul

local function node_matrix(node, R, fail, what)
  local m = node.matrix
  if m ~= nil then
    if node.translation ~= nil or node.rotation ~= nil or node.scale ~= nil then
      fail(nil, "%s has both a matrix and translation/rotation/scale", what)
    end
    local c = R.numbers(node, "matrix", 16, what)
    -- glTF's matrix is column-major
    return { c[1], c[5], c[9], c[13], c[2], c[6], c[10], c[14], c[3], c[7], c[11], c[15], c[4], c[8], c[12], c[16] }
  end
  local t = R.numbers(node, "translation", 3, what, { 0, 0, 0 })
  local q = R.numbers(node, "rotation", 4, what, { 0, 0, 0, 1 })
  local s = R.numbers(node, "scale", 3, what, { 1, 1, 1 })
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local n = math.sqrt(x * x + y * y + z * z + w * w)
  if n < 1e-6 then fail(nil, "%s: rotation is not a unit quaternion (its norm is %.3g)", what, n) end
  x, y, z, w = x / n, y / n, z / n, w / n
  local r = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) }
  return { r[1] * s[1], r[2] * s[2], r[3] * s[3], t[1], r[4] * s[1], r[5] * s[2], r[6] * s[3], t[2],
    r[7] * s[1], r[8] * s[2], r[9] * s[3], t[3], 0, 0, 0, 1 }
end

-- glTF's y up -> z up: +90 degrees about x
local Y_UP = { 1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1 }

-- the .glb container: its JSON text and BIN chunk (or nil)
local function glb(text, fail)
  local function u32(at) return text:byte(at) + 256 * (text:byte(at + 1) + 256 * (text:byte(at + 2) + 256 * text:byte(at + 3))) end
  if #text < 20 or text:sub(1, 4) ~= "glTF" then fail(nil, "a .glb file begins with 'glTF' and a 12-byte header") end
  if u32(5) ~= 2 then fail(nil, "the .glb file is of version %d; diagc reads glTF 2", u32(5)) end
  if u32(9) ~= #text then fail(nil, "the .glb header says %d bytes, the file has %d", u32(9), #text) end
  local at, js, bin = 13, nil, nil
  while at <= #text do
    if at + 7 > #text then fail(nil, "the .glb file ends inside a chunk header at byte %d", at - 1) end
    local len, kind = u32(at), text:sub(at + 4, at + 7)
    if at + 8 + len - 1 > #text then
      fail(nil, "the .glb chunk at byte %d says %d bytes; the file ends %d bytes after its header", at - 1, len, #text - at - 7)
    end
    local body = text:sub(at + 8, at + 7 + len)
    if js == nil then
      if kind ~= "JSON" then fail(nil, "the .glb file's first chunk must be JSON") end
      js = body
    elseif kind == "BIN\0" and bin == nil then
      bin = body
    end
    at = at + 8 + len
  end
  return js, bin
end

function M.read(text, kind, fail, m, load)
  local notes, noted = {}, {}
  local function note(fmt, ...)
    local s = string.format(fmt, ...)
    if not noted[s] then noted[s] = true notes[#notes + 1] = s end
  end
  local js, bin = text, nil
  if kind == "glb" then js, bin = glb(text, fail) end
  local doc, why = json.decode(js)
  if doc == nil then fail(nil, "malformed JSON: %s", why) end
  if not json.is_object(doc) then fail(nil, "a glTF file's JSON is an object") end
  local asset = doc.asset
  local version = json.is_object(asset) and asset.version
  if type(version) ~= "string" or not version:match("^2%.") then
    fail(nil, "asset.version is %s; diagc reads glTF 2.0", type(version) == "string" and "'" .. version:sub(1, 20) .. "'" or "missing")
  end
  if doc.extensionsRequired ~= nil then
    local req = doc.extensionsRequired
    if not json.is_array(req) then fail(nil, "extensionsRequired must be an array") end
    if #req > 0 then
      fail(nil, "the file requires the extension %s, which diagc does not read; use a file without it (an uncompressed "
        .. ".gltf with plain float positions)", tostring(req[1]):sub(1, 60))
    end
  end
  for _, k in ipairs({ "skins", "animations" }) do
    if json.is_array(doc[k]) and #doc[k] > 0 then note("its %s are ignored (the mesh is drawn at rest)", k) end
  end
  local R = reader(doc, fail)
  local buffer = buffers(doc, R, fail, bin, load)
  local colours = {}
  local function colour(mi, who)
    if mi == nil then return nil end
    if colours[mi] == nil then
      local mat = R.item("materials", mi, who)
      local pbr = mat.pbrMetallicRoughness
      local what = string.format("material %d", mi)
      local c = { 1, 1, 1, 1 }
      if pbr ~= nil then
        if not json.is_object(pbr) then fail(nil, "%s: pbrMetallicRoughness must be an object", what) end
        c = R.numbers(pbr, "baseColorFactor", 4, what, c)
        if pbr.baseColorTexture ~= nil then note("its textures are not drawn (painted in the baseColorFactor)") end
      end
      for k = 1, 4 do
        if c[k] < 0 or c[k] > 1 then fail(nil, "%s: baseColorFactor[%d] is %.6g, outside [0, 1]", what, k - 1, c[k]) end
      end
      colours[mi] = { c[1], c[2], c[3], c[4] }
    end
    return colours[mi]
  end

  local function emit(mi, T)
    local mesh = R.item("meshes", mi, "a node")
    local prims = mesh.primitives
    if not json.is_array(prims) then fail(nil, "mesh %d: primitives must be an array", mi) end
    local det = T[1] * (T[6] * T[11] - T[7] * T[10]) - T[2] * (T[5] * T[11] - T[7] * T[9])
      + T[3] * (T[5] * T[10] - T[6] * T[9])
    for pi, prim in ipairs(prims) do
      local who = string.format("mesh %d, primitive %d", mi, pi - 1)
      if not json.is_object(prim) then fail(nil, "%s is not a JSON object", who) end
      local mode = R.int(prim, "mode", who, 4)
      local attrs = prim.attributes
      if not json.is_object(attrs) then fail(nil, "%s has no attributes object", who) end
      if prim.targets ~= nil then note("its morph targets are ignored") end
      if attrs.COLOR_0 ~= nil then note("its vertex colours are ignored") end
      if mode ~= 4 then
        note("its primitives of %s are not drawn (diagc draws triangles)", MODES[mode] or "mode " .. mode)
      else
        if attrs.POSITION == nil then fail(nil, "%s has no POSITION attribute", who) end
        local pos = accessor(doc, R, fail, buffer, attrs.POSITION, "POSITION of " .. who, "VEC3", POS)
        local idx = prim.indices ~= nil and accessor(doc, R, fail, buffer, prim.indices, "indices of " .. who, "SCALAR", IDX)
        local n = idx and idx.count or pos.count
        if n % 3 ~= 0 then
          fail(nil, "%s: %d %s do not make whole triangles (a multiple of 3)", who, n, idx and "indices" or "vertices")
        end
        if #m.indices / 3 + n / 3 > read.MAX_VERTICES then
          fail(nil, "the file has more than %d triangles (the limit of one mesh file)", read.MAX_VERTICES)
        end
        m.group(colour(prim.material, who))
        local vec = vec3_reader(pos)
        local base = #m.positions / 3
        for k = 0, pos.count - 1 do
          local x, y, z = vec(k)
          if not (finite(x) and finite(y) and finite(z)) then
            fail(nil, "%s: element %d is (%s, %s, %s), not finite", pos.what, k, tostring(x), tostring(y), tostring(z))
          end
          m.vertex(T[1] * x + T[2] * y + T[3] * z + T[4], T[5] * x + T[6] * y + T[7] * z + T[8],
            T[9] * x + T[10] * y + T[11] * z + T[12])
        end
        local ix = idx and index_reader(idx)
        for k = 0, n - 1, 3 do
          local a, b, c = k, k + 1, k + 2
          if ix then
            a, b, c = ix(k), ix(k + 1), ix(k + 2)
            local worst = math.max(a, b, c)
            if worst >= pos.count then
              fail(nil, "%s: index %d of triangle %d names vertex %d; POSITION has %d", idx.what, worst, k / 3, worst, pos.count)
            end
          end
          if det < 0 then m.tri(base + a, base + c, base + b) else m.tri(base + a, base + b, base + c) end
        end
      end
    end
  end

  local nodes = doc.nodes
  local nn = json.is_array(nodes) and #nodes or 0
  if nodes ~= nil and not json.is_array(nodes) then fail(nil, "nodes must be an array") end
  if nn > M.MAX_NODES then fail(nil, "the file has %d nodes, more than the limit of %d", nn, M.MAX_NODES) end
  local seen = {}
  local function walk(i, T, depth, who)
    local node = R.item("nodes", i, who)
    if seen[i] then fail(nil, "node %d is reached twice (the nodes must form trees)", i) end
    if depth > M.MAX_DEPTH then fail(nil, "nodes nest deeper than %d", M.MAX_DEPTH) end
    seen[i] = true
    local what = string.format("node %d", i)
    T = mat_mul(T, node_matrix(node, R, fail, what))
    if node.mesh ~= nil then emit(R.int(node, "mesh", what), T) end
    if node.skin ~= nil then note("its skins are ignored (the mesh is drawn at rest)") end
    local kids = node.children
    if kids ~= nil then
      if not json.is_array(kids) then fail(nil, "%s: children must be an array", what) end
      for _, c in ipairs(kids) do walk(c, T, depth + 1, what) end
    end
  end
  local roots
  if json.is_array(doc.scenes) and #doc.scenes > 0 then
    local si = R.int(doc, "scene", "the file", 0)
    local scene = R.item("scenes", si, "the file's scene")
    roots = scene.nodes or setmetatable({}, json.ARRAY)
    if not json.is_array(roots) then fail(nil, "scene %d: nodes must be an array", si) end
  elseif nn > 0 then
    -- no scene: every node that is no node's child
    local child = {}
    for _, node in ipairs(nodes) do
      if json.is_object(node) and json.is_array(node.children) then
        for _, c in ipairs(node.children) do child[c] = true end
      end
    end
    roots = {}
    for i = 0, nn - 1 do
      if not child[i] then roots[#roots + 1] = i end
    end
  end
  if roots then
    for _, i in ipairs(roots) do walk(i, Y_UP, 1, "the scene") end
  else
    -- no node at all: every mesh as it is
    local meshes = doc.meshes
    for i = 0, (json.is_array(meshes) and #meshes or 0) - 1 do emit(i, Y_UP) end
  end
  return notes
end

return M
