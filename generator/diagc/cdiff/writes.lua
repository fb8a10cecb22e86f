-- cdiff/writes.lua: static must-write analysis of an unrolled calc.
-- Takes the program of cdiff/unroll.lua; adds the findings a calc that
-- owns its outputs must not have:
--   {kind="never_written", out=, index=, line=1, col=1}: no path writes the element;
--   {kind="maybe_unwritten", out=, index=, line=, col=}: some path leaves it
--     unwritten (line/col: the if whose other branch writes it);
--   {kind="read_before_write", out=, index=, line=, col=}: the body reads the
--     element's stale value;
--   {kind="not_an_output", name=, line=, col=}: an assignment to a name that
--     is not an output of the calc nor a local.
-- Outputs preloaded with the current value (an update's x_next) may keep
-- it: they give no finding of the first three kinds.
-- Each finding also has message= (one sentence, no location).  Elements
-- are 0-based; line/col are relative to the body (line 1 col 1: the calc).
local M = {}

local function element(out, index, scalar)
  return scalar and ("'" .. out .. "'") or string.format("%s[%d]", out, index)
end

function M.check(prog)
  local vals, found = prog.vals, {}
  local preloaded = {}
  for _, x in ipairs(prog.iface.outputs) do
    preloaded[x.name] = x.preload ~= nil
    -- an output preloaded with the current value may keep it (an update)
    for i = 0, x.preload and -1 or (x.size or 1) - 1 do
      local old, final = prog.old[x.name][i], prog.final[x.name][i]
      local el = element(x.name, i, not x.size)
      if final == old then
        found[#found + 1] = { kind = "never_written", out = x.name, index = i, line = 1, col = 1,
          message = el .. " is never written" }
      else
        -- the first join (in program order) one of whose sides keeps the old value
        local memo, first = {}, nil
        local function keeps_old(id)
          if memo[id] ~= nil then return memo[id] end
          local v = vals[id]
          local r = false
          if id == old then r = true
          elseif v.op == "phi" then
            local a, b = keeps_old(v.args[1]), keeps_old(v.args[2])
            r = a or b
            if r and (not first or id < first) and (a ~= b) then first = id end
          end
          memo[id] = r
          return r
        end
        if keeps_old(final) then
          local at = vals[first or final]
          found[#found + 1] = { kind = "maybe_unwritten", out = x.name, index = i, line = at.line or 1,
            col = at.col or 1, message = el .. " may not be written: a path through this branch leaves it "
              .. "unassigned" }
        end
      end
    end
  end
  local sizes = {}
  for _, o in ipairs(prog.iface.outputs) do sizes[o.name] = o.size or false end
  for _, r in ipairs(prog.out_reads) do
    if not preloaded[r.name] then
      found[#found + 1] = { kind = "read_before_write", out = r.name, index = r.index, line = r.line,
        col = r.col, message = element(r.name, r.index, not sizes[r.name]) .. " is read before it is "
          .. "written (its value would be stale)" }
    end
  end
  for _, w in ipairs(prog.bad_writes) do
    found[#found + 1] = { kind = "not_an_output", name = w.name, line = w.line, col = w.col,
      message = "'" .. w.name .. "' is assigned, but it is " .. (w.known and "an input of this calc, not "
        .. "one of its outputs" or "neither an output of this calc nor a local variable") }
  end
  return found
end

return M
