-- check/c_code.lua: rules for the C text a spec contributes (calc bodies,
-- initializers, c_preambles), checked on the C lexer's tokens so every
-- violation is reported at its spec line:col.
--
--  * calc bodies and initializers are statements (an expression) of one
--    generated function: brackets balance, no preprocessor directive;
--  * a c_preamble may use #include of a C99 standard header (or diagc's
--    own), #define/#undef of its own macros and conditionals, nothing else
--    (no #pragma, #line, #error, #include of other files, ...);
--  * no code names a compiler extension or implementation-reserved name
--    (asm, typeof, _Pragma, __attribute__, ...), pastes tokens (##), or
--    uses trigraphs or a line splice inside a name: what diagc accepts is
--    the same C to tcc, gcc and clang.
local errors = require("diagc.errors")

local M = {}

-- C99's standard headers (7.1.2) and the runtime's public headers.
local HEADERS = {}
for h in ([[assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h
  limits.h locale.h math.h setjmp.h signal.h stdarg.h stdbool.h stddef.h stdint.h stdio.h
  stdlib.h string.h tgmath.h time.h wchar.h wctype.h
  diagc/model.h diagc/lcp.h diagc/version.h diagc/world.h]]):gmatch("%S+") do HEADERS[h] = true end
M.HEADERS = HEADERS

local ALLOWED_DIRECTIVES = { include = true, define = true, undef = true, ["if"] = true,
  ifdef = true, ifndef = true, elif = true, ["else"] = true, endif = true, [""] = true }

-- Words some compilers treat as keywords or predefined macros although
-- C99 leaves them to the program: code using them means different things
-- to tcc, gcc -std=c99 and clang.
local EXTENSION_WORDS = {}
for w in ("asm typeof unix linux i386 _Pragma"):gmatch("%S+") do EXTENSION_WORDS[w] = true end
M.EXTENSION_WORDS = EXTENSION_WORDS

-- Reserved names (C99 7.1.3) code may still use.
local RESERVED_OK = {}
for w in ([[_Bool _Complex _Imaginary __func__ __FILE__ __LINE__ __STDC__ __STDC_VERSION__
  __STDC_HOSTED__ __STDC_IEC_559__]]):gmatch("%S+") do RESERVED_OK[w] = true end

local function is_reserved(word)
  return (word:match("^__") or word:match("^_[A-Z]")) and not RESERVED_OK[word]
end
M.is_reserved = is_reserved

local OPEN = { ["{"] = "}", ["("] = ")", ["["] = "]", ["<%"] = "%>", ["<:"] = ":>" }
local CLOSE_OF = { ["}"] = "{", [")"] = "(", ["]"] = "[", ["%>"] = "{", [":>"] = "[" }
local CANON = { ["<%"] = "{", ["%>"] = "}", ["<:"] = "[", [":>"] = "]" }

-- ctx: {what = "the calc of output port 'y'", loc_of = fn(line, col) -> loc}
local function fail(ctx, line, col, fmt, ...)
  errors.raise(ctx.loc_of(line, col), "in %s: " .. fmt, ctx.what, ...)
end

-- Raw-text rules the lexer does not see: trigraphs (gcc -std=c99 replaces
-- them everywhere, tcc never) and splices that join the parts of a name.
local function check_raw(text, ctx)
  local function at(pos)
    local line, last = 1, 0
    for nl in text:sub(1, pos - 1):gmatch("()\n") do line, last = line + 1, nl end
    return line, pos - last
  end
  local pos = text:find("%?%?[=%(/%)'<!>%-]")
  if pos then
    local l, c = at(pos)
    fail(ctx, l, c, "'%s' is a trigraph, which C compilers disagree on; write the character "
      .. "it stands for (or separate the question marks)", text:sub(pos, pos + 2))
  end
  pos = text:find("[%z\1-\8\14-\31\127]")
  if pos then
    local l, c = at(pos)
    fail(ctx, l, c, "control character \\%03o in C code; remove it", text:byte(pos))
  end
  pos = text:find("\\[ \t\v\f]+\r?\n") or text:find("\\[ \t\v\f\r]*$")
  if pos then
    local l, c = at(pos)
    fail(ctx, l, c, "a backslash at the end of a line %s; remove it (a line splice is a "
      .. "backslash directly before the newline)", text:find("\\[ \t\v\f\r]*$") == pos
      and "ends the code and would join the next generated line" or "followed by blanks")
  end
  pos = text:find("[%w_]\\\r?\n[%w_]")
  if pos then
    local l, c = at(pos + 1)
    fail(ctx, l, c, "a line splice (backslash-newline) inside a name; write the name on one line")
  end
end

-- Identifier rules shared by all code.
local function check_ident(tk, ctx, line, col)
  local w = tk.text
  if EXTENSION_WORDS[w] then
    fail(ctx, line, col, "'%s' is a compiler extension or predefined macro, not C99; rename it "
      .. "(or, for _Pragma and asm, remove it)", w)
  end
  if is_reserved(w) then
    fail(ctx, line, col, "'%s' is reserved for the C implementation (names starting with __ or "
      .. "_ and a capital letter); use a C99 construct or another name", w)
  end
end

local function check_tokens(toks, ctx, allow_pp, on_pp)
  local stack = {}
  for _, tk in ipairs(toks) do
    if tk.kind == "pp" then
      if not allow_pp then
        fail(ctx, tk.line, tk.col, "preprocessor directive '%s'; %s", (tk.text:gsub("%s+", " ")):sub(1, 40),
          "code here is statements of one C function: put #include and #define in a c_preamble")
      end
      on_pp(tk)
    elseif tk.kind == "ident" then
      check_ident(tk, ctx, tk.line, tk.col)
    elseif tk.kind == "punct" then
      local t = tk.text
      if t == "#" or t == "##" or t == "%:" or t == "%:%:" then
        fail(ctx, tk.line, tk.col, "stray '%s': '#' only starts a directive (in a c_preamble) "
          .. "and token pasting is not supported", t)
      elseif OPEN[t] then
        stack[#stack + 1] = { text = CANON[t] or t, line = tk.line, col = tk.col }
      elseif CLOSE_OF[t] then
        local top = stack[#stack]
        if not top or top.text ~= CLOSE_OF[t] then
          fail(ctx, tk.line, tk.col, "unbalanced '%s'%s; brackets must pair up within the code",
            CANON[t] or t, top and string.format(" (the '%s' at %d:%d is still open)", top.text,
              top.line, top.col) or " closes nothing opened here")
        end
        stack[#stack] = nil
      end
    end
  end
  if #stack > 0 then
    local top = stack[#stack]
    fail(ctx, top.line, top.col, "unbalanced '%s': it is never closed; brackets must pair up "
      .. "within the code", top.text)
  end
end

local function lex_or_fail(text, ctx, lex)
  local toks, err = lex(text)
  if not toks then
    local l, c, msg = tostring(err):match("^(%d+):(%d+): (.*)$")
    errors.raise(l and ctx.loc_of(tonumber(l), tonumber(c)) or ctx.loc_of(1, 1), "in %s: %s",
      ctx.what, msg or tostring(err))
  end
  return toks
end

-- loc_of for text that starts at spec location `bl` ({file, line, col})
function M.loc_mapper(bl)
  return function(line, col)
    return { file = bl.file, line = bl.line + line - 1, col = line == 1 and (bl.col + col - 1) or col }
  end
end

-- A calc body or initializer: returns its tokens.
function M.check_statements(text, ctx, lex)
  check_raw(text, ctx)
  local toks = lex_or_fail(text, ctx, lex)
  check_tokens(toks, ctx, false)
  return toks
end

-- A c_preamble: returns {macros = {name, ...}, directives = {tok, ...}}.
-- A directive is read through its name and args (the host lexer's
-- c_directive_split: comments and splices already mean what they mean to
-- the compiler), so every spelling of a directive meets the same rule.
function M.check_preamble(text, ctx, lex)
  check_raw(text, ctx)
  local toks = lex_or_fail(text, ctx, lex)
  local macros, defined, directives, cond = {}, {}, {}, {}
  local function on_pp(tk)
    local name, args = tk.name, tk.args
    local l, c = tk.line, tk.col
    if tk.text:sub(1, 2) == "%:" then
      fail(ctx, l, c, "the digraph '%%:' for '#' is not read by TinyCC (diagc's in-process "
        .. "compiler); write '#'")
    end
    if name == "" and args ~= "" then
      fail(ctx, l, c, "'# %s' is not a directive (a '#' must be followed by a directive name); "
        .. "a c_preamble may use #include, #define, #undef and #if/#ifdef/#ifndef/#elif/#else/#endif",
        args:sub(1, 40))
    end
    if not ALLOWED_DIRECTIVES[name] then
      fail(ctx, l, c, "directive '#%s' is not allowed in a c_preamble; use #include of a C99 "
        .. "standard header, #define, #undef and #if/#ifdef/#ifndef/#elif/#else/#endif", name)
    end
    directives[#directives + 1] = tk
    -- the directive's own tokens follow the same identifier rules
    local sub, err = lex(args)
    if not sub then
      fail(ctx, l, c, "in '#%s': %s", name, (tostring(err):gsub("^%d+:%d+: ", "")))
    end
    for _, st in ipairs(sub) do
      if st.kind == "ident" then check_ident(st, ctx, l, c) end
      if st.kind == "punct" and (st.text == "##" or st.text == "%:%:") then
        fail(ctx, l, c, "token pasting ('##') is not supported in a c_preamble; write the "
          .. "names out")
      end
    end
    if name == "include" then
      local h = args:match("^<([^>]*)>$")
      local quoted = args:match('^"([^"]*)"$')
      if quoted and HEADERS[quoted] then
        fail(ctx, l, c, "#include %s: write #include <%s> (a quoted #include searches the "
          .. "including file's directory first, so it could read another file)", args, quoted)
      elseif not h or not HEADERS[h] then
        fail(ctx, l, c, "#include %s is not a C99 standard header; a c_preamble may include only "
          .. "<math.h>, <stdint.h>, ... (the C99 standard headers) and <diagc/model.h>", args)
      end
    elseif name == "define" or name == "undef" then
      local m = args:match("^([%a_][%w_]*)")
      if not m then fail(ctx, l, c, "#%s needs a macro name", name) end
      if name == "define" then
        local why = ctx.check_macro and ctx.check_macro(m)
        if why then fail(ctx, l, c, "#define %s: %s", m, why) end
        if not defined[m] then macros[#macros + 1] = m end
        defined[m] = true
      elseif not defined[m] then
        fail(ctx, l, c, "#undef %s: a c_preamble may undefine only macros it defines itself", m)
      end
    elseif name == "if" or name == "ifdef" or name == "ifndef" then
      cond[#cond + 1] = tk
    elseif name == "elif" or name == "else" or name == "endif" then
      if #cond == 0 then fail(ctx, l, c, "#%s without #if in this c_preamble", name) end
      if name == "endif" then cond[#cond] = nil end
    end
  end
  check_tokens(toks, ctx, true, on_pp)
  if #cond > 0 then
    local tk = cond[#cond]
    fail(ctx, tk.line, tk.col, "conditional directive without #endif; close it within the same c_preamble")
  end
  return { macros = macros, directives = directives }
end

-- The directive lines of a checked preamble at their original lines and
-- columns (every other line blank), for re-emitting its macros where its
-- leaf's code is generated; nil when the preamble defines no macro.  With
-- first_line (the spec line of the preamble's first line), a run of blank
-- lines becomes one `#line` naming the next directive's line: a long
-- preamble with few directives (a world's) costs a few lines per calc,
-- not one per line of the preamble.
function M.directive_text(info, first_line)
  if #info.macros == 0 then return nil end
  local lines = {}
  for _, tk in ipairs(info.directives) do
    local n = tk.line
    local first = true
    for part in (tk.text:gsub("\r", "") .. "\n"):gmatch("(.-)\n") do
      lines[n] = first and (string.rep(" ", tk.col - 1) .. part) or part
      first, n = false, n + 1
    end
  end
  local last = 0
  for n in pairs(lines) do if n > last then last = n end end
  local out, gap = {}, 0
  for i = 1, last do
    if lines[i] == nil and first_line then
      gap = gap + 1
    else
      if gap > 1 then out[#out + 1] = string.format("#line %d", first_line + i - 1)
      elseif gap == 1 then out[#out + 1] = "" end
      gap = 0
      out[#out + 1] = lines[i] or ""
    end
  end
  return table.concat(out, "\n")
end

return M
