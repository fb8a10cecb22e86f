-- world/ranges.lua: the one table of the finite ranges a world's numbers
-- must lie in, for bodies written in a spec and for those a URDF
-- describes (world/values.lua and world/urdf_read.lua check against it).
-- docs/world.md's "Ranges" table is M.markdown()'s text
-- (tests/lua/world_ranges_test.lua checks that they agree).
--
-- The ranges are chosen so that every constant the generator folds into
-- a world's C (products such as m |com|^2, m g, composite inertias summed
-- over a tree, rotations of inertias) and every value of the first steps
-- stays finite and normal: the largest masses (1e9 kg) at the largest
-- distances (1e6 m) give inertias of 1e21 kg m^2, whose sums and products
-- with gravity and time steps stay below 1e40, far from overflow; the
-- smallest (1e-9 kg, 1e-24 kg m^2, 1e-6 m) stay far above the subnormals.
--
--   entry = { key=, kind=, lo=, hi=, unit=, fields= (what it applies to, for
--             the docs) }
--   kind "interval": lo <= v <= hi;  "magnitude": |v| <= hi (signed
--   quantities: positions, angles, velocities, gravity);  "integer": an
--   integer in [lo, hi].
local M = {}

M.LIST = {
  { key = "mass", kind = "interval", lo = 1e-9, hi = 1e9, unit = "kg",
    fields = "a body's `mass`; URDF `<mass value>` (0 in a URDF: a massless link, §5)" },
  { key = "inertia", kind = "interval", lo = 1e-24, hi = 1e21, unit = "kg m^2",
    fields = "the moments `ixx`, `iyy`, `izz` of `inertia` (and URDF `<inertia>`)" },
  { key = "inertia_product", kind = "magnitude", hi = 1e21, unit = "kg m^2",
    fields = "the products `ixy`, `ixz`, `iyz` (the tensor must also be positive definite)" },
  { key = "position", kind = "magnitude", hi = 1e6, unit = "m",
    fields = "each coordinate of `com`, joint, shape and `urdf` `xyz`, URDF `<origin xyz>`, a free joint's "
      .. "initial position, a prismatic joint's initial `q` and `limit` (URDF `<limit lower upper>`)" },
  { key = "angle", kind = "magnitude", hi = 1e6, unit = "rad",
    fields = "each angle of an `rpy` (and URDF `<origin rpy>`), a revolute joint's initial `q` and `limit`" },
  { key = "size", kind = "interval", lo = 1e-6, hi = 1e6, unit = "m",
    fields = "a sphere's or capsule's `radius`, each edge of a box's `size` (URDF `<sphere>`, `<box>`, "
      .. "`<cylinder>`, `<capsule>`)" },
  { key = "scale", kind = "magnitude", hi = 1e6, unit = "",
    fields = "each factor of a mesh shape's `scale` (URDF `<mesh scale>`)" },
  { key = "length", kind = "interval", lo = 0, hi = 1e6, unit = "m",
    fields = "a capsule's `length` (URDF `<cylinder length>`)" },
  { key = "ratio", kind = "magnitude", hi = 1e6, unit = "",
    fields = "a joint's `mimic` `multiplier` (URDF `<mimic multiplier>`)" },
  { key = "speed", kind = "magnitude", hi = 1e6, unit = "m/s or rad/s",
    fields = "each entry of a joint's initial `v`; a joint's `limit` `velocity` (URDF `<limit velocity>`)" },
  { key = "gravity", kind = "magnitude", hi = 1e4, unit = "m/s^2", fields = "each coordinate of `gravity`" },
  { key = "time_step", kind = "interval", lo = 1e-9, hi = 1, unit = "s", fields = "`time_step`" },
  { key = "friction", kind = "interval", lo = 0, hi = 1e9, unit = "",
    fields = "`friction` of a world, a shape, a `pairs` entry or a `urdf`" },
  { key = "restitution", kind = "interval", lo = 0, hi = 1, unit = "",
    fields = "`restitution` of a world, a shape, a `pairs` entry or a `urdf`" },
  { key = "damping", kind = "interval", lo = 0, hi = 1e9, unit = "N m s/rad or N s/m",
    fields = "a joint's `damping` (URDF `<dynamics damping>`)" },
  { key = "effort", kind = "interval", lo = 0, hi = 1e9, unit = "N or N m",
    fields = "a joint's `limit` `effort` (URDF `<limit effort>`)" },
  { key = "joint_friction", kind = "interval", lo = 0, hi = 1e9, unit = "N m or N",
    fields = "a joint's Coulomb `friction` (URDF `<dynamics friction>`)" },
  { key = "erp", kind = "interval", lo = 0, hi = 1, unit = "", fields = "`erp`" },
  { key = "cfm", kind = "interval", lo = 0, hi = 1e6, unit = "", fields = "`cfm`" },
  { key = "margin", kind = "interval", lo = 0, hi = 1e6, unit = "m", fields = "`margin`" },
  { key = "allowed_penetration", kind = "interval", lo = 0, hi = 1e6, unit = "m", fields = "`allowed_penetration`" },
  { key = "bounce_threshold", kind = "interval", lo = 0, hi = 1e6, unit = "m/s", fields = "`bounce_threshold`" },
  { key = "lcp_tol", kind = "interval", lo = 0, hi = 1, unit = "", fields = "`lcp_tol`" },
  { key = "max_contacts", kind = "integer", lo = 1, hi = 1e7, unit = "",
    fields = "`max_contacts` (and its contact workspace: §4, \"Size\")" },
  { key = "lcp_budget", kind = "integer", lo = 1, hi = 1e7, unit = "", fields = "`lcp_budget`" },
  { key = "restitution_passes", kind = "integer", lo = 0, hi = 1e7, unit = "", fields = "`restitution_passes`" },
}

