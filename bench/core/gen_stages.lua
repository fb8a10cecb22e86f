-- bench/gen_stages.lua: per-stage wall time of the generator pipeline.
-- Run inside the real host (with its C lexer) as a diagc test file:
--   DIAGC_STAGE_SPECS="a.lua b.lua" bin/diagc test bench/gen_stages.lua
-- Prints one line per spec: "STAGES spec load=.. check=.. ... total=.." (s).
-- It repeats compile.compile_loaded (generator/diagc/compile.lua) stage by
-- stage, so it must follow that function if the pipeline changes; it does
-- not modify the generator.
--   DIAGC_STAGE_NOGC=1  stop LuaJIT's garbage collector for the run
--   DIAGC_STAGE_JIT=1   also time the in-process TinyCC compile
local host = require("diagc_host")

local function stages(path)
  if os.getenv("DIAGC_STAGE_NOGC") then collectgarbage("collect"); collectgarbage("stop") end
  local t = {}
  local order = {}
  local t0 = host.now()
  local last = t0
  local function mark(name)
    local now = host.now()
    t[name] = now - last
    order[#order + 1] = name
    last = now
  end
  local loaded = require("diagc.spec.load").load(path); mark("load")
  local model = require("diagc.check").check(loaded); mark("check")
  local F = require("diagc.flatten").flatten(model); mark("flatten")
  local G = require("diagc.tickets.graph").build(F); mark("graph")
  require("diagc.tickets.loops").compute(F); mark("loops")
  F.eval_paths = require("diagc.tickets.eval_paths").compute(F); mark("eval_paths")
  local eps = require("diagc.masks.entry_points").list(F, G); mark("entry_points")
  local graph = require("diagc.tickets.graph")
  local masks = require("diagc.masks")
  local swept = 0
  for _, ep in ipairs(eps) do
    ep.stale = graph.stale_set(G, ep.noted)
    swept = swept + #ep.stale
  end
  mark("stale_sets")
  for _, ep in ipairs(eps) do ep.words = masks.words(ep.stale) end
  mark("mask_words")
  local compile = require("diagc.compile")
  local gen = require("diagc.coder.c_model").generate(F, eps, {
    prefix = compile.prefix_of(model.root.name),
    header_name = "stages.h", source_name = "stages.c",
    spec_name = loaded.main, version = compile.VERSION,
    leaf_types = model.leaf_types, sources = loaded.sources,
    lex = host.lex_c, default_accuracy = 1e-4,
  })
  mark("c_model")
  if os.getenv("DIAGC_STAGE_JIT") then
    gen.header_name = "stages.h"
    local unit = require("diagc.jit").unit(gen); mark("jit_unit")
    local state, msgs = host.tcc_compile(unit, { options = "-Wall -Werror", name = "stages.c" })
    assert(state, msgs); mark("tcc_compile")
  end
  local parts = {}
  for _, k in ipairs(order) do parts[#parts + 1] = string.format("%s=%.3f", k, t[k]) end
  io.stdout:write(string.format("STAGES %s %s total=%.3f nodes=%d eps=%d stale_entries=%d bytes=%d gc_kb=%d\n",
    path, table.concat(parts, " "), last - t0, #G.nodes, #eps, swept, #gen.source,
    collectgarbage("count")))
  io.stdout:flush()
end

for spec in (os.getenv("DIAGC_STAGE_SPECS") or ""):gmatch("%S+") do
  test("stages " .. spec, function() stages(spec) end)
end
