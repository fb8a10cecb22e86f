-- cdiff: differentiable calc bodies (issue 16's foundation).
-- Takes a calc body's C text, its leaf's c_preamble and the calc's
-- interface (the names it reads and writes); adds, for calcs in the
-- differentiable subset (cdiff/parse.lua), the exact sparsity of their
-- Jacobian, C code computing it (forward mode), and the must-write
-- findings.  The stages, one per file:
--   parse.lua    tokens -> syntax tree (or the construct outside the subset)
--   preamble.lua c_preamble tokens -> helpers, constants, what is outside
--   unroll.lua   tree -> straight-line SSA code (loops unrolled, helpers
--                inlined, integers folded, indexes constant), with
--     fold.lua     its values: value numbering, C-exact constant folding
--     inline.lua   its calls: math functions, helpers inlined
--   activity.lua SSA -> which input elements each output element depends on
--   forward.lua  SSA + activity -> C for the outputs and the Jacobian nonzeros
--   writes.lua   SSA -> elements some path leaves unwritten, bad writes
--   iface.lua    a leaf's calc -> the interface analyze takes
--   mathfns.lua  the math functions and their derivatives
--
-- analyze{body=, preamble=, inputs=, outputs=, lex=} -> r | nil, problem
--   preamble: the leaf's c_preamble text, or the list of its preambles;
--   inputs/outputs: see cdiff/unroll.lua; lex: the host's C lexer
--   (require("diagc_host").lex_c).
--   r.prog (unrolled), r.activity, r.findings (cdiff/writes.lua),
--   r.pattern = {{out=, out_index=, input=, in_index=}, ...} (row by row:
--     outputs in interface order, then input elements in interface order),
--   r.jacobian([opts]) -> {code=, pattern=} (cdiff/forward.lua; same order;
--     opts.inputs = {[name] = true} keeps only those columns, opts.outputs =
--     false leaves the outputs unwritten, opts.jac names the array),
--   r.reads = the input names the body reads on some path (conditions
--     included; branches decided at compile time excluded), interface order.
--   problem: {line=, col=, construct=, message=, source="body"|"preamble"
--     [, preamble=k, helper=, call_line=, call_col=]}: line/col are relative
--     to the text named by source (the k-th preamble); a problem in a helper
--     also gives the body's call site.
-- describe(problem) -> one sentence naming the construct (no location);
local parse = require("diagc.cdiff.parse")
local preamble = require("diagc.cdiff.preamble")
local unroll = require("diagc.cdiff.unroll")
local activity = require("diagc.cdiff.activity")
local forward = require("diagc.cdiff.forward")
local writes = require("diagc.cdiff.writes")

local M = {}

local function lex_problem(err, source)
  local l, c, msg = tostring(err):match("^(%d+):(%d+): (.*)$")
  return { line = tonumber(l) or 1, col = tonumber(c) or 1, construct = "a lexical error",
    message = msg or tostring(err), source = source }
end

function M.parse_body(text, lex)
  local toks, err = lex(text)
  if not toks then return nil, lex_problem(err, "body") end
  local ast, p = parse.body(toks)
  if not ast then p.source = "body" end
  return ast, p
end

-- Never fails: what is outside the subset is recorded per name.
-- texts: one preamble's text, or the list of a leaf's preambles (nil: none).
function M.parse_preamble(texts, lex)
  if type(texts) ~= "table" then texts = { texts } end
  local pre = preamble.new()
  pre.lex_problems = {}
  for k, text in ipairs(texts) do
    local toks, err = lex(text)
    if toks then
      preamble.add(pre, toks, lex, k)
    else
      local p = lex_problem(err, "preamble")
      p.preamble = k
      pre.lex_problems[#pre.lex_problems + 1] = p
    end
  end
  return preamble.finish(pre)
end

-- One sentence for a problem, without its location (the caller prefixes
-- the spec file:line:col it maps problem.line/col to).
function M.describe(p)
  local s = p.message
  if p.construct and p.construct ~= p.message and not s:find(p.construct, 1, true) then
    s = s .. " (" .. p.construct .. ")"
  end
  if p.helper then
    s = s .. ", in the c_preamble's '" .. p.helper .. "'"
    if p.call_line then s = s .. " (called at " .. p.call_line .. ":" .. p.call_col .. " of the body)" end
  end
  return s .. "; this is outside the differentiable subset of C (see docs/jacobians.md)"
end

function M.analyze(spec)
  local ast, p = M.parse_body(spec.body, spec.lex)
  if not ast then return nil, p end
  local pre = M.parse_preamble(spec.preamble, spec.lex)
  local iface = { inputs = spec.inputs or {}, outputs = spec.outputs or {} }
  local prog
  prog, p = unroll.unroll(ast, iface, pre)
  if not prog then
    p.source = p.source or "body"
    return nil, p
  end
  local act = activity.analyze(prog)
  local pattern = {}
  for _, row in ipairs(act.rows) do
    for _, j in ipairs(row.deps) do
      local c = act.cols[j]
      pattern[#pattern + 1] = { out = row.out, out_index = row.index, input = c.name, in_index = c.index }
    end
  end
  local reads, seen = {}, {}
  for _, x in ipairs(iface.inputs) do
    for _, v in ipairs(prog.vals) do
      if v.op == "in" and v.name == x.name and not seen[x.name] then
        seen[x.name] = true
        reads[#reads + 1] = x.name
      end
    end
  end
  return {
    prog = prog, activity = act, findings = writes.check(prog), pattern = pattern, reads = reads,
    jacobian = function(opts) return forward.generate(prog, act, opts) end,
  }
end

return M
