-- glTF 2.0 mesh files (world/mesh_gltf.lua, world/json_read.lua), read
-- through world/mesh_tris.lua as diagc view reads them:
--   - the iiwa's 13 visual meshes (examples/robots/iiwa/drake_models/...):
--     their triangles and bounding boxes against a reader written here in
--     Python (json + struct: the TRIANGLES primitives' indices and POSITION
--     floats, turned y-up -> z-up as (x, -z, y)), never against this reader;
--   - small files written here (a .gltf with base64 data: URIs, a .glb with
--     its BIN chunk): node trees with a matrix and with translation,
--     rotation and scale, indexed and not, a mirroring node, colours and
--     notes, every expected vertex worked out by hand;
--   - the JSON reader's corner cases.
local tris = require("diagc.world.mesh_tris")
local mesh = require("diagc.world.mesh")
local json = require("diagc.world.json_read")

local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
local VIS = diagc.root .. "/examples/robots/iiwa/drake_models/iiwa_description/meshes/iiwa14/visual"

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function write(name, text)
  local f = assert(io.open(DIR .. "/" .. name, "wb"))
  f:write(text)
  f:close()
end

local function fail(line, fmt, ...) error({ msg = string.format(fmt, ...) }, 0) end

local function read(path)
  local h = require("diagc_host")
  local kind = path:match("%.(%w+)$")
  return tris.read(slurp(path), kind, fail, h.xml_parse, path, mesh.loader(path, h))
end

-- the independent reader: "name triangles xmin ymin zmin xmax ymax zmax" a file
local PY = [==[
import json, struct, sys, os
for path in sys.argv[1:]:
    g = json.load(open(path))
    bufs = [open(os.path.join(os.path.dirname(path), b["uri"]), "rb").read() for b in g["buffers"]]
    def acc(i):
        a = g["accessors"][i]; v = g["bufferViews"][a["bufferView"]]
        n = {"SCALAR": 1, "VEC3": 3}[a["type"]]
        fmt = {5126: "f", 5125: "I", 5123: "H", 5121: "B"}[a["componentType"]]
        size = struct.calcsize(fmt)
        stride = v.get("byteStride", n * size)
        at = v.get("byteOffset", 0) + a.get("byteOffset", 0)
        data = bufs[v["buffer"]]
        return [struct.unpack_from("<%d%s" % (n, fmt), data, at + k * stride) for k in range(a["count"])]
    tri, lo, hi = 0, [1e300] * 3, [-1e300] * 3
    for node in g["nodes"]:
        assert "matrix" not in node and "rotation" not in node and "translation" not in node
        for p in g["meshes"][node["mesh"]]["primitives"]:
            assert p.get("mode", 4) == 4
            pos = acc(p["attributes"]["POSITION"])
            used = [i for (i,) in acc(p["indices"])] if "indices" in p else list(range(len(pos)))
            tri += len(used) // 3
            for (x, y, z) in pos:
                q = (x, -z, y)
                lo = [min(a, b) for a, b in zip(lo, q)]; hi = [max(a, b) for a, b in zip(hi, q)]
    print(os.path.basename(path), tri, " ".join(repr(v) for v in lo + hi))
]==]

