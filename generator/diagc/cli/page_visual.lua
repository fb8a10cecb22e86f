-- cli/page_visual.lua: a world's visual geometry for the viewer's page
-- (docs/viewer.md "Worlds in 3D"): each body's URDF <visual>s (world/
-- urdf.lua keeps them on the checked bodies; the generated C never sees
-- them), their meshes read here, at view time, into triangles
-- (world/mesh_tris.lua) and packed compactly: positions as the base64 of
-- float32s, triangle indices as the base64 of uint32s (cli/pack.lua), one
-- copy per file however many links use it.
--
-- A visual mesh that is missing or unreadable (or of a format diagc does
-- not read), or that would take the page over M.MAX_TRIANGLES, leaves its
-- body drawn with its collision shapes, and says so in a note (the page's
-- status bar, and one line on stderr from cli/page.lua); so does what a
-- file holds that is not drawn (a glTF's textures).  A mesh file that is
-- there but malformed is an error at its line, or at the line of the
-- URDF's <mesh> naming it (world/mesh.lua's failer), as for a collision
-- mesh.  The cap is counted over the distinct
-- mesh files in the page, body by body in tree order: a body whose meshes
-- would pass it is drawn with its collision shapes, the later ones that
-- fit are still drawn.
--
--   M.describe(C) -> visuals (one list per body, nil for a body without),
--     meshes (json array), notes (list of strings), triangles (in the page)
local json = require("diagc.cli.json")
local pack = require("diagc.cli.pack")
local mesh = require("diagc.world.mesh")
local tris = require("diagc.world.mesh_tris")
local util = require("diagc.util")

local M = {}

M.MAX_TRIANGLES = 200000 -- triangles of visual meshes in one page (docs/viewer.md)

local function arr(t)
  local a = json.array()
  for i, x in ipairs(t or {}) do a[i] = x end
  return a
end

-- the mesh of visual v: {file=, m=, notes=} or nil, why (a file that
-- cannot be found or read, or of a format diagc does not read); a file
-- that is there but malformed raises (mesh.failer: its line, or the
-- <visual>'s line of the URDF naming the file)
local function load(v, cache)
  local ctx = { base = v.base, dirs = v.dirs, loc = v.loc, what = string.format("link '%s'", v.link) }
  local ok, path, kind, text, h = pcall(mesh.file, v.filename, ctx)
  if not ok then return nil, tostring(type(path) == "table" and path.msg or path) end
  if cache[path] then return cache[path] end
  local m = tris.read(text, kind, mesh.failer(path, ctx), h.xml_parse, path, mesh.loader(path, h))
  if #m.indices == 0 then return nil, string.format("%s: mesh file '%s' has no triangles", ctx.what, util.basename(path)) end
  local notes = {}
  for _, n in ipairs(m.notes) do
    notes[#notes + 1] = string.format("%s: mesh file '%s': %s", ctx.what, util.basename(path), n)
  end
  cache[path] = { file = util.basename(path), m = m, triangles = #m.indices / 3, notes = notes }
  return cache[path]
end

local function one_line(s) return (tostring(s):gsub("%s+", " ")) end

function M.describe(C)
  local visuals, meshes, notes, cache, index = {}, json.array(), {}, {}, {}
  local total = 0
  -- the <visual>s the import left out (world/urdf_visual.lua), at their lines
  for _, r in ipairs(C.robots or {}) do
    for _, n in ipairs(r.visual_notes or {}) do notes[#notes + 1] = string.format("%s:%d: %s", r.file, n.line, n.what) end
  end
  for bi, b in ipairs(C.bodies) do
    if b.visuals and #b.visuals > 0 then
      local list, fresh, add, bad = json.array(), {}, 0, nil
      for _, v in ipairs(b.visuals) do
        local e = { type = v.type, xyz = arr(v.xyz), rpy = arr(v.rpy), rgba = v.rgba and arr(v.rgba) or nil }
        if v.type == "mesh" then
          local got, why = load(v, cache)
          if not got then
            bad = bad or one_line(why) .. string.format("; body '%s'", b.name)
          else
            e.scale, e._mesh = arr(v.scale), got
            if not index[got] and not fresh[got] then
              fresh[got], add = true, add + got.triangles
              for _, n in ipairs(got.notes) do notes[#notes + 1] = n end
            end
          end
        elseif v.type == "box" then
          e.size = arr(v.size)
        else
          e.radius, e.length = v.radius, v.length
        end
        list[#list + 1] = e
      end
      if not bad and total + add > M.MAX_TRIANGLES then
        bad = string.format("the visual meshes of body '%s' (%d triangles) would take the page over its cap of %d "
          .. "triangles; it", b.name, add, M.MAX_TRIANGLES)
      end
      if bad then
        notes[#notes + 1] = bad .. " is drawn with its collision shapes"
      else
        for _, e in ipairs(list) do
          local got = e._mesh
          if got then
            if not index[got] then
              local m = got.m
              local groups = json.array()
              for _, g in ipairs(m.groups) do
                groups[#groups + 1] = { start = g.start, count = g.count, rgba = g.rgba and arr(g.rgba) or nil }
              end
              meshes[#meshes + 1] = { file = got.file, triangles = got.triangles, vertices = #m.positions / 3,
                positions = pack.f32(m.positions, #m.positions), indices = pack.u32(m.indices, #m.indices),
                groups = groups }
              index[got] = #meshes - 1
              total = total + got.triangles
            end
            e.mesh, e._mesh = index[got], nil
          end
        end
        visuals[bi] = list
      end
    end
  end
  return visuals, meshes, notes, total
end

return M
