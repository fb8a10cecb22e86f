-- lib/blocks/time_table.lua: a source that plays a table of times and
-- values read from a CSV file when the spec is loaded (docs/library.md,
-- "Time table").  The file is data: numbers separated by commas, one row
-- a line, time first; an optional header line of names; blank lines and
-- lines starting with # are skipped.  Problems are reported at the CSV's
-- file:line.  The table becomes two numeric parameters, `times` and
-- `values` (row by row), so -p can replace them.
local M = {}

local MAX_ROWS, MAX_CELLS, MAX_BYTES = 4096, 65536, 16 * 1024 * 1024

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- the rows of numbers of a CSV text; raises at file:line
local function parse(text, file, raise, finite)
  local rows, lines, cols, header = {}, {}, nil, false
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    line = line:gsub("\r$", "")
    local body = trim(line)
    if body ~= "" and body:sub(1, 1) ~= "#" then
      local fields = {}
      for f in (body .. ","):gmatch("([^,]*),") do fields[#fields + 1] = trim(f) end
      local nums, bad = {}, nil
      for i, f in ipairs(fields) do
        local v = f:match("^[%+%-]?[%d%.]+[eE]?[%+%-]?%d*$") and tonumber(f) or nil
        if v == nil or not finite(v) then bad = bad or i end
        nums[i] = v
      end
      local here = { file = file, line = n }
      if bad and #rows == 0 and not header and not fields[1]:match("^[%+%-]?[%d%.]") then
        header = true -- a header of names
      elseif bad then
        raise(here, "blocks.time_table: field %d ('%s') is not a finite number", bad, fields[bad]:sub(1, 40))
      else
        if #nums < 2 then raise(here, "blocks.time_table: a row needs a time and at least one value, has %d field", #nums) end
        cols = cols or #nums
        if #nums ~= cols then
          raise(here, "blocks.time_table: this row has %d fields, the first row %d", #nums, cols)
        end
        if #rows > 0 and not (nums[1] > rows[#rows][1]) then
          raise(here, "blocks.time_table: the times must increase: %s is not after %s (line %d)",
            string.format("%.17g", nums[1]), string.format("%.17g", rows[#rows][1]), lines[#lines])
        end
        if #rows >= MAX_ROWS then raise(here, "blocks.time_table: more than %d rows; at most %d", MAX_ROWS, MAX_ROWS) end
        rows[#rows + 1], lines[#lines + 1] = nums, n
      end
    end
  end
  if #rows < 2 then raise({ file = file, line = n }, "blocks.time_table: the table needs at least 2 rows, has %d", #rows) end
  if #rows * cols > MAX_CELLS then
    raise({ file = file, line = n }, "blocks.time_table: %d rows of %d fields are %d numbers; at most %d",
      #rows, cols, #rows * cols, MAX_CELLS)
  end
  return rows, cols - 1
end

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, leaf, raise = K.ctors, K.settings, K.leaf, K.raise

  -- y(t) from the table: linear between rows or held from each row, the
  -- first row's values before it and the last row's after it.  A discrete
  -- state k counts the rows whose time has passed; an event at each row's
  -- time lands the simulator on it (on a jump, or a kink), as for a step.
  def("time_table", function(s, loc)
    s = settings(loc, "time_table", s, { file = true, method = true })
    if type(s.file) ~= "string" or s.file == "" then
      raise(loc, "blocks.time_table needs file, the CSV file's path (relative to the spec)")
    end
    local method = K.choice(loc, "time_table", "method", s.method, "linear", { "linear", "hold" })
    local path = s.file:sub(1, 1) == "/" and s.file or (loc.file:match("^(.*)/[^/]*$") or ".") .. "/" .. s.file
    local ok, host = pcall(require, "diagc_host")
    local text, why
    if ok and host.read_source then
      text, why = host.read_source(path, MAX_BYTES)
    else
      why = "this host cannot read files"
    end
    if not text then raise(loc, "blocks.time_table: cannot read '%s': %s", path, why or "cannot read it") end
    local rows, m = parse(text, path, raise, K.finite)
    local N = #rows
    local times, values = {}, {}
    for j, r in ipairs(rows) do
      times[j] = r[1]
      for i = 2, m + 1 do values[#values + 1] = r[i] end
    end
    local out
    if method == "hold" then
      out = string.format([[
for (int i = 0; i < %d; i++) y[i] = values[i];
for (int j = 1; j < %d; j++) {
  if (k[0] == j + 1.0) {
    for (int i = 0; i < %d; i++) y[i] = values[j * %d + i];
  }
}]], m, N, m, m)
    else
      out = string.format([[
double v = t < times[0] ? times[0] : t > times[%d] ? times[%d] : t;
for (int i = 0; i < %d; i++) y[i] = values[i];
for (int j = 0; j < %d; j++) {
  if ((j == 0 || v >= times[j]) && (j == %d || v < times[j + 1])) {
    double f = (v - times[j]) / (times[j + 1] - times[j]);
    for (int i = 0; i < %d; i++) y[i] = values[j * %d + i] + (values[(j + 1) * %d + i] - values[j * %d + i]) * f;
  }
}]], N - 1, N - 1, m, N - 1, N - 2, m, m, m, m)
    end
    return leaf(loc, method == "hold" and "TimeTableHold" or "TimeTable", {
      ctors.parameter { "times", default = times },
      ctors.parameter { "values", default = values },
      ctors.discrete_state { "k", default = { 0 } },
      ctors.initialization_discrete_update { "start", prerequisites = { "time", "times" }, writes = { "k" },
        calc = string.format("double c = 0.0;\nfor (int j = 0; j < %d; j++) { if (times[j] <= t) c = j + 1.0; }\nk_next[0] = c;", N) },
      ctors.next_update_time { "row", prerequisites = { "time", "k", "times" }, writes = { "k" },
        calc = string.format("for (int j = 0; j < %d; j++) { if (k[0] == j) t_next = times[j]; }", N),
        discrete_update = "k_next[0] = k[0] + 1.0;" },
      ctors.output_port { "y", size = m, prerequisites = method == "hold" and { "k", "values" } or { "time", "times", "values" },
        calc = out },
    })
  end)
end

return M
