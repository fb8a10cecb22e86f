-- vocab/limits.lua: how long the names a spec chooses may be, so that the
-- generated C spells every one of them within what C99 guarantees.  C99
-- (5.2.4.1) guarantees a string literal of 4095 characters, and gcc and
-- clang -std=c99 -pedantic refuse a longer one; the generated C writes
-- names into literals (the descriptor's "a.b.theta", "a.b.x[3]", event and
-- logger names).  Each literal is a system's path, a '.', one name and at
-- most an index, so a name is at most NAME characters and a system's path
-- (its names joined with '.') at most PATH.  Vocabulary, not a stage: it
-- requires nothing and every stage may use it; callers raise the messages.
local M = {}

M.STRING = 4095 -- characters of a C99 string literal (5.2.4.1)
M.NAME = 255    -- characters of one name
-- a path, then "." .. name .. "[9999999]" (sizes are at most 1e7)
M.PATH = M.STRING - (1 + M.NAME + 9)

local function head(s) return #s > 24 and (s:sub(1, 24) .. "...") or s end

-- Why `s` is too long for a name (what: "subsystem name"), or nil.
function M.name_problem(what, s)
  if #s > M.NAME then
    return string.format("%s '%s' is %d characters long; a name is at most %d characters "
      .. "(the generated C spells it in string literals); choose a shorter name", what, head(s), #s, M.NAME)
  end
end

-- Why the system path `p` ("a.b.c") is too long, or nil.
function M.path_problem(p)
  if #p > M.PATH then
    return string.format("the path of subsystem '%s' ('%s') is %d characters long; a path is at "
      .. "most %d characters, so that each name below it fits a C99 string literal (%d "
      .. "characters); use shorter names or nest fewer diagrams", head(p:match("[^.]*$")), head(p), #p,
      M.PATH, M.STRING)
  end
end

-- Why the text `s` is too long for a C string literal, or nil.
function M.literal_problem(what, s)
  if #s > M.STRING then
    return string.format("%s '%s' is %d characters long; the generated C spells it in a string "
      .. "literal, which C99 limits to %d characters", what, head(s), #s, M.STRING)
  end
end

return M
