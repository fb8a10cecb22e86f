-- tests/cli/world_dynamics_cc.lua (run by world_dynamics_cc.sh through
-- `diagc test`): the generated world dynamics built by gcc, clang and tcc
-- at -std=c99 -Wall -Wextra -Werror -pedantic.  Kept out of the Lua suite:
-- each test runs the system compilers on large translation units.
local S = dofile("tests/lua/world_support.lua")
local W = dofile("tests/lua/world_worlds.lua")
local dyn = require("diagc.world.dynamics")
local G, body, free_body, quat, ball_pendulum = W.G, W.body, W.free_body, W.quat, W.ball_pendulum
local mixed_chain, MIXED_Q, MIXED_V, unit_quats = W.mixed_chain, W.MIXED_Q, W.MIXED_V, W.unit_quats
local branching_tree, cartpole = W.branching_tree, W.cartpole

-- gcc, clang and tcc at -std=c99 -Wall -Wextra -Werror -pedantic compile the
-- generated C with a driver; the programs print what the JIT computes
local function driver(world, P, q, v)
  local f = dyn.facts(world)
  local function list(t) return "{ " .. table.concat(t, ", ") .. " }" end
  return string.format([[
static void %s_driver(void)
{
  const double q[%d] = %s, v[%d] = %s, p[3] = { 0.1, 0.2, 0.3 };
  double X[%d], M[%d], c[%d], x[%d], J[%d], qn[%d];
  int k;
  %s_t_kinematics(q, X);
  %s_t_mass_matrix(q, X, M);
  %s_t_bias(q, v, X, c);
  for (k = 0; k < %d; ++k) x[k] = c[k];
  %s_t_factor(M);
  %s_t_solve(M, x);
  %s_t_point_jacobian(%d, q, X, p, J);
  %s_t_integrate(q, v, 0.01, qn);
  for (k = 0; k < %d; ++k) printf("%%.17g\n", x[k]);
  for (k = 0; k < %d; ++k) printf("%%.17g\n", J[k]);
  for (k = 0; k < %d; ++k) printf("%%.17g\n", qn[k]);
  printf("%%.17g\n", %s_t_energy(q, v, X));
}
]], P, f.nq, list(q), f.nv, list(v), 12 * f.nb, f.nm, f.nv, f.nv, 3 * f.nv, f.nq, P, P, P, f.nv, P, P, P, f.nb,
    P, f.nv, 3 * f.nv, f.nq, P)
end

