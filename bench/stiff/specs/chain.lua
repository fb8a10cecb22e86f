-- Benchmark model: a stiff damped chain of N = 50 masses (100 states), one
-- leaf: stiff springs k and dashpots c between neighbours (free ends), and
-- a soft spring k0 from each mass to the ground:
--   m x_i'' = k (x_{i-1} - 2 x_i + x_{i+1}) + c (v_{i-1} - 2 v_i + v_{i+1})
--             - k0 x_i      (missing neighbours at the ends contribute 0)
-- The first mass starts displaced by 1.  The internal modes are overdamped
-- with rates up to about 4 c / m = 4e4 /s; the slow motion is the whole
-- chain swinging on the ground springs (period 2 pi): a stiffness ratio
-- of about 4e4.
local N = 50
local q, v, q0 = {}, {}, {}
for i = 1, N do q[i] = "x" .. i; v[i] = "v" .. i; q0[i] = i == 1 and 1.0 or 0.0 end

local Chain = leaf "Chain" {
  continuous_state { q = q, v = v, q0 = q0 },
  parameter { "k", default = { 1e4 } },
  parameter { "c", default = { 1e4 } },
  parameter { "k0", default = { 1.0 } },
  parameter { "m", default = { 1.0 } },
  derivatives {
    prerequisites = { "q", "v", "k", "c", "k0", "m" },
    calc = [[
      int i;
      for (i = 0; i < ]] .. N .. [[; i++) {
        double f = -k0[0] * q[i];
        if (i > 0) f += k[0] * (q[i - 1] - q[i]) + c[0] * (v[i - 1] - v[i]);
        if (i < ]] .. N - 1 .. [[) f += k[0] * (q[i + 1] - q[i]) + c[0] * (v[i + 1] - v[i]);
        qdot[i] = v[i];
        vdot[i] = f / m[0];
      }
    ]],
  },
}
return diagram "schain" { system { "chain", Chain } }
