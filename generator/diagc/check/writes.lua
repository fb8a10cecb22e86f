-- check/writes.lua: which state an update may write (the `writes` field of
-- update events, of witnesses' unrestricted_update and of next_update_time
-- items).  A discrete update may write the leaf's discrete groups; an
-- unrestricted update also the parts of its continuous state (q, v, z) and
-- its abstract states.  Used by check/leaf.lua, check/witness.lua and
-- check/next_update.lua; the one place these rules are written.
local errors = require("diagc.errors")

local M = {}

-- The names an update of `kind` ("discrete_update" or
-- "unrestricted_update") may write, in order q, v, z, discrete groups,
-- abstract states.
function M.writable(leaf, kind)
  local w = {}
  if kind == "unrestricted_update" then
    for _, p in ipairs({ "q", "v", "z" }) do if #leaf[p] > 0 then w[#w + 1] = p end end
  end
  for _, g in ipairs(leaf.by_kind.xd) do w[#w + 1] = g.name end
  if kind == "unrestricted_update" then
    for _, g in ipairs(leaf.by_kind.xa) do w[#w + 1] = g.name end
  end
  return w
end

-- M.writable, or an error at the item when the leaf has nothing an update
-- of `kind` could write.  subject: what the message names first, e.g.
-- "periodic_discrete_update" or "witness 'ground': unrestricted_update".
function M.allowed(leaf, item, kind, subject)
  local w = M.writable(leaf, kind)
  if #w == 0 then
    errors.raise(item.loc, "%s in leaf \"%s\", which has no %s to update", subject, leaf.name,
      kind == "discrete_update" and "discrete_state" or "state")
  end
  return w
end

-- The update's writes: item.args.writes checked against `writable` (all of
-- it when the item gives none).  actor: who writes, for the message, e.g.
-- "periodic_discrete_update" or "witness 'ground'".
function M.check(item, writable, actor)
  local wr = item.args.writes
  if wr == nil then return writable end
  if type(wr) == "string" then wr = { wr } end
  if type(wr) ~= "table" or #wr == 0 then
    errors.raise(item.loc, "writes must be a non-empty list of state names (%s)", table.concat(writable, ", "))
  end
  local ok, out = {}, {}
  for _, n in ipairs(writable) do ok[n] = true end
  for _, n in ipairs(wr) do
    if not ok[n] then
      errors.raise(item.loc, "%s cannot write '%s'; it may write %s", actor, tostring(n),
        table.concat(writable, ", "))
    end
    out[#out + 1] = n
  end
  return out
end

return M
