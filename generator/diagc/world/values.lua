-- world/values.lua: validation of the numbers and vectors a world declares
-- (masses, inertias, 3-vectors, quaternions); each error names the field
-- and says what a valid value is.  The finite ranges of every quantity are
-- world/ranges.lua's table.
local errors = require("diagc.errors")
local limits = require("diagc.vocab.limits")
local ranges = require("diagc.world.ranges")

local M = {}

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

function M.identifier(loc, what, s)
  if type(s) ~= "string" or not s:match("^[A-Za-z][A-Za-z0-9_]*$") or s:find("__", 1, true) then
    errors.raise(loc, "%s must be a name of letters, digits and single _ starting with a letter, got %s",
      what, errors.describe(s))
  end
  local long = limits.name_problem(what, s)
  if long then errors.raise(loc, "%s", long) end
  return s
end

function M.number(loc, what, v)
  if not finite(v) then errors.raise(loc, "%s must be a finite number, got %s", what, errors.describe(v)) end
  return v
end

-- A finite number in the range of quantity `key` (world/ranges.lua).
function M.ranged(loc, what, key, v)
  M.number(loc, what, v)
  local why = ranges.why_not(key, v)
  if why then errors.raise(loc, "%s: %s (range %s)", what, why, ranges.describe(key)) end
  return v
end

-- A plain list of n finite numbers.
function M.list(loc, what, v, n)
  if type(v) ~= "table" or #v ~= n then
    errors.raise(loc, "%s must be a list of %d numbers, got %s", what, n,
      type(v) == "table" and string.format("%d value%s", #v, #v == 1 and "" or "s") or errors.describe(v))
  end
  local out = {}
  for k in pairs(v) do
    if type(k) ~= "number" or k < 1 or k > n or k ~= math.floor(k) then
      errors.raise(loc, "%s must be a plain list of %d numbers", what, n)
    end
  end
  for i = 1, n do out[i] = M.number(loc, string.format("%s[%d]", what, i - 1), v[i]) end
  return out
end

function M.vec3(loc, what, v) return M.list(loc, what, v, 3) end

-- A list of n numbers, each in the range of quantity `key`.
function M.ranged_list(loc, what, key, v, n)
  local a = M.list(loc, what, v, n)
  for i = 1, n do M.ranged(loc, string.format("%s[%d]", what, i - 1), key, a[i]) end
  return a
end

-- A nonzero finite 3-vector, normalized: scaled by its largest component
-- first, so that no square overflows or underflows ({1e200, 0, 0} and
-- {1e-200, 0, 0} are both {1, 0, 0}).
function M.unit3(loc, what, v)
  local a = M.vec3(loc, what, v)
  local s = math.max(math.abs(a[1]), math.abs(a[2]), math.abs(a[3]))
  if s == 0 then errors.raise(loc, "%s must be a nonzero direction, got {0, 0, 0}", what) end
  local b = { a[1] / s, a[2] / s, a[3] / s }
  local n = math.sqrt(b[1] * b[1] + b[2] * b[2] + b[3] * b[3])
  return { b[1] / n, b[2] / n, b[3] / n }
end

local INERTIA_NAMES = { "ixx", "iyy", "izz", "ixy", "ixz", "iyz" }

-- inertia = {ixx, iyy, izz} or {ixx, iyy, izz, ixy, ixz, iyz}: 6 numbers,
-- the moments in [0, the largest moment] (a moving body's are checked
-- against the whole range by inertia_pd), the products within the range.
function M.inertia(loc, v, what)
  if v == nil then return nil end
  what = what or "inertia"
  local I
  if type(v) == "table" and #v == 3 then
    local d = M.list(loc, what, v, 3)
    I = { d[1], d[2], d[3], 0, 0, 0 }
  elseif type(v) ~= "table" or #v ~= 6 then
    errors.raise(loc, "%s must be {ixx, iyy, izz} or {ixx, iyy, izz, ixy, ixz, iyz} (about the "
      .. "centre of mass, in body axes), got %s", what, errors.describe(v))
  else
    I = M.list(loc, what, v, 6)
  end
  for k = 1, 6 do
    if k > 3 or I[k] ~= 0 then
      M.ranged(loc, string.format("%s %s", what, INERTIA_NAMES[k]), k > 3 and "inertia_product" or "inertia", I[k])
    end
  end
  return I
end

-- The rotational inertia of a moving body must be symmetric positive
-- definite (Sylvester: the leading minors are positive), computed on the
-- tensor divided by its largest entry (no product overflows or
-- underflows), and its moments within the range.
function M.inertia_pd(loc, name, I)
  if I == nil then
    errors.raise(loc, "body '%s' needs an inertia = {ixx, iyy, izz[, ixy, ixz, iyz]} (it moves)", name)
  end
  local why = M.not_pd(name, I)
  if why then errors.raise(loc, "%s", why) end
  for k = 1, 3 do M.ranged(loc, string.format("body '%s' inertia %s", name, INERTIA_NAMES[k]), "inertia", I[k]) end
end

-- Why inertia I (6 numbers) of body `name` is not positive definite, or nil
function M.not_pd(name, I)
  local s = 0
  for k = 1, 6 do s = math.max(s, math.abs(I[k])) end
  local ok = s > 0
  if ok then
    local xx, yy, zz, xy, xz, yz = I[1] / s, I[2] / s, I[3] / s, I[4] / s, I[5] / s, I[6] / s
    local m2 = xx * yy - xy * xy
    local m3 = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz)
    ok = xx > 0 and m2 > 1e-12 and m3 > 1e-12
  end
  if not ok then
    return string.format("body '%s': inertia {%.6g, %.6g, %.6g, %.6g, %.6g, %.6g} is not positive definite; "
      .. "give the rotational inertia about the centre of mass (all principal moments > 0)",
      name, I[1], I[2], I[3], I[4], I[5], I[6])
  end
end

-- A unit quaternion {w, x, y, z} (within 1e-9), returned as given.
function M.unit_quaternion(loc, what, q)
  local n2 = q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4]
  if math.abs(n2 - 1) > 1e-9 then
    errors.raise(loc, "%s {%.17g, %.17g, %.17g, %.17g} is not a unit quaternion (norm %.17g); "
      .. "give {w, x, y, z} with w^2 + x^2 + y^2 + z^2 = 1", what, q[1], q[2], q[3], q[4], math.sqrt(n2))
  end
  return q
end

return M
