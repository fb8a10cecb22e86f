-- cli/trim.lua: diagc trim SPEC.lua -- compile in-process with TinyCC (it
-- runs the spec's C, as `run` does), start from the operating point the
-- flags set (-p, --state, --input, --time), and find the point where the
-- chosen derivatives vanish and the chosen outputs hit their targets
-- (testing/trim.lua over the runtime's diagc_trim).  Prints the point as
-- --state / --input flags that `diagc linearize` and `diagc run` take, or
-- JSON with --json.
--   --free NAME[,NAME]     frees an input (or re-frees a state); states are free
--   --fix NAME[,NAME]      holds a state at its value
--   --target NAME=V[,V]    an output to hit, or a state to hold at V
--   --deriv NAME=V[,V]     the state's derivative takes V (default 0)
--   --free-deriv NAME[,..] leaves the state's derivative free
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local model = require("diagc.testing.model")
local assign = require("diagc.cli.assign")
local output = require("diagc.cli.output")
local json = require("diagc.cli.json")
local trim = require("diagc.testing.trim")

local M = {}

local CMD = "diagc trim"

local FLAGS = {
  ["-p"] = true, ["--state"] = true, ["--input"] = true, ["--time"] = true,
  ["--free"] = true, ["--fix"] = true, ["--target"] = true, ["--deriv"] = true, ["--free-deriv"] = true,
  ["--jacobian"] = true, ["--tolerance"] = true, ["--max-iterations"] = true, ["--json"] = false, ["-o"] = true,
}
local MULTI = {
  ["-p"] = true, ["--state"] = true, ["--input"] = true, ["--free"] = true, ["--fix"] = true,
  ["--target"] = true, ["--deriv"] = true, ["--free-deriv"] = true,
}

-- "a,b" -> {a, b}, each a name
local function names(opt, list)
  local out = {}
  for _, s in ipairs(list or {}) do
    for n in (s .. ","):gmatch("([^,]*),") do
      if n == "" then errors.raise(nil, "%s: %s '%s': an empty name; give NAME[,NAME...]", CMD, opt, cli.show(s)) end
      out[#out + 1] = n
    end
  end
  return out
end

local function assignments(opt, list)
  local out = {}
  for _, kv in ipairs(list or {}) do
    local name, vals = cli.assignment(CMD, opt, kv)
    out[#out + 1] = { name, vals }
  end
  return out
end

local function option(name) return model.option(trim.OPTIONS, name) end

local function num(x) return require("diagc.testing.ffi").number_text(x == 0 and 0 or x) end

-- the point as flags: --state NAME=V ... --input PORT=V,V
local function flags(r)
  local parts = {}
  for _, g in ipairs(r.groups) do
    local v = {}
    for i, x in ipairs(g.values) do v[i] = num(x) end
    parts[#parts + 1] = string.format("--%s %s=%s", g.kind, g.name, table.concat(v, ","))
  end
  return table.concat(parts, " ")
end

local function as_text(r, name)
  local out = {}
  out[#out + 1] = string.format("trim of %s: converged in %d iteration%s, max |residual| = %s (%s Jacobian)",
    name, r.iterations, r.iterations == 1 and "" or "s", string.format("%.3g", r.residual),
    r.jacobian == "fd" and "central-difference" or "generated")
  out[#out + 1] = string.format("  %d unknown%s: %s", #r.free, #r.free == 1 and "" or "s", table.concat(r.free, ", "))
  local eqs = {}
  for i, e in ipairs(r.equations) do eqs[i] = e .. " = " .. num(r.targets[i]) end
  out[#out + 1] = string.format("  %d equation%s: %s", #eqs, #eqs == 1 and "" or "s", table.concat(eqs, ", "))
  if #r.free ~= #eqs then
    out[#out + 1] = #eqs > #r.free and "  (more equations than unknowns: Gauss-Newton least squares; they all hold)"
      or "  (fewer equations than unknowns: minimum-norm steps from the starting point)"
  end
  local ys = {}
  for i, n in ipairs(r.outputs) do ys[i] = n .. " = " .. num(r.y[i]) end
  if #ys > 0 then out[#out + 1] = "  outputs: " .. table.concat(ys, ", ") end
  out[#out + 1] = flags(r)
  return table.concat(out, "\n") .. "\n"
end

local function as_json(r, name, t)
  local function vec(v)
    local a = json.array()
    for i, x in ipairs(v) do a[i] = x == 0 and 0 or x end
    return a
  end
  return json.encode({
    model = name, t = t, iterations = r.iterations, residual = r.residual, jacobian = r.jacobian,
    states = json.array(r.states), x = vec(r.x), inputs = json.array(r.inputs), u = vec(r.u),
    outputs = json.array(r.outputs), y = vec(r.y), free = json.array(r.free),
    equations = json.array(r.equations), targets = vec(r.targets), args = flags(r),
  })
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = FLAGS, multi = MULTI }, CMD)
  if #pos ~= 1 then errors.raise(nil, "%s: expected one spec file, as in: diagc trim spec.lua", CMD) end
  local opts = {
    free = names("--free", o["--free"]), fix = names("--fix", o["--fix"]),
    free_deriv = names("--free-deriv", o["--free-deriv"]),
    target = assignments("--target", o["--target"]), deriv = assignments("--deriv", o["--deriv"]),
  }
  if o["--jacobian"] then
    local j = o["--jacobian"]
    if j ~= "model" and j ~= "fd" then
      errors.raise(nil, "%s: --jacobian: unknown value '%s'%s", CMD, cli.show(j), cli.hint(j, { "model", "fd" }, "values"))
    end
    opts.jacobian = j
  end
  if o["--tolerance"] then opts.tolerance = cli.number(CMD, "--tolerance", o["--tolerance"], option("tolerance").range) end
  if o["--max-iterations"] then
    opts.max_iterations = cli.number(CMD, "--max-iterations", o["--max-iterations"], option("max_iterations").range)
  end
  local m = model.jit(pos[1])
  local ctx = m:context()
  assign.apply_options(m, ctx, o, CMD)
  local t = o["--time"] and cli.number(CMD, "--time", o["--time"], {}) or 0
  if o["--time"] then ctx:set("t", t) end
  local r, msg = trim.trim(m, ctx, opts)
  if not r then
    -- the option's name as the flag's (c:trim's "free_deriv: " is "--free-deriv: ")
    for _, k in ipairs({ "free_deriv", "free", "fix", "target", "deriv" }) do
      local n
      msg, n = msg:gsub("^" .. k .. "([: ])", "--" .. k:gsub("_", "-") .. "%1")
      if n > 0 then break end
    end
    errors.raise(nil, "%s: %s", CMD, msg)
  end
  local text = o["--json"] and as_json(r, m.prefix, t) or as_text(r, m.prefix)
  output.report(CMD, o["-o"], text, function() return require("diagc.cli.generate").inputs(m.gen) end)
  return 0
end

return M
