-- check/c_text.lua: the spec's C text, checked before any C is written.
-- Runs after check/init.lua (it needs the leaf types) and before flatten,
-- with the output names the coder will use.
--
-- Checks: every calc body (outputs, caches, derivatives, events,
-- witnesses, next_update_time) reads only what its prerequisites grant
-- (check/scope.lua); every c_preamble is declarations and #include of
-- C99 headers only (check/c_code.lua), and its macros clash with nothing
-- the header or the C library defines; every init is an initializer; no
-- spec name becomes one of the header's PREFIX_* macros; the output file
-- names fit an #include.
--
-- Adds to each leaf type `lt`:
--   lt.c_scope = { macros = {NAME...}, directives = {{text=, loc=}...} }
--     when its preambles define macros: the coder defines them again
--     around the leaf's own code and #undefs them after it, so a
--     preamble's macros are scoped to its leaf;
-- and to each item with an init (abstract state, abstract parameter,
-- abstract cache entry):
--   item.init_loc  the spec location of the init's C text.
-- With no host lexer (plain LuaJIT, tests), only the name checks run.
local errors = require("diagc.errors")
local util = require("diagc.util")
local c_code = require("diagc.check.c_code")
local fields = require("diagc.check.fields")
local scope = require("diagc.check.scope")
local leaf = require("diagc.check.leaf")

local M = {}

-- a spec name equal to one of the header's PREFIX_* macros; output file
-- names that an #include "..." cannot carry
local function check_names(leaf_types, o)
  local macro_prefix = o.prefix:upper() .. "_"
  for _, lt in ipairs(leaf_types) do
    for _, name in ipairs(lt.name_order) do
      if name:sub(1, #macro_prefix) == macro_prefix then
        errors.raise(lt.names[name].loc, "name '%s' starts with '%s', which the generated header "
          .. "uses for its macros (model prefix '%s'); choose another name or pass --name",
          name, macro_prefix, o.prefix)
      end
    end
  end
  for _, n in ipairs({ o.header_name, o.source_name }) do
    if n:find('[%z\1-\31\127"\\]') or n:find("??", 1, true) then
      errors.raise(nil, "output file name %s cannot be written in the generated #include; "
        .. "use letters, digits, '.', '-' and '_'", util.c_string(n))
    end
  end
end

-- why a preamble's macro may not have this name, or nil
local function macro_clash(prefix)
  local up = prefix:upper() .. "_"
  return function(m)
    local clash = fields.c_clash(m)
    if clash then return "the name " .. clash .. "; choose another name" end
    if m:sub(1, #up) == up then
      return "names starting with '" .. up .. "' belong to the generated header; choose another name"
    end
  end
end

-- the context struct names abstract types outside the leaf's code
local function check_macro_types(lt, seen)
  for _, kind in ipairs({ "xa", "pa", "cache" }) do
    for _, it in ipairs(lt.by_kind[kind]) do
      local last = it.ctype and it.ctype:match("([%w_]+)$")
      if last and seen[last] then
        errors.raise(it.loc, "type '%s' of '%s' is a macro of a c_preamble, and a "
          .. "preamble's macros exist only in its leaf's code; declare the type with typedef",
          last, it.name)
      end
    end
  end
end

local function check_preambles(lt, o)
  local macros, directives, seen = {}, {}, {}
  for _, pre in ipairs(lt.preambles) do
    local info = c_code.check_preamble(pre.text, { what = "the c_preamble of leaf \""
      .. lt.name .. "\"", loc_of = c_code.loc_mapper(pre.loc), check_macro = macro_clash(o.prefix) },
      o.lex)
    local text = c_code.directive_text(info, pre.loc.line)
    if text then directives[#directives + 1] = { text = text, loc = pre.loc } end
    for _, m in ipairs(info.macros) do
      if not seen[m] then seen[m] = true; macros[#macros + 1] = m end
    end
  end
  if #macros > 0 then
    check_macro_types(lt, seen)
    lt.c_scope = { macros = macros, directives = directives }
  end
end

local function check_inits(lt, o)
  for _, kind in ipairs({ "xa", "pa", "cache" }) do
    for _, it in ipairs(lt.by_kind[kind]) do
      local text = it.init
      if type(text) == "string" then
        it.init_loc = fields.locate(o.sources, it.loc, text)
        if o.lex then
          c_code.check_statements(text, { what = "the init of '" .. it.name .. "'",
            loc_of = c_code.loc_mapper(it.init_loc) }, o.lex)
        end
      end
    end
  end
end

-- model: the checked model (check/init.lua); o: {prefix=, header_name=,
-- source_name=, sources=, lex=}
function M.check(model, o)
  check_names(model.leaf_types, o)
  for _, lt in ipairs(model.leaf_types) do
    if o.lex then
      check_preambles(lt, o)
      for _, calc in ipairs(leaf.all_calcs(lt)) do
        scope.check_body(lt, calc, calc.params, o.lex)
      end
    end
  end
  for _, lt in ipairs(model.leaf_types) do check_inits(lt, o) end
end

return M
