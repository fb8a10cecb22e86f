-- The coder stage (generator/diagc/coder/c_model.lua and its modules) and
-- its template renderer, without TinyCC: the contract is that the coder
-- reads the flattened model and masks and writes the C they describe.
-- Checked on a small spec: one eval per cache entry, one invalidation per
-- entry point with the masks' words, the size macros, a descriptor row
-- per output, source and event, the checked unit holding only the spec's
-- C, and #line directives pointing at the spec.
local template = require("diagc.coder.template")
local compile = require("diagc.compile")
local dsl = diagc.dsl

local function buffer()
  local b = { lines = {} }
  function b:line(s) self.lines[#self.lines + 1] = s or "" end
  return b
end

group("template", function()
  test("inline, lazy and block slots", function()
    local b = buffer()
    local later = "before"
    template.render("model.h.in", b, setmetatable({}, { __index = function(_, k)
      if k == "api" or k == "sizes" or k == "abstract_state" or k == "abstract_params"
        or k == "abstract_cache" or k == "jacobian_storage" then return {} end
      if k == "preambles" then return function(buf) buf:line("/* pre */") end end
      if k == "spec" then return function() return later end end
      return "X"
    end }))
    -- every slot was read through __index, so none is reported unused
    truthy(b.lines[1]:find("from before", 1, true), b.lines[1])
    truthy(table.concat(b.lines, "\n"):find("\n/%* pre %*/\n"), "block slot emitted")
  end)
  test("a missing slot is an internal error naming it", function()
    expect_error(function() template.to_string("deploy_app.c.in", { version = "1" }) end,
      "template deploy_app.c.in: slot 'spec' needs a string, got nil")
  end)
  test("an unused slot is an internal error", function()
    expect_error(function()
      template.to_string("deploy_app.c.in", { version = "1", spec = "s", model_sources = "",
        model_includes = {}, port_tables = {}, n_models = 0, model_rows = {}, extra = "x" })
    end, "slot 'extra' is filled but the template does not use it")
  end)
  test("a block slot needs lines or an emitter", function()
    expect_error(function()
      template.to_string("deploy_app.c.in", { version = "1", spec = "s", model_sources = "",
        model_includes = "not lines", port_tables = {}, n_models = 0, model_rows = {} })
    end, "block slot 'model_includes' needs a function or a list of lines")
  end)
  test("template comment lines are dropped", function()
    local text = template.to_string("deploy_app.c.in", { version = "1", spec = "s", model_sources = "",
      model_includes = {}, port_tables = {}, n_models = 0, model_rows = {} })
    truthy(not text:find("{{", 1, true), "no template syntax left")
    truthy(text:sub(1, 9) == "/* app.c:", text:sub(1, 40))
  end)
end)

local function model()
  local Lag = dsl.leaf "Lag" {
    dsl.continuous_state { z = 1 },
    dsl.parameter { "tau", default = { 0.5 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u", "tau" }, calc = "zdot[0] = (u[0] - z[0]) / tau[0];" },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0];" },
    dsl.periodic_publish { "tick", period = 0.5, calc = "" },
  }
  return dsl.diagram "two" {
    dsl.system { "a", Lag }, dsl.system { "b", Lag },
    dsl.connect { "a.y", "b.u" },
    dsl.export_input { "a.u", as = "cmd" },
    dsl.export_output { "b.y", as = "out" },
  }
end

local function count(text, pat)
  local n = 0
  for _ in text:gmatch(pat) do n = n + 1 end
  return n
end

local gen = compile.compile_loaded({ root = model(), sources = {}, main = "two.lua" }, { prefix = "two" })
local F = gen.flat

group("coder", function()
  test("one eval per cache entry, one invalidation table row block per entry point", function()
    eq(count(gen.source, "\nstatic int two__eval_%d+%(two_context %*c%)\n{"), #F.entries)
    eq(count(gen.source, "\n  /%* %d+: [^\n]- %*/"), #gen.entry_points)
    eq(count(gen.source, "\n  case %d+: return two__eval_%d+%(c%);"), #F.entries)
  end)
  test("each entry point's runs clear exactly its mask's words", function()
    local bit = require("bit")
    local first = {}
    for n in gen.source:match("two__inv_first%[%d+%] = {(.-)};"):gmatch("%d+") do first[#first + 1] = tonumber(n) end
    eq(#first, #gen.entry_points + 1)
    local runs = {}
    for w, len, hex in gen.source:match("two__inv_runs%[%d+%] = {(.-)};"):gmatch("{(%d+), (%d+), UINT64_C%((0x%x+)%)}") do
      runs[#runs + 1] = { word = tonumber(w), len = tonumber(len), hex = hex }
    end
    -- the generated Jacobians are entries after F.entries (coder/
    -- jacobian_cache.lua): jac_xc's bit is cleared whenever the root's xcdot
    -- goes stale, jac_lin's whenever xcdot or an exported output does
    local jac = {}
    for _, j in ipairs(gen.jacobians) do jac[j.name] = j.index end
    truthy(jac.jac_xc and jac.jac_lin, "two has jac_xc and jac_lin")
    local function has(words, index)
      local w, b = words[math.floor(index / 64)], index % 64
      if not w then return false end
      local half = tonumber(b < 32 and w:sub(11, 18) or w:sub(3, 10), 16)
      return bit.band(half, bit.lshift(1, b % 32)) ~= 0
    end
    for i, ep in ipairs(gen.entry_points) do
      local words = {}
      for r = first[i] + 1, first[i + 1] do
        for k = 0, runs[r].len - 1 do words[runs[r].word + k] = runs[r].hex end
      end
      local stale = {}
      for _, e in ipairs(ep.stale) do stale[e] = true end
      for _, e in ipairs(F.entries) do eq(has(words, e.index), stale[e] == true, ep.name .. ": " .. e.index) end
      local xcdot = stale[F.root.entries.xcdot] == true
      local out = false
      for _, o in ipairs(F.outputs) do out = out or (o.ctx == F.root and stale[o.entry] == true) end
      eq(has(words, jac.jac_xc), xcdot, ep.name .. ": jac_xc")
      eq(has(words, jac.jac_lin), xcdot or out, ep.name .. ": jac_lin")
    end
  end)
  test("single sources' setters and single values' evals are inline in the header", function()
    for _, name in ipairs({ "two_set_a__tau", "two_set_input_cmd", "two_eval_out", "two_eval_a__y" }) do
      truthy(gen.header:find("\nstatic inline [%w_ ]-" .. name .. "%("), name .. " inline")
      truthy(not gen.source:find("\n[%w_ ]-" .. name .. "%("), name .. " not defined in the source")
    end
    truthy(gen.header:find("void two__invalidate(two_context *c, int k);", 1, true), "invalidate declared")
    truthy(gen.header:find("int two__eval_entry(two_context *c, int i);", 1, true), "eval_entry declared")
  end)
  test("size macros", function()
    for _, m in ipairs({ "TWO_NXC 2", "TWO_NZ 2", "TWO_NPN 2", "TWO_NU 1", "TWO_OUT_out_SIZE 1",
      "TWO_OUT_a__y_SIZE 1", "TWO_IN_cmd_SIZE 1", "TWO_NCACHE " .. #F.entries }) do
      truthy(gen.header:find("#define " .. m .. "\n", 1, true), m)
    end
  end)
  test("descriptor rows: outputs, sources and events, 0-based", function()
    eq(count(gen.source:match("two__outputs%[%d+%] = {(.-)};"), "\n  {\"[%w%.]+\", 1, NULL},"), #F.outputs)
    local oe = gen.source:match("two__output_entry%[%d+%] = {(.-)};")
    local idx = {}
    for n in oe:gmatch("%d+") do idx[#idx + 1] = tonumber(n) end
    eq(#idx, #F.outputs)
    for i, o in ipairs(F.outputs) do eq(idx[i], o.entry.index, o.path) end
    eq(count(gen.source, "DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH"), 2)
    truthy(not gen.source:find("rc ? NULL : NULL", 1, true), "no dead expression")
  end)
  test("the checked unit holds the spec's C, not the model", function()
    -- three calcs, and the local Jacobians of the two on the derivative path
    eq(count(gen.checked_source, "\nstatic int two__L%d+_Lag__"), 5)
    eq(count(gen.checked_source, "\nstatic int two__L%d+_Lag__[%w_]+_jac%("), 2)
    truthy(not gen.checked_source:find("two__eval_", 1, true), "no evals")
  end)
  test("#line points at the spec", function()
    truthy(gen.source:find('#line %d+ "[^"]*coder_stage_test.lua"\n'), "spec location")
  end)
end)