local function jit_values(world, P, q, v)
  local w = S.compile(world, P)
  local f = w.f
  local qa, va, X, M, c = S.arr(f.nq, q), S.arr(f.nv, v), S.arr(12 * f.nb), S.arr(f.nm), S.arr(f.nv)
  w.fn.kinematics(qa, X)
  w.fn.mass_matrix(qa, X, M)
  w.fn.bias(qa, va, X, c)
  w.fn.factor(M)
  w.fn.solve(M, c)
  local J, qn = S.arr(3 * f.nv), S.arr(f.nq)
  w.fn.point_jacobian(f.nb, qa, X, S.arr(3, { 0.1, 0.2, 0.3 }), J)
  w.fn.integrate(qa, va, 0.01, qn)
  local out = S.list(c, f.nv)
  for _, x in ipairs(S.list(J, 3 * f.nv)) do out[#out + 1] = x end
  for _, x in ipairs(S.list(qn, f.nq)) do out[#out + 1] = x end
  out[#out + 1] = w.fn.energy(qa, va, X)
  return out
end

test("world.strict_compilers", function()
  local shq = require("diagc.util").shell_quote
  local cases = {
    { mixed_chain(), "sc1", unit_quats({ unpack(MIXED_Q) }), MIXED_V },
    { branching_tree(), "sc2", { 0.3, -0.8, 0.25, 1.1, -0.4, 0.9, 2.2 }, { 0.5, -1.2, 0.8, 2.0, -0.3, 1.1, -0.9 } },
    { free_body({ 0, 0, -G }), "sc3", { 1, 2, 3, unpack(quat({ 1, 2, 3 }, 0.7)) }, { 0.5, -1, 2, 1.5, -0.3, 0.8 } },
  }
  -- the same worlds in the looped form (world/looped.lua)
  for n = 1, 3 do
    local w = {}
    for k, v in pairs(cases[n][1]) do w[k] = v end
    w.settings = { dynamics = "looped" }
    cases[#cases + 1] = { w, "sl" .. n, cases[n][3], cases[n][4] }
  end
  local want, unit = {}, { "#include <stdio.h>\n" }
  for _, case in ipairs(cases) do
    for _, x in ipairs(jit_values(unpack(case))) do want[#want + 1] = x end
    local world, P, q, v = unpack(case)
    unit[#unit + 1] = S.unit(world, P) .. driver(world, P, q, v)
  end
  unit[#unit + 1] = "int main(void)\n{\n"
  for _, case in ipairs(cases) do unit[#unit + 1] = "  " .. case[2] .. "_driver();\n" end
  unit[#unit + 1] = "  return 0;\n}\n"
  local ran = 0
  for _, cc in ipairs({ "gcc", "clang", "tcc" }) do
    local p = io.popen("command -v " .. cc .. " 2>/dev/null")
    local path = p:read("*l")
    p:close()
    if path and path ~= "" then
      local tmp = os.tmpname()
      local fh = assert(io.open(tmp .. ".c", "wb"))
      fh:write(table.concat(unit))
      fh:close()
      do
        local cmd = string.format("%s -std=c99 -Wall -Wextra -Werror -pedantic -O2 -o %s %s -lm 2>&1 && %s",
          shq(path), shq(tmp .. ".bin"), shq(tmp .. ".c"), shq(tmp .. ".bin"))
        local h = io.popen(cmd)
        local text = h:read("*a")
        h:close()
        os.remove(tmp); os.remove(tmp .. ".c"); os.remove(tmp .. ".bin")
        local got = {}
        for line in text:gmatch("[^\n]+") do got[#got + 1] = tonumber(line) end
        truthy(#got == #want, cc .. ": " .. text:sub(1, 400))
        near(got, want, { rtol = 1e-12, atol = 1e-12 })
        ran = ran + 1
      end
    end
  end
  truthy(ran > 0, "no C compiler found")
end)

-- each function emitted alone, for edge-case worlds too, leaves no unused
-- helper, variable or parameter (clang warns even for unused static inline
-- functions): one translation unit per compiler
test("world.every_function_alone_strict", function()
  local shq = require("diagc.util").shell_quote
  local static = body("table", 5, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 0, xyz = { 0, 0, 1 } })
  local worlds = {
    { gravity = { 0, 0, -G }, bodies = {} },
    { gravity = { 0, 0, -G }, bodies = { static } },
    free_body({ 0, 0, -G }),
    { bodies = { body("box", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "free", parent = 0 }) } },
    { gravity = { 0, 0, -G }, bodies = { static, body("p", 1, { 0, 0, -1 }, { 1, 1, 1, 0, 0, 0 },
      { type = "revolute", parent = 1, axis = { 0, 1, 0 } }) } },
    ball_pendulum(), mixed_chain(), branching_tree(), cartpole(1, 0.5, 0.7),
  }
  -- and each in the looped form (world/looped.lua)
  for n = 1, #worlds do
    local w = {}
    for k, v in pairs(worlds[n]) do w[k] = v end
    w.settings = { dynamics = "looped" }
    worlds[#worlds + 1] = w
  end
  local parts = { "typedef void (*any_fn)(void);\n" }
  for n, world in ipairs(worlds) do
    for _, fn in ipairs(dyn.ORDER) do
      local P = "e" .. n .. "_" .. fn
      parts[#parts + 1] = dyn.emit(world, P, { functions = { fn } })
      parts[#parts + 1] = string.format("any_fn %s_ref(void) { return (any_fn)%s_%s; }\n", P, P, fn)
    end
  end
  local ran = 0
  for _, cc in ipairs({ "gcc", "clang" }) do
    local p = io.popen("command -v " .. cc .. " 2>/dev/null")
    local path = p:read("*l")
    p:close()
    if path and path ~= "" then
      local tmp = os.tmpname()
      local fh = assert(io.open(tmp .. ".c", "wb"))
      fh:write(table.concat(parts))
      fh:close()
      local h = io.popen(string.format("%s -std=c99 -Wall -Wextra -Werror -pedantic -c -o %s %s 2>&1; echo rc=$?",
        shq(path), shq(tmp .. ".o"), shq(tmp .. ".c")))
      local text = h:read("*a")
      h:close()
      os.remove(tmp); os.remove(tmp .. ".c"); os.remove(tmp .. ".o")
      truthy(text:match("rc=0%s*$"), cc .. ": " .. text:sub(1, 600))
      ran = ran + 1
    end
  end
  truthy(ran > 0, "no gcc or clang")
end)