M.BY_KEY = {}
for _, r in ipairs(M.LIST) do M.BY_KEY[r.key] = r end

-- A number as the shortest decimal that reads back to it (1e-09 -> 1e-9).
function M.fmt(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  local s
  for p = 1, 17 do
    s = string.format("%." .. p .. "g", v)
    if tonumber(s) == v then break end
  end
  return (s:gsub("e([+-])0*(%d)", function(sign, d) return "e" .. (sign == "-" and "-" or "") .. d end))
end

local function with_unit(s, unit) return unit ~= "" and (s .. " " .. unit) or s end

-- The range as text: "[1e-9, 1e9] kg", "[-1e6, 1e6] m", "an integer in [1, 1e7]".
function M.describe(key)
  local r = assert(M.BY_KEY[key], key)
  local lo = r.kind == "magnitude" and -r.hi or r.lo
  local s = string.format("[%s, %s]", M.fmt(lo), M.fmt(r.hi))
  if r.kind == "integer" then s = "an integer in " .. s end
  return with_unit(s, r.unit)
end

-- nil if v is in the range of `key`, else why not (a phrase such as "1e+308
-- is above the largest value allowed, 1e21 kg m^2").
function M.why_not(key, v)
  local r = assert(M.BY_KEY[key], key)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    return string.format("%s is not a finite number", type(v) == "number" and M.fmt(v) or tostring(v))
  end
  local lo = r.kind == "magnitude" and -r.hi or r.lo
  if v < lo then
    return string.format("%s is below the smallest value allowed, %s", with_unit(M.fmt(v), r.unit),
      with_unit(M.fmt(lo), r.unit))
  end
  if v > r.hi then
    return string.format("%s is above the largest value allowed, %s", with_unit(M.fmt(v), r.unit),
      with_unit(M.fmt(r.hi), r.unit))
  end
  if r.kind == "integer" and v ~= math.floor(v) then
    return string.format("%s is not an integer", M.fmt(v))
  end
  return nil
end

-- The docs table (docs/world.md, "Ranges").
function M.markdown()
  local out = { "| quantity | range | applies to |", "|---|---|---|" }
  for _, r in ipairs(M.LIST) do
    out[#out + 1] = string.format("| %s | %s | %s |", r.key, M.describe(r.key), r.fields)
  end
  return table.concat(out, "\n") .. "\n"
end

return M
