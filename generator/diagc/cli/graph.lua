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

-- A node's kind: "entry" (a cache entry), "port" (input:/output:),
-- "fixed" (a fixed input), "ticket" (the other trackers)
local function node_kind(n)
  if n.entry then return "entry" end
  if n.name:match("^input:") or n.name:match("^output:") then return "port" end
  if n.name:match("^fixed:") then return "fixed" end
  return "ticket"
end

-- the style of the edge from prerequisite n to subscriber s: "context"
-- (between contexts), "inferred" (a list diagc inferred from a calc's
-- body) or "" (plain)
local function edge_kind(n, s)
  if n.ctx ~= s.ctx then return "context" end
  -- a leaf's cache trackers subscribe to exactly their calc's list
  local calc = s.entry and s.entry.calc
  if calc and calc.inferred then return "inferred" end
  return ""
end

-- The graph as data (diagc graph's DOT, and the viewer's cache view:
-- cli/page.lua): the trackers that take part in some subscription (all of
-- them with `all`) in the order of the ticket graph, then the generated
-- Jacobians; each {id=, system= (its context's path), name=, kind=,
-- suppressed= (true or nil), ctx=}; the edges {from=, to= (node ids; a
-- Jacobian's id is its name), kind= ("", "context", "inferred",
-- "jacobian")}.
function M.data(gen, all)
  local G = gen.graph
  local used, nodes, edges = {}, {}, {}
  for _, n in ipairs(G.nodes) do
    if all or #n.subs > 0 or #n.pres > 0 then used[n.id] = true end
  end
  for _, j in ipairs(gen.jacobians or {}) do
    for _, n in ipairs(j.pres) do used[n.id] = true end
  end
  for _, n in ipairs(G.nodes) do
    if used[n.id] then
      nodes[#nodes + 1] = { id = n.id, system = n.ctx.path, name = n.name, kind = node_kind(n),
        suppressed = n.suppressed and true or nil, ctx = n.ctx }
    end
  end
  for _, j in ipairs(gen.jacobians or {}) do
    nodes[#nodes + 1] = { id = j.name, system = "", name = j.name, kind = "jacobian", ctx = gen.flat.root }
  end
  for _, n in ipairs(G.nodes) do
    for _, s in ipairs(n.subs) do
      if used[n.id] and used[s.id] then edges[#edges + 1] = { from = n.id, to = s.id, kind = edge_kind(n, s) } end
    end
  end
  for _, j in ipairs(gen.jacobians or {}) do
    for _, n in ipairs(j.pres) do edges[#edges + 1] = { from = n.id, to = j.name, kind = "jacobian" } end
  end
  return { nodes = nodes, edges = edges }
end

local NODE_ATTRS = {
  entry = "shape=box, style=filled, fillcolor=lightyellow", port = "shape=cds", fixed = "shape=note",
  ticket = "shape=ellipse", jacobian = "shape=box3d, style=filled, fillcolor=lavender",
}
local EDGE_ATTRS = {
  [""] = "", context = " [color=blue, penwidth=1.5]", inferred = ' [style=dashed, label="inferred", fontsize=8]',
  jacobian = " [color=purple]",
}

local function node_ref(id) return type(id) == "number" and ("n" .. id) or q(id) end

function M.dot(gen, all)
  local F = gen.flat
  local D = M.data(gen, all)
  local lines = { "digraph " .. q(gen.prefix) .. " {", "  rankdir=LR;", "  node [fontsize=10];" }
  local function emit_ctx(ctx, indent)
    local label = ctx.path == "" and ("diagram " .. ctx.type.name)
      or (ctx.path .. " (" .. ctx.kind .. " " .. ctx.type.name .. ")")
    lines[#lines + 1] = indent .. "subgraph " .. q("cluster_" .. ctx.id) .. " {"
    lines[#lines + 1] = indent .. "  label=" .. q(label) .. ";"
    for _, n in ipairs(D.nodes) do
      if n.ctx == ctx then
        local attrs = NODE_ATTRS[n.kind]
        if n.suppressed then attrs = attrs .. ", style=dashed, fontcolor=gray" end
        lines[#lines + 1] = string.format("%s  %s [label=%s, %s];", indent, node_ref(n.id), q(n.name), attrs)
      end
    end
    for _, ch in ipairs(ctx.children) do emit_ctx(ch, indent .. "  ") end
    lines[#lines + 1] = indent .. "}"
  end
  emit_ctx(F.root, "  ")
  for _, e in ipairs(D.edges) do
    lines[#lines + 1] = string.format("  %s -> %s%s;", node_ref(e.from), node_ref(e.to), EDGE_ATTRS[e.kind])
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
