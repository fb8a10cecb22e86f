-- expect: diagc: FILE:5: algebraic loop through direct-feedthrough ports: a.g.y → a.h.u → a.h.y → a.g.u → a.g.y; break it with a state (e.g. a discrete delay) or narrow the prerequisites of an output so it does not read its inputs
-- The loop runs through a connect inside the imported subdiagram and the
-- one below, declared last: the error is at the one below.
local Inner = import "lib/loop_inner.lua"
return diagram "top" { system { "a", Inner }, connect { "a.out", "a.in" } }
