-- cli/info_world.lua: the worlds part of `diagc info` (cli/info.lua): per
-- world leaf, its bodies' joints and dofs in order (the URDF joint names
-- of imported robots), the joints with Coulomb friction and the mimic
-- couplings (world/couplings.lua), the self-collision pairs left out and why
-- (world/urdf_pairs.lua), and for each imported URDF one note listing
-- what the import skipped or approximated (world/urdf.lua).
local json = require("diagc.cli.json")

local M = {}

local function join(a, b) return a == "" and b or (a .. "." .. b) end

-- "12 <gazebo>, 6 <transmission>" in tag order
local function skipped_text(skipped)
  local tags = {}
  for t in pairs(skipped) do tags[#tags + 1] = t end
  table.sort(tags)
  local parts = {}
  for _, t in ipairs(tags) do parts[#parts + 1] = string.format("%d <%s>", skipped[t], t) end
  return table.concat(parts, ", ")
end

local function robot_of(C, r)
  local by_name = {}
  for _, b in ipairs(C.bodies) do by_name[b.name] = b end
  local joints = json.array()
  for _, j in ipairs(r.joints) do
    local b = by_name[j.body]
    local q0, v0 = b.q0, b.v0
    if j.type == "planar" then -- its first dof is on the first intermediate body
      q0, v0 = by_name[j.body .. "_planar_x"].q0, by_name[j.body .. "_planar_x"].v0
    end
    joints[#joints + 1] = { name = j.name, type = j.type, body = j.body, q = q0, v = v0, nq = j.nq, nv = j.nv }
  end
  local notes = json.array()
  local sk = skipped_text(r.skipped)
  if sk ~= "" then notes[#notes + 1] = "skipped (nothing a world simulates): " .. sk end
  if r.notes.merged_root then
    notes[#notes + 1] = string.format("massless root link '%s' merged into the link it is fixed to",
      r.notes.merged_root)
  end
  if r.notes.flat_cylinders then
    notes[#notes + 1] = string.format("%d cylinder(s) shorter than their diameter collide as the inscribed "
      .. "capsule (radius length/2)", r.notes.flat_cylinders)
  end
  return { file = r.file, joints = joints, notes = notes }
end

function M.describe(F)
  local list = json.array()
  for _, ctx in ipairs(F.leaves) do
    local C = ctx.type.world
    if C then
      local robots, excluded = json.array(), json.array()
      for _, r in ipairs(C.robots or {}) do robots[#robots + 1] = robot_of(C, r) end
      for _, e in ipairs(C.excluded or {}) do
        excluded[#excluded + 1] = { a = e.a, b = e.b, reason = e.reason }
      end
      local bodies = json.array()
      for _, b in ipairs(C.bodies) do
        -- joint_name: what its outputs and state elements go by (world/signals.lua)
        bodies[#bodies + 1] = { name = b.name, joint = b.joint.type, q = b.q0, v = b.v0, nq = b.nq, nv = b.nv,
          joint_name = b.nq > 0 and b.joint.name or nil }
      end
      -- the joints' Coulomb friction and mimic couplings (world/couplings.lua), rows of the step's LCP
      local friction, mimics = json.array(), json.array()
      for _, b in ipairs(C.bodies) do
        local j = b.joint
        if j.friction and j.friction > 0 then friction[#friction + 1] = { body = b.name, friction = j.friction } end
        if j.mimic then
          mimics[#mimics + 1] = { body = b.name, leader = j.mimic.leader, multiplier = j.mimic.multiplier,
            offset = j.mimic.offset }
        end
      end
      -- the ports by name a diagram may connect, export or log (world/signals.lua);
      -- the element names of a port of at most 64 (not those of `contacts`,
      -- 8 for each of up to thousands of contact slots: n, cK.x .. cK.pn)
      local signals = json.array()
      local sig = require("diagc.world.signals")
      for _, l in ipairs(sig.labels(C)) do
        local p = sig.port(C, "", l)
        signals[#signals + 1] = { path = join(ctx.path, l), size = p.size,
          elements = p.elements and #p.elements <= 64 and json.array(p.elements) or nil }
      end
      list[#list + 1] = { path = ctx.path, bodies = bodies, robots = robots, excluded = excluded,
        pairs = #C.pairs, nq = C.nq, nv = C.nv, joint_friction = friction, mimics = mimics, signals = signals }
    end
  end
  return list
end

function M.text(worlds, w)
  if #worlds == 0 then return end
  w("worlds:")
  for _, d in ipairs(worlds) do
    w("  %-28s nq %d, nv %d, %d bodies, %d collision pairs", d.path, d.nq, d.nv, #d.bodies, d.pairs)
    if #d.signals > 0 then
      -- the first few; --json lists them all with their elements
      local names = {}
      for i = 1, math.min(#d.signals, 6) do names[i] = d.signals[i].path end
      w("    signals (%d, to connect or log): %s%s", #d.signals, table.concat(names, ", "),
        #d.signals > 6 and ", ... (--json lists them all)" or "")
    end
    for _, r in ipairs(d.robots) do
      w("    urdf %s", r.file)
      local function range(a, n)
        return n == 1 and string.format("[%d]", a) or string.format("[%d..%d]", a, a + n - 1)
      end
      for _, j in ipairs(r.joints) do
        w("      %-26s %-10s body %-20s q%s v%s", j.name, j.type, j.body, range(j.q, j.nq), range(j.v, j.nv))
      end
      for _, n in ipairs(r.notes) do w("      note: %s", n) end
    end
    if #d.joint_friction > 0 then
      local parts = {}
      for _, f in ipairs(d.joint_friction) do parts[#parts + 1] = string.format("%s %.6g", f.body, f.friction) end
      w("    joint friction (%d): %s", #d.joint_friction, table.concat(parts, ", "))
    end
    for _, m in ipairs(d.mimics) do
      w("    mimic: %s = %.6g * %s + %.6g", m.body, m.multiplier, m.leader, m.offset)
    end
    if #d.excluded > 0 then
      w("    excluded pairs (%d):", #d.excluded)
      for _, e in ipairs(d.excluded) do w("      %s %s  (%s)", e.a, e.b, e.reason) end
    end
  end
end

M.join = join
return M