local function python(files)
  write("peer.py", PY)
  local p = assert(io.popen("python3 " .. DIR .. "/peer.py " .. table.concat(files, " ")))
  local out = {}
  for line in p:lines() do
    local w = {}
    for tok in line:gmatch("%S+") do w[#w + 1] = tok end
    out[w[1]] = { tris = tonumber(w[2]), box = { tonumber(w[3]), tonumber(w[4]), tonumber(w[5]), tonumber(w[6]),
      tonumber(w[7]), tonumber(w[8]) } }
  end
  p:close()
  return out
end

local function box(m)
  local b = { math.huge, math.huge, math.huge, -math.huge, -math.huge, -math.huge }
  for i = 1, #m.positions, 3 do
    for k = 0, 2 do
      b[k + 1] = math.min(b[k + 1], m.positions[i + k])
      b[k + 4] = math.max(b[k + 4], m.positions[i + k])
    end
  end
  return b
end

-- base64 of a byte string (RFC 4648, written out here)
local function b64(bytes)
  local A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  local out = {}
  for i = 1, #bytes, 3 do
    local a, b, c = bytes:byte(i, i + 2)
    local v = a * 65536 + (b or 0) * 256 + (c or 0)
    local s = {}
    for k = 3, 0, -1 do
      local d = math.floor(v / 64 ^ k) % 64
      s[#s + 1] = A:sub(d + 1, d + 1)
    end
    if not b then s[3], s[4] = "=", "=" elseif not c then s[4] = "=" end
    out[#out + 1] = table.concat(s)
  end
  return table.concat(out)
end

local function f32s(...)
  local ffi = require("ffi")
  local n = select("#", ...)
  local a = ffi.new("float[?]", n, ...)
  return ffi.string(a, 4 * n)
end

local function u16s(...)
  local s = {}
  for _, v in ipairs({ ... }) do s[#s + 1] = string.char(v % 256, math.floor(v / 256)) end
  return table.concat(s)
end

local function near(a, b, what)
  assert(math.abs(a - b) <= 1e-12, string.format("%s: %.17g, expected %.17g", what, a, b))
end

group("mesh_gltf", function()
  test("iiwa_against_python", function()
    local names = { "band", "kuka", "link_0", "link_1", "link_2_grey", "link_2_orange", "link_3", "link_4_grey",
      "link_4_orange", "link_5", "link_6_grey", "link_6_orange", "link_7" }
    local files = {}
    for i, n in ipairs(names) do files[i] = VIS .. "/" .. n .. ".gltf" end
    local want = python(files)
    local total = 0
    for _, n in ipairs(names) do
      local w = assert(want[n .. ".gltf"], "python gave nothing for " .. n)
      local m = read(VIS .. "/" .. n .. ".gltf")
      eq(#m.indices / 3, w.tris)
      local b = box(m)
      for k = 1, 6 do near(b[k], w.box[k], n .. " box[" .. k .. "]") end
      eq(#m.notes, 0)
      total = total + w.tris
    end
    eq(total, 73989) -- the sum of the files' index counts / 3 (as Python counts them above)
  end)

  test("iiwa_colours", function()
    -- baseColorFactor of the files' one material, as their JSON writes it
    local m = read(VIS .. "/link_2_orange.gltf")
    local c = json.decode(slurp(VIS .. "/link_2_orange.gltf")).materials[1].pbrMetallicRoughness.baseColorFactor
    eq(#m.groups, 1)
    for k = 1, 4 do eq(m.groups[1].rgba[k], c[k]) end
  end)

  test("gltf_nodes_by_hand", function()
    -- a triangle (0 0 0) (1 0 0) (0 1 0), indexed, placed by a parent node
    -- (translation 1 2 3, rotation pi/2 about z, scale 2) and a child
    -- (matrix: translation 0 0 5, column-major); a second, non-indexed
    -- primitive of the same points under a mirroring node (scale -1 1 1)
    local pos = f32s(0, 0, 0, 1, 0, 0, 0, 1, 0)
    local idx = u16s(0, 1, 2)
    local s2 = math.sqrt(0.5)
    write("t.gltf", string.format([[{ "asset": { "version": "2.0" },
  "buffers": [ { "byteLength": 36, "uri": "data:application/octet-stream;base64,%s" },
               { "byteLength": 6, "uri": "data:application/gltf-buffer;base64,%s" } ],
  "bufferViews": [ { "buffer": 0, "byteLength": 36 }, { "buffer": 1, "byteLength": 6 } ],
  "accessors": [ { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" },
                 { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" } ],
  "materials": [ { "pbrMetallicRoughness": { "baseColorFactor": [0.25, 0.5, 0.75, 1],
                   "baseColorTexture": { "index": 0 } } } ],
  "meshes": [ { "primitives": [ { "attributes": { "POSITION": 0, "NORMAL": 0 }, "indices": 1, "material": 0 } ] },
              { "primitives": [ { "attributes": { "POSITION": 0 } } ] } ],
  "nodes": [ { "translation": [1, 2, 3], "rotation": [0, 0, %.17g, %.17g], "scale": [2, 2, 2], "children": [1] },
             { "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,5,1], "mesh": 0 },
             { "scale": [-1, 1, 1], "mesh": 1 } ],
  "scene": 0, "scenes": [ { "nodes": [0, 2] } ] }]], b64(pos), b64(idx), s2, s2))
    local m = read(DIR .. "/t.gltf")
    eq(#m.indices, 6)
    -- node 0 then 1: p -> (1, 2, 3) + Rz(pi/2) 2 (p + (0 0 5)); (x y z) glTF -> (x, -z, y)
    -- (0 0 0) -> (1, 2, 13); (1 0 0) -> (1, 4, 13); (0 1 0) -> (-1, 2, 13)
    -- node 2: (0 0 0), (-1 0 0), (0 1 0)
    local want = { { 1, -13, 2 }, { 1, -13, 4 }, { -1, -13, 2 }, { 0, 0, 0 }, { -1, 0, 0 }, { 0, 0, 1 } }
    for v, p in ipairs(want) do
      for k = 1, 3 do near(m.positions[3 * (v - 1) + k], p[k], string.format("vertex %d [%d]", v - 1, k)) end
    end
    -- the first triangle as the file orders it; the mirrored one turned back
    eq(m.indices, { 0, 1, 2, 3, 5, 4 })
    eq(#m.groups, 2)
    eq(m.groups[1].rgba, { 0.25, 0.5, 0.75, 1 })
    eq(m.groups[2].rgba, nil)
    eq(m.notes, { "its textures are not drawn (painted in the baseColorFactor)" })
  end)

  test("glb_by_hand", function()
    -- the same triangle, non-indexed, in the BIN chunk of a .glb; no scene
    -- (its root node: the only one), a strip primitive noted, not drawn
    local js = [[{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}},{"attributes":{"POSITION":0},"mode":5}]}],
"nodes":[{"translation":[0,0,1],"mesh":0}]}]]
    js = js .. string.rep(" ", (4 - #js % 4) % 4)
    local bin = f32s(0, 0, 0, 1, 0, 0, 0, 1, 0)
    local function u32(v) return string.char(v % 256, math.floor(v / 256) % 256, math.floor(v / 65536) % 256, 0) end
    local body = u32(#js) .. "JSON" .. js .. u32(#bin) .. "BIN\0" .. bin
    write("t.glb", "glTF" .. u32(2) .. u32(12 + #body) .. body)
    local m = read(DIR .. "/t.glb")
    eq(m.indices, { 0, 1, 2 })
    -- + (0 0 1) in glTF's frame: z -> -y
    local want = { 0, -1, 0, 1, -1, 0, 0, -1, 1 }
    for k = 1, 9 do near(m.positions[k], want[k], "position " .. k) end
    eq(m.notes, { "its primitives of triangle strips are not drawn (diagc draws triangles)" })
  end)

  test("json_corners", function()
    local v = json.decode([[ {"a": [1, -2.5e-3, 0, true, false, null], "s": "x\"\\\/\u00e9\ud83d\ude00\n"} ]])
    eq(v.a[1], 1)
    eq(v.a[2], -2.5e-3)
    eq(v.a[4], true)
    eq(v.a[5], false)
    eq(v.a[6], json.NULL)
    assert(json.is_array(v.a) and json.is_object(v))
    eq(v.s, "x\"\\/\195\169\240\159\152\128\n")
    for _, bad in ipairs({ "[1,]", "{\"a\":1,}", "01", "1.", "[NaN]", "'a'", "[1] x", "{a:1}", "\"\t\"", "-", "[" }) do
      local got, why = json.decode(bad)
      assert(got == nil and why:match("^line 1, column %d+: "), bad .. ": " .. tostring(why))
    end
  end)
end)
