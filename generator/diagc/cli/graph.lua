-- cli/graph.lua: diagc graph SPEC.lua -- the diagram and its ticket graph
-- as Graphviz DOT.  One cluster per (sub)context; inside, the trackers that
-- take part in some subscription; edges point from a prerequisite to its
-- subscriber (the direction invalidation travels).  Edges between
-- contexts are blue; the edges of a list diagc inferred from the calc's
-- body (prerequisites = "inferred", cdiff/infer.lua) are dashed and
-- labelled "inferred".  The generated Jacobians (coder/jacobian_cache.lua:
-- jac_xc, jac_lin, jac_p, jac_update<k>) are cache entries of the root
-- diagram too: a box each (shape=box3d), with an edge from each tracker
-- of its rows (its prerequisites; purple).
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local compile = require("diagc.compile")
local output = require("diagc.cli.output")

local M = {}

local function q(s) return '"' .. tostring(s):gsub('[\\"]', "\\%0") .. '"' end

-- the attributes of the edge from prerequisite n to subscriber s
local function edge_style(n, s)
  if n.ctx ~= s.ctx then return " [color=blue, penwidth=1.5]" end
  -- a leaf's cache trackers subscribe to exactly their calc's list
  local calc = s.entry and s.entry.calc
  if calc and calc.inferred then return ' [style=dashed, label="inferred", fontsize=8]' end
  return ""
end

function M.dot(gen, all)
  local F, G = gen.flat, gen.graph
  local lines = { "digraph " .. q(gen.prefix) .. " {", "  rankdir=LR;", "  node [fontsize=10];" }
  local used = {}
  for _, n in ipairs(G.nodes) do
    if all or #n.subs > 0 or #n.pres > 0 then used[n.id] = true end
  end
  for _, j in ipairs(gen.jacobians or {}) do
    for _, n in ipairs(j.pres) do used[n.id] = true end
  end
  local function emit_ctx(ctx, indent)
    local label = ctx.path == "" and ("diagram " .. ctx.type.name)
      or (ctx.path .. " (" .. ctx.kind .. " " .. ctx.type.name .. ")")
    lines[#lines + 1] = indent .. "subgraph " .. q("cluster_" .. ctx.id) .. " {"
    lines[#lines + 1] = indent .. "  label=" .. q(label) .. ";"
    for _, n in ipairs(G.nodes) do
      if n.ctx == ctx and used[n.id] then
        local attrs = {}
        if n.entry then
          attrs[#attrs + 1] = "shape=box, style=filled, fillcolor=lightyellow"
        elseif n.name:match("^input:") or n.name:match("^output:") then
          attrs[#attrs + 1] = "shape=cds"
        elseif n.name:match("^fixed:") then
          attrs[#attrs + 1] = "shape=note"
        else
          attrs[#attrs + 1] = "shape=ellipse"
        end
        if n.suppressed then attrs[#attrs + 1] = "style=dashed, fontcolor=gray" end
        lines[#lines + 1] = string.format("%s  n%d [label=%s, %s];", indent, n.id, q(n.name),
          table.concat(attrs, ", "))
      end
    end
    if ctx == F.root then
      for _, j in ipairs(gen.jacobians or {}) do
        lines[#lines + 1] = string.format("%s  %s [label=%s, shape=box3d, style=filled, fillcolor=lavender];",
          indent, q(j.name), q(j.name))
      end
    end
    for _, ch in ipairs(ctx.children) do emit_ctx(ch, indent .. "  ") end
    lines[#lines + 1] = indent .. "}"
  end
  emit_ctx(F.root, "  ")
  for _, n in ipairs(G.nodes) do
    for _, s in ipairs(n.subs) do
      if used[n.id] and used[s.id] then
        lines[#lines + 1] = string.format("  n%d -> n%d%s;", n.id, s.id, edge_style(n, s))
      end
    end
  end
  for _, j in ipairs(gen.jacobians or {}) do
    for _, n in ipairs(j.pres) do
      lines[#lines + 1] = string.format("  n%d -> %s [color=purple];", n.id, q(j.name))
    end
  end
  lines[#lines + 1] = "}"
  return table.concat(lines, "\n") .. "\n"
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = { ["-o"] = true, ["--all"] = false } }, "diagc graph")
  if #pos ~= 1 then errors.raise(nil, "diagc graph: expected one spec file, as in: diagc graph spec.lua -o graph.dot") end
  local gen = compile.compile(pos[1], {})
  local text = M.dot(gen, o["--all"])
  if o["-o"] then
    output.write_file("diagc graph", o["-o"], text, require("diagc.cli.generate").inputs(gen))
  else
    output.stdout("diagc graph", text)
  end
  return 0
end

return M
