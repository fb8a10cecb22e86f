-- vocab/kinds.lua: the kinds of a leaf's named items (the keys of a checked
-- leaf's by_kind) and the words error messages use for them.  Vocabulary,
-- not a stage: it requires nothing and every stage may use it.
local M = {}

-- In declaration-table order (check/leaf.lua builds by_kind with these).
M.order = { "xd", "xa", "pn", "pa", "input", "output", "cache" }

M.words = { xd = "discrete state", xa = "abstract state", pn = "parameter",
  pa = "abstract parameter", input = "input port", output = "output port", cache = "cache entry" }

return M
