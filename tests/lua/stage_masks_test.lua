-- Stage contract of masks/ (masks/init.lua's header): F and the ticket
-- graph -> the entry points, each with the cache entries it marks stale
-- and their 64-bit words.  Called directly, without TinyCC or the coder.
-- The stale sets follow by hand from tests/lua/fixtures/stages_spec.lua
-- (entries 0..9: plant.energy, plant.pos, plant.xcdot, ctrl.u, loop.xcdot,
-- lag.out, lag.xcdot, lag2.out, lag2.xcdot, xcdot).
local load = require("diagc.spec.load")
local check = require("diagc.check")
local flatten = require("diagc.flatten")
local graph = require("diagc.tickets.graph")
local loops = require("diagc.tickets.loops")
local masks = require("diagc.masks")
local SPEC = diagc.root .. "/tests/lua/fixtures/stages_spec.lua"

local function entry_points()
  local F = flatten.flatten(check.check(load.load(SPEC)))
  local G = graph.build(F)
  loops.compute(F)
  return masks.compute(F, G), F
end

local function by_name(eps)
  local t = {}
  for _, ep in ipairs(eps) do t[ep.name] = ep end
  return t
end

local function indices(entries)
  local out = {}
  for i, e in ipairs(entries) do out[i] = e.index end
  return out
end

test("stage_masks.entry_points_in_order", function()
  local eps, F = entry_points()
  local names, kinds = {}, {}
  for i, ep in ipairs(eps) do names[i], kinds[i] = ep.name, ep.kind end
  eq(names, { "time", "accuracy", "q", "v", "z", "xc", "xd", "state", "parameters", "everything",
    "loop.plant.q", "loop.plant.v", "loop.plant.k", "loop.ctrl.count", "loop.ctrl.gain",
    "lag.z", "lag.tau", "lag2.z", "lag2.tau", "r", "loop.ctrl.ref" })
  eq(kinds, { "time", "accuracy", "bulk", "bulk", "bulk", "bulk", "bulk", "bulk", "bulk", "bulk",
    "leaf_q", "leaf_v", "pn", "xd", "pn", "leaf_z", "pn", "leaf_z", "pn", "input", "fixed" })
  local e = by_name(eps)
  eq({ e["loop.plant.q"].cname, e["loop.ctrl.count"].cname }, { "loop__plant__q", "loop__ctrl__count" })
  eq(e.r.cname, nil)
  eq({ e.r.api, e["loop.ctrl.ref"].api }, { "set_input_r", "fix_loop__ctrl__ref" })
  truthy(F.u_slots[1].ep == e.r and F.u_slots[2].ep == e["loop.ctrl.ref"], "slot.ep")
  truthy(e["loop.plant.k"].ctx == F.leaves[1] and e["loop.plant.k"].item == F.leaves[1].type.names.k, "ctx, item")
end)

test("stage_masks.stale_sets_and_words", function()
  local e = by_name((entry_points()))
  local want = {
    -- name, stale entry indices, the word's hex
    { "time", {}, nil },
    { "loop.ctrl.count", {}, nil },  -- only its event reads it
    { "loop.plant.k", { 0, 2, 4, 9 }, "0x0000000000000215" },
    { "loop.plant.q", { 0, 1, 2, 3, 4, 9 }, "0x000000000000021f" },
    { "v", { 2, 4, 9 }, "0x0000000000000214" },
    { "lag.z", { 5, 6, 8, 9 }, "0x0000000000000360" },
    { "r", { 6, 9 }, "0x0000000000000240" },
    { "loop.ctrl.ref", { 2, 3, 4, 9 }, "0x000000000000021c" },
    { "parameters", { 0, 2, 3, 4, 6, 8, 9 }, "0x000000000000035d" },
    { "everything", { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, "0x00000000000003ff" },
  }
  for _, w in ipairs(want) do
    local ep = e[w[1]]
    eq(indices(ep.stale), w[2], w[1])
    if w[3] then
      eq(#ep.words, 1, w[1])
      eq({ ep.words[1].word, ep.words[1].hex, ep.words[1].hi, ep.words[1].full }, { 0, w[3], 0, false }, w[1])
    else
      eq(#ep.words, 0, w[1])
    end
  end
end)

test("stage_masks.words_of_large_indices", function()
  local function set(list)
    local out = {}
    for i, x in ipairs(list) do out[i] = { index = x } end
    return out
  end
  local w = masks.words(set({ 130, 0, 63, 64 }))
  local got = {}
  for i, r in ipairs(w) do got[i] = { r.word, r.hex, r.full } end
  eq(got, { { 0, "0x8000000000000001", false }, { 1, "0x0000000000000001", false },
    { 2, "0x0000000000000004", false } })
  local all = {}
  for i = 0, 63 do all[#all + 1] = i end
  local full = masks.words(set(all))
  eq({ #full, full[1].hex, full[1].full }, { 1, "0xffffffffffffffff", true })
end)
