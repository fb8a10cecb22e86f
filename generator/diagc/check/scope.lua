-- check/scope.lua: which names a calc body may use.
-- A calc's generated function takes exactly the values its prerequisites
-- grant, so reading anything else is an error.  This module lists those
-- parameters (per leaf type and calc: check/leaf.lua stores them as
-- calc.params) and checks bodies with the C lexer so the error names the
-- value and the ticket that would grant it.
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")
local c_code = require("diagc.check.c_code")
local errors = require("diagc.errors")

local M = {}

-- Parameters of a calc's function, in canonical order.
-- Each: {key=, name= (in the body), ctype=, write= true for what it writes}
function M.params(leaf, calc)
  local g = builtin.expand(leaf, calc.prereqs)
  local ps = {}
  local function p(key, name, ctype, write)
    ps[#ps + 1] = { key = key, name = name, ctype = ctype, write = write }
  end
  if g.t then p("t", "t", "double") end
  if g.accuracy then p("accuracy", "accuracy", "double") end
  -- a leaf's calcs see only the parts of the continuous state it has: a
  -- pointer to an absent part would land in another leaf's slots
  local has = { q = #leaf.q > 0, v = #leaf.v > 0, z = #leaf.z > 0 }
  for _, k in ipairs({ "q", "v", "z" }) do if g[k] and has[k] then p(k, k, "const double *") end end
  for _, it in ipairs(leaf.by_kind.xd) do
    if g["xd:" .. it.name] then p("xd:" .. it.name, it.name, "const double *") end
  end
  for _, it in ipairs(leaf.by_kind.xa) do
    if g["xa:" .. it.name] then p("xa:" .. it.name, it.name, "const " .. it.ctype .. " *") end
  end
  for _, it in ipairs(leaf.by_kind.pn) do
    if g["pn:" .. it.name] then p("pn:" .. it.name, it.name, "const double *") end
  end
  for _, it in ipairs(leaf.by_kind.pa) do
    if g["pa:" .. it.name] then p("pa:" .. it.name, it.name, "const " .. it.ctype .. " *") end
  end
  for _, it in ipairs(leaf.by_kind.input) do
    if g["input:" .. it.name] then p("input:" .. it.name, it.name, "const double *") end
  end
  for _, it in ipairs(leaf.by_kind.cache) do
    if g["cache:" .. it.name] then
      p("cache:" .. it.name, it.name, it.ctype and ("const " .. it.ctype .. " *") or "const double *")
    end
  end
  if g["builtin:xcdot"] then
    for _, k in ipairs({ "q", "v", "z" }) do
      if has[k] then p("builtin:xcdot:" .. k, k .. "dot", "const double *") end
    end
  end
  for _, tk in ipairs({ "pe", "ke", "pc", "pnc" }) do
    if g["builtin:" .. tk] then p("builtin:" .. tk, tk, "const double *") end
  end
  -- what the calc writes
  local k = calc.kind
  if k == "output" or k == "cache" then
    local it = calc.item
    p("self", it.name, it.ctype and (it.ctype .. " *") or "double *", true)
  elseif k == "xcdot" then
    for _, part in ipairs({ "q", "v", "z" }) do
      if has[part] then p("self:" .. part, part .. "dot", "double *", true) end
    end
  elseif builtin.computed[k] then
    p("self", k, "double *", true)
  elseif k == "event" then
    for _, w in ipairs(calc.writes or {}) do
      local it = leaf.names[w]
      if w == "q" or w == "v" or w == "z" then
        p("next:" .. w, w .. "_next", "double *", true)
      elseif it.kind == "xd" then
        p("next:xd:" .. w, w .. "_next", "double *", true)
      else
        p("next:xa:" .. w, w .. "_next", it.ctype .. " *", true)
      end
    end
  end
  return ps
end

-- Every name a body could mean, with how to get it in scope.
local function namespace(leaf)
  local ns = {
    t = { what = "time", fix = "time" },
    accuracy = { what = "the accuracy", fix = "accuracy" },
    q = { what = "continuous state q", fix = "q" },
    v = { what = "continuous state v", fix = "v" },
    z = { what = "continuous state z", fix = "z" },
    qdot = { what = "the time derivatives", fix = "xcdot" },
    vdot = { what = "the time derivatives", fix = "xcdot" },
    zdot = { what = "the time derivatives", fix = "xcdot" },
  }
  for _, tk in ipairs({ "pe", "ke", "pc", "pnc" }) do
    ns[tk] = { what = builtin.computed[tk]:gsub("_", " "), fix = tk }
  end
  local words = kinds.words
  local composite = { xd = "xd", xa = "xa", pn = "pn", pa = "pa", input = "all_input_ports" }
  for _, name in ipairs(leaf.name_order) do
    local it = leaf.names[name]
    if it.kind == "output" then
      ns[name] = { what = "output port '" .. name .. "'", never = "a calc cannot read an output "
        .. "port; compute the value in a cache_entry and list it as a prerequisite of both" }
    elseif it.kind == "cache" then
      ns[name] = { what = words[it.kind] .. " '" .. name .. "'", fix = name }
    else
      ns[name] = { what = words[it.kind] .. " '" .. name .. "'", fix = name, alt = composite[it.kind] }
    end
    if it.kind == "xd" or it.kind == "xa" then
      ns[name .. "_next"] = { what = "the next value of '" .. name .. "'",
        never = "only update events write '" .. name .. "_next' (and only states they may write)" }
    end
  end
  for _, p in ipairs({ "q", "v", "z" }) do
    ns[p .. "_next"] = { what = "the next value of " .. p,
      never = "only unrestricted update events write " .. p .. "_next" }
    -- parts of the continuous state the leaf does not have do not exist
    if #leaf[p] == 0 then
      for _, n in ipairs({ p, p .. "dot", p .. "_next" }) do ns[n] = { absent = p } end
    end
  end
  return ns
end

-- "output port 'y'", "derivatives", ...: how messages name a calc
function M.what_calc(leaf, calc)
  if calc.kind == "output" then return "output port '" .. calc.name .. "'" end
  if calc.kind == "cache" then return "cache entry '" .. calc.name .. "'" end
  if calc.kind == "event" then return "event '" .. calc.name .. "'" end
  if calc.kind == "witness" then return "witness '" .. calc.name .. "'" end
  if calc.kind == "next_update_time" then return "next_update_time '" .. calc.name .. "'" end
  return builtin.computed[calc.kind]:gsub("_", " ")
end

-- The prerequisite names a calc body reads (the tickets that would grant
-- each value it names), in order of first use; nil without a lexer.
function M.reads(leaf, calc, lex)
  if not lex then return nil end
  local toks = lex(calc.body)
  if not toks then return nil end
  local ns, out, seen, prev = namespace(leaf), {}, {}, nil
  for _, tk in ipairs(toks) do
    local n = tk.kind == "ident" and ns[tk.text]
    if n and n.fix and not seen[n.fix]
        and not (prev and prev.kind == "punct" and (prev.text == "." or prev.text == "->")) then
      seen[n.fix] = true
      out[#out + 1] = n.fix
    end
    prev = tk
  end
  return out
end

-- The tokens of a body that name a value of the leaf (namespace entry
-- ns[tk.text]), in order: not a name the body declares itself (locals,
-- struct members shadow ours), not a member after '.' or '->'.
local TYPE_WORDS = { double = true, float = true, int = true, long = true, short = true,
  char = true, unsigned = true, signed = true, _Bool = true, size_t = true }

local function naming(toks, ns)
  local declared = {}
  for i, tk in ipairs(toks) do
    if tk.kind == "ident" and i > 1 then
      local j = i - 1
      while j > 1 and toks[j].text == "*" do j = j - 1 end
      if TYPE_WORDS[toks[j].text] then declared[tk.text] = true end
    end
  end
  local out, prev = {}, nil
  for _, tk in ipairs(toks) do
    if tk.kind == "ident" and ns[tk.text] and not declared[tk.text]
        and not (prev and prev.kind == "punct" and (prev.text == "." or prev.text == "->")) then
      out[#out + 1] = tk
    end
    prev = tk
  end
  return out
end

-- The names of the leaf's values a body names (what must be in its scope
-- for it to compile), each mapped to its first token {line=, col=, ...}
-- (relative to the body); nil without a lexer or when the body does not lex.
function M.names_used(leaf, calc, lex)
  local toks = lex and lex(calc.body)
  if not toks then return nil end
  local set = {}
  for _, tk in ipairs(naming(toks, namespace(leaf))) do set[tk.text] = set[tk.text] or tk end
  return set
end

-- Check a calc body: every identifier naming a value of this leaf must be
-- in scope.  `lex` is the host's C lexer (may be nil: the C compiler then
-- reports the undeclared name instead).
function M.check_body(leaf, calc, params, lex)
  if not lex then return end
  local loc_of = c_code.loc_mapper(calc.body_loc)
  local toks = c_code.check_statements(calc.body,
    { what = "the calc of " .. M.what_calc(leaf, calc), loc_of = loc_of }, lex)
  local inscope = {}
  for _, p in ipairs(params) do inscope[p.name] = true end
  local ns = namespace(leaf)
  for _, tk in ipairs(naming(toks, ns)) do
    if not inscope[tk.text] then
      local n = ns[tk.text]
      local loc = loc_of(tk.line, tk.col)
      if n.absent then
        errors.raise(loc, "%s of leaf \"%s\" uses '%s', but the leaf has no continuous state %s; "
          .. "declare %s in its continuous_state or remove the use", M.what_calc(leaf, calc), leaf.name,
          tk.text, n.absent, n.absent)
      end
      local base = tk.text:match("^(.*)_next$")
      if base and calc.kind == "event" and calc.event_kind ~= "publish" then
        errors.raise(loc, "%s of leaf \"%s\" writes '%s', but '%s' is not in its writes {%s}; "
          .. "add \"%s\" to writes", M.what_calc(leaf, calc), leaf.name, tk.text, base,
          table.concat(calc.writes or {}, ", "), base)
      end
      if n.never then
        errors.raise(loc, "%s of leaf \"%s\" reads '%s' (%s): %s", M.what_calc(leaf, calc), leaf.name,
          tk.text, n.what, n.never)
      end
      local fix = "\"" .. n.fix .. "\"" .. (n.alt and (" or \"" .. n.alt .. "\"") or "")
      errors.raise(loc, "%s of leaf \"%s\" reads '%s' (%s), which its prerequisites {%s} do not "
        .. "grant; add %s to its prerequisites", M.what_calc(leaf, calc), leaf.name, tk.text, n.what,
        table.concat(calc.prereqs, ", "), fix)
    end
  end
end

return M
