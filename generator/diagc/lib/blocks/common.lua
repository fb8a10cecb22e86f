-- lib/blocks/common.lua: what every block of the library shares: the
-- checks of its settings (numbers, counts, lists, matrices, a period and
-- offset) and the leaf it returns, recorded at the spec's line.
--
--   M.kit(ctors, at, relocate, raise) -> K
--     K.definer(B) -> def: def(name, fn) makes B[name](settings) call
--       fn(settings, loc), loc the spec's line that called the block
--     K.settings(loc, name, s, known) -> s (a table, keys among known)
--     K.number(loc, name, key, v [, default]), K.count(...) (a whole
--       number 1..10000), K.vector(loc, name, key, v, n), K.matrix(loc,
--       name, key, v) -> rows, r, c; K.timing(loc, name, s) -> period, offset;
--       K.choice(loc, name, key, v, default, list) -> one of list;
--       K.lti_matrices(loc, name, s) -> A, B, C, D (s.A ... s.D, sizes checked)
--     K.leaf(loc, typename, items): the leaf, every item at loc
--     K.flat(rows), K.fmt(v), K.finite(v), K.ctors, K.raise
local M = {}

local function fmt(v) return string.format("%.17g", v) end

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

function M.kit(ctors, at, relocate, raise)
  local K = { ctors = ctors, raise = raise, fmt = fmt, finite = finite }

  -- B[name](settings): the spec's line is found once, here (the block is
  -- called by the spec), and handed down
  function K.definer(B)
    return function(name, fn)
      B[name] = function(s) return fn(s, at(2)) end
    end
  end

  -- the settings table of a block, checked against its known keys
  function K.settings(loc, name, s, known)
    if type(s) ~= "table" then raise(loc, "blocks.%s expects a table of settings, as in blocks.%s { ... }", name, name) end
    for k in pairs(s) do
      if not known[k] then
        local list = {}
        for n in pairs(known) do list[#list + 1] = n end
        table.sort(list)
        raise(loc, "blocks.%s: unknown setting '%s' (settings: %s)", name, tostring(k), table.concat(list, ", "))
      end
    end
    return s
  end

  function K.number(loc, name, key, v, dflt)
    if v == nil then
      if dflt == nil then raise(loc, "blocks.%s needs %s", name, key) end
      return dflt
    end
    if not finite(v) then raise(loc, "blocks.%s: %s must be a finite number, got %s", name, key, tostring(v)) end
    return v
  end

  function K.count(loc, name, key, v, dflt)
    v = K.number(loc, name, key, v, dflt)
    if v ~= math.floor(v) or v < 1 or v > 10000 then
      raise(loc, "blocks.%s: %s must be a whole number from 1 to 10000, got %s", name, key, tostring(v))
    end
    return v
  end

  -- a list of n finite numbers (a number is a list of n equal ones)
  function K.vector(loc, name, key, v, n)
    if type(v) == "number" then
      local out = {}
      for i = 1, n do out[i] = v end
      v = out
    end
    if type(v) ~= "table" or #v ~= n then
      raise(loc, "blocks.%s: %s must be %d number%s", name, key, n, n == 1 and "" or "s")
    end
    for i = 1, n do
      if not finite(v[i]) then raise(loc, "blocks.%s: %s[%d] must be a finite number", name, key, i) end
    end
    return v
  end

  -- a matrix as rows (a number is 1 x 1); returns rows, r, c
  function K.matrix(loc, name, key, v)
    if type(v) == "number" then v = { { v } } end
    if type(v) ~= "table" or #v == 0 or type(v[1]) ~= "table" then
      raise(loc, "blocks.%s: %s must be a matrix (a table of rows)", name, key)
    end
    local c = #v[1]
    for i, row in ipairs(v) do
      if type(row) ~= "table" or #row ~= c or c == 0 then
        raise(loc, "blocks.%s: %s must be a matrix: row %d has %s elements, row 1 has %d", name, key, i,
          type(row) == "table" and tostring(#row) or "no", c)
      end
      for j = 1, c do
        if not finite(row[j]) then raise(loc, "blocks.%s: %s[%d][%d] must be a finite number", name, key, i, j) end
      end
    end
    return v, #v, c
  end

  -- a string setting among a list of choices
  function K.choice(loc, name, key, v, dflt, list)
    if v == nil then return dflt end
    for _, c in ipairs(list) do
      if v == c then return v end
    end
    raise(loc, "blocks.%s: %s must be %s, got %s", name, key,
      "\"" .. table.concat(list, "\", \"") .. "\"", tostring(v))
  end

  function K.flat(rows)
    local out = {}
    for _, r in ipairs(rows) do
      for _, x in ipairs(r) do out[#out + 1] = x end
    end
    return out
  end

  -- the A, B, C and D (default zero) of a state space, sizes checked
  function K.lti_matrices(loc, name, s)
    local A, n, n2 = K.matrix(loc, name, "A", s.A)
    if n ~= n2 then raise(loc, "blocks.%s: A must be square, is %d x %d", name, n, n2) end
    local Bm, nb, m = K.matrix(loc, name, "B", s.B)
    if nb ~= n then raise(loc, "blocks.%s: B must have %d rows (A's), has %d", name, n, nb) end
    local C, p, nc = K.matrix(loc, name, "C", s.C)
    if nc ~= n then raise(loc, "blocks.%s: C must have %d columns (A's), has %d", name, n, nc) end
    local D = s.D
    if D == nil then
      D = {}
      for i = 1, p do
        D[i] = {}
        for j = 1, m do D[i][j] = 0 end
      end
    end
    local Dm, pd, md = K.matrix(loc, name, "D", D)
    if pd ~= p or md ~= m then raise(loc, "blocks.%s: D must be %d x %d (C's rows, B's columns), is %d x %d", name, p, m, pd, md) end
    return A, Bm, C, Dm
  end

  -- the parameters A, B, C of a state space (D is one only when it is not
  -- zero at generation); returns the items, n, m, p and whether D is
  function K.lti_parameters(A, Bm, C, D)
    local feed = false
    for _, r in ipairs(D) do
      for _, v in ipairs(r) do feed = feed or v ~= 0 end
    end
    return { ctors.parameter { "A", default = K.flat(A) }, ctors.parameter { "B", default = K.flat(Bm) },
      ctors.parameter { "C", default = K.flat(C) } }, #A, #Bm[1], #C, feed
  end

  -- the period and offset of a sampled block
  function K.timing(loc, name, s)
    local period = K.number(loc, name, "period", s.period)
    if not (period > 0) then raise(loc, "blocks.%s: period must be positive, got %s", name, fmt(period)) end
    local offset = K.number(loc, name, "offset", s.offset, 0)
    if not (offset >= 0) then raise(loc, "blocks.%s: offset must be at least 0, got %s", name, fmt(offset)) end
    return period, offset
  end

  -- leaf "Name" { items } with every item recorded at the spec's line
  function K.leaf(loc, name, items)
    for _, it in ipairs(items) do relocate(it, loc) end
    return relocate(ctors.leaf(name)(items), loc)
  end

  return K
end

return M
