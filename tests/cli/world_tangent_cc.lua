-- tests/cli/world_tangent_cc.lua (run by world_tangent_cc.sh through
-- `diagc test`): the tangent derivatives (world/tangent.lua) built by gcc,
-- clang and tcc at -std=c99 -Wall -Wextra -Werror -pedantic.  Kept out of
-- the Lua suite: each test runs the system compilers on large units.
local T = dofile("tests/lua/world_tangent_support.lua")
local W = dofile("tests/lua/world_worlds.lua")
local S = T.S
local dyn = require("diagc.world.dynamics")
local tangent = require("diagc.world.tangent")
local shq = require("diagc.util").shell_quote

local function compilers()
  local out = {}
  for _, cc in ipairs({ "gcc", "clang", "tcc" }) do
    local p = io.popen("command -v " .. cc .. " 2>/dev/null")
    local path = p:read("*l")
    p:close()
    if path and path ~= "" then out[#out + 1] = { cc, path } end
  end
  return out
end

-- compiles (and runs, when run) a unit; returns the output and whether it built
local function build(path, text, run)
  local tmp = os.tmpname()
  local fh = assert(io.open(tmp .. ".c", "wb"))
  fh:write(text)
  fh:close()
  local cmd = string.format("%s -std=c99 -Wall -Wextra -Werror -pedantic %s -o %s %s%s 2>&1", shq(path),
    run and "" or "-c", shq(tmp .. ".bin"), shq(tmp .. ".c"), run and " -lm" or "")
  if run then cmd = cmd .. " && " .. shq(tmp .. ".bin") end
  cmd = cmd .. "; echo rc=$?"
  local h = io.popen(cmd)
  local out = h:read("*a")
  h:close()
  os.remove(tmp); os.remove(tmp .. ".c"); os.remove(tmp .. ".bin")
  return out
end

local function clist(t)
  local s = {}
  for i, x in ipairs(t) do s[i] = string.format("%.17g", x) end
  return "{ " .. table.concat(s, ", ") .. " }"
end

-- a driver printing every tangent function's outputs at one state
local function driver(f, P, st)
  local nv, nb = f.nv, f.nb
  return string.format([[
static void %s_driver(void)
{
  const double q[%d] = %s, v[%d] = %s, a[%d] = %s, W[%d] = %s;
  double dX[%d], Dq[%d], Dv[%d], D1[%d], D2[%d], D3[%d];
  int k;
  %s_d_kinematics(q, dX);
  %s_d_rnea(q, v, a, %s_tmass, Dq, Dv);
  %s_d_mvec(q, a, %s_tmass, D1);
  %s_d_bvel(q, v, D2);
  %s_d_gforce(q, W, D3);
  for (k = 0; k < %d; ++k) printf("%%.17g\n", dX[k]);
  for (k = 0; k < %d; ++k) printf("%%.17g\n%%.17g\n%%.17g\n%%.17g\n", Dq[k], Dv[k], D1[k], D3[k]);
  for (k = 0; k < %d; ++k) printf("%%.17g\n", D2[k]);
}
]], P, f.nq, clist(st.q), nv, clist(st.v), nv, clist(st.a), 6 * nb, clist(st.W), 12 * nb * nv, nv * nv,
    nv * nv, nv * nv, 6 * nb * nv, nv * nv, P, P, P, P, P, P, P, 12 * nb * nv, nv * nv, 6 * nb * nv)
end

local function jit_values(w, st)
  local f = w.f
  local nv, nb = f.nv, f.nb
  local out = {}
  local function add(list) for _, x in ipairs(list) do out[#out + 1] = x end end
  add(T.call(w, "kinematics", { st.q }, { 12 * nb * nv })[1])
  local r = T.call(w, "rnea", { st.q, st.v, st.a }, { nv * nv, nv * nv })
  local m = T.call(w, "mvec", { st.q, st.a }, { nv * nv })[1]
  local g = T.call(w, "gforce", { st.q, st.W }, { nv * nv })[1]
  for k = 1, nv * nv do add({ r[1][k], r[2][k], m[k], g[k] }) end
  add(T.call(w, "bvel", { st.q, st.v }, { 6 * nb * nv })[1])
  return out
end

test("world.tangent_strict_compilers", function()
  local worlds = { W.mixed_chain(), W.branching_tree(), W.free_body({ 0, 0, -W.G }), W.ball_pendulum() }
  -- and in the looped form (world/tangent_looped.lua)
  for n = 1, 4 do
    local w = {}
    for k, v in pairs(worlds[n]) do w[k] = v end
    w.settings = { dynamics = "looped" }
    worlds[#worlds + 1] = w
  end
  local want, unit = {}, { "#include <stdio.h>\n" }
  for n, world in ipairs(worlds) do
    local P = "tc" .. n
    local w = T.compile(world, P)
    local rnd = T.rng(40 + n)
    local st = { q = T.random_q(world, w.f, rnd), v = T.random(w.f.nv, rnd), a = T.random(w.f.nv, rnd),
      W = T.random(6 * w.f.nb, rnd) }
    for _, x in ipairs(jit_values(w, st)) do want[#want + 1] = x end
    -- the world's masses, as world_support.lua's wrappers pass them
    local m = T.S.masses(world)
    local mdef = string.format("static const double %s_tmass[%d] = %s;\n", P, math.max(#m, 1),
      #m > 0 and clist(m) or "{ 0.0 }")
    unit[#unit + 1] = dyn.emit(world, P, { functions = {} }) .. tangent.emit(world, P) .. mdef .. driver(w.f, P, st)
  end
  unit[#unit + 1] = "int main(void)\n{\n"
  for n = 1, #worlds do unit[#unit + 1] = "  tc" .. n .. "_driver();\n" end
  unit[#unit + 1] = "  return 0;\n}\n"
  local ran = 0
  for _, c in ipairs(compilers()) do
    local text = build(c[2], table.concat(unit), true)
    local got = {}
    for line in text:gmatch("[^\n]+") do got[#got + 1] = tonumber(line) end
    truthy(text:match("rc=0%s*$") and #got == #want, c[1] .. ": " .. text:sub(1, 600))
    near(got, want, { rtol = 1e-12, atol = 1e-12 })
    ran = ran + 1
  end
  truthy(ran > 0, "no C compiler found")
end)

-- each function alone, after the dynamics' text, for edge-case worlds too,
-- leaves no unused variable or parameter
test("world.tangent_every_function_alone_strict", function()
  local static = W.body("table", 5, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 0, xyz = { 0, 0, 1 } })
  local worlds = {
    { gravity = { 0, 0, -W.G }, bodies = {} },
    { gravity = { 0, 0, -W.G }, bodies = { static } },
    { bodies = { W.body("box", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "free", parent = 0 }) } },
    { gravity = { 0, 0, -W.G }, bodies = { static, W.body("p", 1, { 0, 0, -1 }, { 1, 1, 1, 0, 0, 0 },
      { type = "revolute", parent = 1, axis = { 0, 1, 0 } }) } },
    W.ball_pendulum(), W.mixed_chain(), W.cartpole(1, 0.5, 0.7),
  }
  for n = 1, #worlds do
    local w = {}
    for k, v in pairs(worlds[n]) do w[k] = v end
    w.settings = { dynamics = "looped" }
    worlds[#worlds + 1] = w
  end
  local parts = { "typedef void (*any_fn)(void);\n" }
  for n, world in ipairs(worlds) do
    for _, fn in ipairs(tangent.FUNCTIONS) do
      local P = "e" .. n .. "_" .. fn
      parts[#parts + 1] = dyn.emit(world, P, { functions = {} }) .. tangent.emit(world, P, { functions = { fn } })
      parts[#parts + 1] = string.format("any_fn %s_ref(void) { return (any_fn)%s_d_%s; }\n", P, P, fn)
    end
  end
  local ran = 0
  for _, c in ipairs(compilers()) do
    local text = build(c[2], table.concat(parts), false)
    truthy(text:match("rc=0%s*$"), c[1] .. ": " .. text:sub(1, 600))
    ran = ran + 1
  end
  truthy(ran > 0, "no C compiler found")
end)
