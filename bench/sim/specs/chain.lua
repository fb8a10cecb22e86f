-- Benchmark model: a chain of N = 100 masses coupled by springs to their
-- neighbours (fixed walls at both ends), one leaf per mass:
--   x_i'' = (k (x_{i-1} - 2 x_i + x_{i+1}) - c x_i') / m
-- Each leaf reads its neighbours' positions through input ports.
local N = 100

local Mass = leaf "Mass" {
  continuous_state { q = { "x" }, v = { "xdot" } },
  parameter { "k", default = { 1.0 } },
  parameter { "c", default = { 0.01 } },
  parameter { "m", default = { 1.0 } },
  input_port { "left", size = 1 },
  input_port { "right", size = 1 },
  derivatives {
    prerequisites = { "q", "v", "left", "right", "k", "c", "m" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = (k[0] * (left[0] - 2.0 * q[0] + right[0]) - c[0] * v[0]) / m[0];
    ]],
  },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}

local items = {}
for i = 1, N do items[#items + 1] = system { "m" .. i, Mass } end
for i = 1, N - 1 do
  items[#items + 1] = connect { "m" .. i .. ".y", "m" .. (i + 1) .. ".left" }
  items[#items + 1] = connect { "m" .. (i + 1) .. ".y", "m" .. i .. ".right" }
end
items[#items + 1] = fix_input { "m1.left", value = { 0.0 } }
items[#items + 1] = fix_input { "m" .. N .. ".right", value = { 0.0 } }
return diagram "bchain" (items)
