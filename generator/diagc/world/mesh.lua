-- world/mesh.lua: a collision mesh -> its convex hull, for a <mesh> of a
-- URDF (world/urdf.lua) and a { "mesh", file = } shape of a spec
-- (world/shapes.lua).  docs/world.md, "Meshes".
--
--   M.load(filename, scale, ctx) -> hull (world/hull.lua's, scaled)
--     ctx = { base = the folder relative names start from, dirs = the
--       importer's own package folders (urdf package_path), loc = where
--       errors point (the <mesh> element, or the body), what = "link 'x'" }
--   M.is_hull(h): h came from M.load (a spec cannot forge one)
--   M.package_path: the --package-path folders (cli/ sets them)
--   M.file(filename, ctx) -> path, kind, text, host: the file, read
--   M.failer(path, ctx) -> fail(line, fmt, ...): an error inside the mesh
--     file, at its line (text formats) or at ctx.loc naming the file
--   M.loader(path, h) -> load(uri): a glTF's external buffer, relative to
--     the folder of the file at path
--
-- Filenames: package://NAME/REST is searched, in order, in the importer's
-- package_path, the --package-path folders, then ROS_PACKAGE_PATH and
-- AMENT_PREFIX_PATH (each a colon-separated list): a folder DIR holds the
-- package as DIR/NAME (or is it, when its own name is NAME; under
-- AMENT_PREFIX_PATH as DIR/share/NAME).  file:///abs and absolute names
-- are used as given; other names are relative to ctx.base (the URDF's
-- folder).  The format is the extension's: .stl, .obj, .dae, .gltf, .glb
-- (any case; a .gltf's external buffers are relative to its folder).
-- Caps: M.MAX_FILE_BYTES per file, mesh_read.MAX_VERTICES vertices per
-- file, hull.MAX_VERTICES per hull (more: the simplified hull, counted).
local errors = require("diagc.errors")
local util = require("diagc.util")
local ranges = require("diagc.world.ranges")
local read = require("diagc.world.mesh_read")
local hull = require("diagc.world.hull")
local tris = require("diagc.world.mesh_tris")

local M = {}

M.MAX_FILE_BYTES = 64 * 1024 * 1024 -- bytes of one mesh file
M.package_path = {}

local made = setmetatable({}, { __mode = "k" })

function M.is_hull(h) return made[h] == true end

local function host()
  local ok, h = pcall(require, "diagc_host")
  if not ok or not h.read_source or not h.xml_parse or not h.stat then return nil end
  return h
end

local function split(s)
  local out = {}
  for d in (s or ""):gmatch("[^:]+") do out[#out + 1] = d end
  return out
end

-- the package search path: { {dir =, via = "ROS_PACKAGE_PATH" ...} }
function M.search_path(dirs)
  local out = {}
  for _, d in ipairs(dirs or {}) do out[#out + 1] = { dir = d, via = "package_path" } end
  for _, d in ipairs(M.package_path) do out[#out + 1] = { dir = d, via = "--package-path" } end
  for _, d in ipairs(split(os.getenv("ROS_PACKAGE_PATH"))) do out[#out + 1] = { dir = d, via = "ROS_PACKAGE_PATH" } end
  for _, d in ipairs(split(os.getenv("AMENT_PREFIX_PATH"))) do
    out[#out + 1] = { dir = d .. "/share", via = "AMENT_PREFIX_PATH" }
  end
  return out
end

local function is_dir(h, p)
  local st = h.stat(p)
  return st ~= nil and st.kind == "directory"
end

-- the file a mesh filename names
local function resolve(h, filename, ctx)
  local function raise(fmt, ...) errors.raise(ctx.loc, "%s: " .. fmt, ctx.what, ...) end
  local pkg, rest = filename:match("^package://([^/]+)/(.+)$")
  if filename:match("^package://") and not pkg then
    raise("mesh filename '%s' must be package://NAME/PATH", errors.sanitize(filename, 120))
  end
  if pkg then
    local tried = {}
    for _, e in ipairs(M.search_path(ctx.dirs)) do
      if is_dir(h, e.dir .. "/" .. pkg) then return e.dir .. "/" .. pkg .. "/" .. rest end
      if util.basename(e.dir:gsub("/+$", "")) == pkg and is_dir(h, e.dir) then return e.dir .. "/" .. rest end
      tried[#tried + 1] = e.dir
    end
    raise("package '%s' of mesh '%s' is in none of the package folders (search path: %s); give its parent "
      .. "folder with --package-path DIR, urdf { package_path = } or ROS_PACKAGE_PATH", errors.sanitize(pkg, 60),
      errors.sanitize(filename, 120), #tried > 0 and errors.sanitize(table.concat(tried, ":"), 200) or "empty")
  end
  local f = filename:match("^file://(.*)$") or filename
  if f:match("^%a[%w+.-]*://") then
    raise("mesh filename '%s': only package://, file:// and file names are supported", errors.sanitize(f, 120))
  end
  if f:sub(1, 1) == "/" then return f end
  return ctx.base .. "/" .. f
end

local KINDS = { stl = "stl", obj = "obj", dae = "dae", gltf = "gltf", glb = "glb" }

-- The mesh file a filename names, read: its path, kind ("stl" | "obj" |
-- "dae"), text and the host (also for the viewer's visual meshes,
-- cli/page_visual.lua); raises at ctx.loc
function M.file(filename, ctx)
  local function raise(fmt, ...) errors.raise(ctx.loc, "%s: " .. fmt, ctx.what, ...) end
  local h = host()
  if not h then errors.raise(ctx.loc, "mesh import needs bin/diagc's host (file reading, libexpat)") end
  if type(filename) ~= "string" or filename == "" then raise("a mesh needs a file name") end
  local path = require("diagc.spec.load").normalize(resolve(h, filename, ctx))
  local shown = errors.sanitize(path, 160)
  local kind = KINDS[(path:match("%.([%w]+)$") or ""):lower()]
  if not kind then
    raise("mesh file '%s' has an unknown format (extensions: .stl, .obj, .dae, .gltf, .glb)", shown)
  end
  local text, why = h.read_source(path, M.MAX_FILE_BYTES)
  if not text then
    if why and why:match("larger than") then why = string.format("it is larger than the limit of %d MiB", M.MAX_FILE_BYTES / 2^20) end
    raise("cannot read mesh file '%s': %s", shown, why or "cannot read it")
  end
  if #text == 0 then raise("mesh file '%s' is empty", shown) end
  return path, kind, text, h
end

-- errors inside the mesh: at its line (text formats), else at ctx.loc
function M.failer(path, ctx)
  local via = ctx.loc and { file = ctx.loc.file, line = ctx.loc.line }
  return function(line, fmt, ...)
    local msg = string.format(fmt, ...)
    if line then errors.raise({ file = path, line = line, via = via }, "%s", msg) end
    errors.raise(ctx.loc, "%s: mesh file '%s': %s", ctx.what, errors.sanitize(path, 160), msg)
  end
end

function M.loader(path, h)
  local dir = util.dirname(path)
  return function(uri)
    local text, why = h.read_source(dir .. "/" .. uri, M.MAX_FILE_BYTES)
    if text == nil and why and why:match("larger than") then
      why = string.format("it is larger than the limit of %d MiB", M.MAX_FILE_BYTES / 2^20)
    end
    return text, why
  end
end

function M.load(filename, scale, ctx)
  local function raise(fmt, ...) errors.raise(ctx.loc, "%s: " .. fmt, ctx.what, ...) end
  local path, kind, text, h = M.file(filename, ctx)
  local shown = errors.sanitize(path, 160)
  local fail = M.failer(path, ctx)
  local pts
  if kind == "gltf" or kind == "glb" then
    pts = tris.read(text, kind, fail, h.xml_parse, path, M.loader(path, h)).positions
  else
    pts = read.vertices(text, kind, fail, h.xml_parse, path)
  end
  if #pts == 0 then raise("mesh file '%s' has no vertices", shown) end
  for i = 1, #pts do
    local v = pts[i] * scale[(i - 1) % 3 + 1]
    local why2 = ranges.why_not("position", v)
    if why2 then
      raise("mesh file '%s': a vertex coordinate times the scale, %s (range %s)", shown, why2,
        ranges.describe("position"))
    end
    pts[i] = v
  end
  local hl, bad, len = hull.hull(pts, hull.MAX_VERTICES)
  if not hl then
    raise("the convex hull of mesh '%s' has no volume: its %d vertices are %s (within %.3g m); a collision "
      .. "mesh must enclose a volume", shown, #pts / 3, bad == "coplanar" and "all in one plane"
      or (bad == "collinear" and "all on one line" or "all at one point"), len)
  end
  hl.file = util.basename(path)
  made[hl] = true
  return hl
end

return M
