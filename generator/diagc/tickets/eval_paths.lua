-- tickets/eval_paths.lua: splits the evaluation-dependency graph of the
-- cache entries (tickets/loops.lua, e.deps) into disjoint paths, so that a
-- lazy eval runs along a path iteratively, in straight-line code, instead
-- of recursing once per entry (coder/evals.lua writes a long path as
-- segments of bounded length, run one after the other).
--
-- Each entry E may take one of the entries it reads as its path
-- predecessor: the deepest one (longest chain of eval deps below it) that
-- no other entry has taken yet.  A path is then p[0] -> p[1] -> ... where
-- p[i] reads p[i-1].  Along a path, an eval of p[k] scans back from k-1 to
-- the last up-to-date entry j and computes p[j+1..k] in order; the other
-- (side) deps of each step are evaluated by the usual eval calls.  Taking
-- the deepest dep first bounds the recursion depth by the number of
-- path changes along any chain, instead of by the chain's length (a
-- 1,000-system feedthrough chain becomes one path and no recursion).
--
-- Stage contract: F with e.deps (tickets/loops.lua) -> F with, on every
-- entry of F.entries: e.path (the path table), e.pos (0-based position in
-- it), e.pred (the predecessor entry or nil).  M.compute returns the list
-- of paths, each { id = 0-based, entries = { ... } }, in entry-index order
-- of their first entry (compile.lua stores it as F.eval_paths).  Every
-- entry is on exactly one path.
local M = {}

-- The entries reachable from `roots` through their eval deps, deps first
-- (iterative post-order DFS; the graph is acyclic: tickets/loops.lua has
-- rejected cycles).
function M.post_order(roots)
  local order, seen = {}, {}
  for _, root in ipairs(roots) do
    if not seen[root] then
      seen[root] = true
      local stack = { { e = root, i = 0 } }
      while #stack > 0 do
        local top = stack[#stack]
        top.i = top.i + 1
        local d = top.e.deps[top.i]
        if not d then
          order[#order + 1] = top.e
          stack[#stack] = nil
        elseif not seen[d.entry] then
          seen[d.entry] = true
          stack[#stack + 1] = { e = d.entry, i = 0 }
        end
      end
    end
  end
  return order
end

function M.compute(F)
  local entries = F.entries
  local order = M.post_order(entries)

  local depth, succ = {}, {}
  for _, e in ipairs(order) do
    local best, dmax = nil, 0
    for _, d in ipairs(e.deps) do
      local n = d.entry
      if depth[n] + 1 > dmax then dmax = depth[n] + 1 end
      if not succ[n] and (not best or depth[n] > depth[best]
          or (depth[n] == depth[best] and n.index < best.index)) then
        best = n
      end
    end
    depth[e] = dmax
    e.pred = best
    if best then succ[best] = e end
  end

  local paths = {}
  for _, e in ipairs(entries) do
    if not e.pred then
      local p = { id = #paths, entries = {} }
      local cur = e
      while cur do
        cur.path, cur.pos = p, #p.entries
        p.entries[#p.entries + 1] = cur
        cur = succ[cur]
      end
      paths[#paths + 1] = p
    end
  end
  return paths
end

return M
