-- cli/pack.lua: a column of numbers as base64 of their IEEE 754 doubles,
-- little-endian (the viewer's page, cli/page.lua: every bit of each value,
-- in 10.7 characters where the shortest decimal text takes up to 24; the
-- page decodes them into typed arrays, viewer/src/run_data.js).
local ffi = require("ffi")
local bit = require("bit")

local M = {}

local ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local CH = {}
for i = 1, 64 do CH[i - 1] = ALPHA:byte(i) end

-- base64 of n bytes at p (a uint8_t pointer)
local function base64(p, n)
  local out = ffi.new("uint8_t[?]", 4 * math.ceil(n / 3) + 1)
  local o = 0
  for i = 0, n - 1, 3 do
    local b0, b1, b2 = p[i], i + 1 < n and p[i + 1] or 0, i + 2 < n and p[i + 2] or 0
    local v = bit.bor(bit.lshift(b0, 16), bit.lshift(b1, 8), b2)
    out[o] = CH[bit.band(bit.rshift(v, 18), 63)]
    out[o + 1] = CH[bit.band(bit.rshift(v, 12), 63)]
    out[o + 2] = i + 1 < n and CH[bit.band(bit.rshift(v, 6), 63)] or 61 -- '='
    out[o + 3] = i + 2 < n and CH[bit.band(v, 63)] or 61
    o = o + 4
  end
  return ffi.string(out, o)
end

-- values[1..n] (nil or NaN: an empty cell) -> base64 of n little-endian doubles
function M.f64(values, n)
  local d = ffi.new("double[?]", math.max(n, 1))
  for i = 1, n do
    local x = values[i]
    d[i - 1] = x == nil and 0 / 0 or x
  end
  local p = ffi.cast("uint8_t *", d)
  if not ffi.abi("le") then -- the page reads little-endian
    for i = 0, n - 1 do
      for k = 0, 3 do p[8 * i + k], p[8 * i + 7 - k] = p[8 * i + 7 - k], p[8 * i + k] end
    end
  end
  return base64(p, 8 * n)
end

-- values[1..n] -> base64 of n little-endian floats (f32) or unsigned
-- 32-bit integers (u32): a visual mesh's positions and triangle indices
-- (cli/page_visual.lua; viewer/src/world_visuals.js decodes them)
local function packed(ctype, values, n)
  local d = ffi.new(ctype .. "[?]", math.max(n, 1))
  for i = 1, n do d[i - 1] = values[i] end
  local p = ffi.cast("uint8_t *", d)
  if not ffi.abi("le") then
    for i = 0, n - 1 do
      p[4 * i], p[4 * i + 3], p[4 * i + 1], p[4 * i + 2] = p[4 * i + 3], p[4 * i], p[4 * i + 2], p[4 * i + 1]
    end
  end
  return base64(p, 4 * n)
end

function M.f32(values, n) return packed("float", values, n) end
function M.u32(values, n) return packed("uint32_t", values, n) end

return M
