-- bench/scale/chain.lua N MODE: the spec of a chain of N revolute links
-- (alternating y/x axes, 0.2 m apart, hanging at q = 0.1 rad each) with
-- gradients on (the default) and `dynamics = MODE` ("unrolled", "looped"
-- or "auto").  Plain luajit; prints the spec.
local n, mode = tonumber(arg[1]), arg[2] or "auto"
local out = { string.format('local w = world "chain" { time_step = 1e-3, dynamics = "%s",', mode) }
for i = 1, n do
  out[#out + 1] = string.format('  body { "l%d", mass = 1, com = {0, 0, -0.1}, inertia = {0.01, 0.01, 0.001}, '
    .. 'joint = { "revolute", %saxis = %s, xyz = {0, 0, %s}, q = {0.1}, damping = 0.01 } },', i,
    i > 1 and ('parent = "l' .. (i - 1) .. '", ') or "", i % 2 == 1 and "{0, 1, 0}" or "{1, 0, 0}",
    i == 1 and "0" or "-0.2")
end
out[#out + 1] = "}"
out[#out + 1] = 'return diagram "d" { system { "world", w } }'
print(table.concat(out, "\n"))
