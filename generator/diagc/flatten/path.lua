-- flatten/path.lua: the names of a context's values: "a.b.y" as the
-- spec and the API spell them, "a__b__y" inside C names.
local M = {}

function M.join(a, b) return a == "" and b or (a .. "." .. b) end
function M.cjoin(a, b) return a == "" and b or (a .. "__" .. b) end

return M
