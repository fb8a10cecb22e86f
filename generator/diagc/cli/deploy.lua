-- cli/deploy.lua: diagc deploy SPEC.lua -o app.c [--run [--duration S] [--threads N] [--cc CC]]
--
-- Splits the spec's root diagram at its direct subsystems: each becomes one
-- model (generated C, its own context, one mutually exclusive callback
-- group of the executor); the root's wiring becomes topics:
--   connect { "a.y", "b.u" }          topic "a.y": a publishes its output y
--                                      after each of its periodic events,
--                                      b subscribes its input u
--   export_input { "b.u", as = "n" }  topic "n": b subscribes u (fed from
--                                      outside the process's models)
--   export_output { "a.y", as = "n" } topic "n": a also publishes y there
--   fix_input { "b.u", value = v }    b's input is fixed to v
-- Writes, beside app.c, one NAME.c/NAME.h per subsystem (named after it)
-- and app.c: the binding tables and a main() calling diagc_deploy_main()
-- (runtime/include/diagc/deploy.h).  --run compiles them with the runtime
-- library and runs the app (default 2 s), which prints latency figures.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local compile = require("diagc.compile")
local dsl = require("diagc.spec.dsl")
local util = require("diagc.util")
local output = require("diagc.cli.output")
local bounds = require("diagc.cli.bounds")
local template = require("diagc.coder.template")

local M = {}

local FLAGS = {
  ["-o"] = true, ["--run"] = false, ["--duration"] = true, ["--threads"] = true,
  ["--cc"] = true, ["--no-check"] = false,
}

local CMD = "diagc deploy"

local shq = util.shell_quote

local cstr = util.c_string

local function exit_code(a, b, c)
  if type(a) == "number" then return a >= 256 and math.floor(a / 256) or a end
  if a == true then return 0 end
  if b == "exit" then return c end
  return 1
end

-- The deployment plan: { models = {{name, prefix, spec_items, inputs = {{port, topic}}, outputs = ...}} }
local function plan(loaded, checked)
  local root = checked.root
  if root.kind ~= "diagram" or #root.systems == 0 then
    errors.raise(root.loc, "diagc deploy: the root diagram must contain the systems to deploy")
  end
  local raw = {}
  for _, it in ipairs(loaded.root.items) do
    if it._item == "system" then raw[it.args[1]] = it end
  end
  local models, by_name = {}, {}
  local prefixes = {}
  for _, s in ipairs(root.systems) do
    local prefix = compile.prefix_of(s.name)
    if prefix == "app" or prefixes[prefix] then
      errors.raise(s.loc, "diagc deploy: subsystem '%s' would be written to %s.c, which is taken; rename it",
        s.name, prefix)
    end
    prefixes[prefix] = true
    local m = { name = s.name, prefix = prefix, sys = s, raw = raw[s.name], inputs = {}, outputs = {},
      fixed = {}, seen_out = {} }
    models[#models + 1] = m
    by_name[s.name] = m
  end
  local function add_output(m, port, topic)
    local key = port .. "\0" .. topic
    if not m.seen_out[key] then
      m.seen_out[key] = true
      m.outputs[#m.outputs + 1] = { port = port, topic = topic }
    end
  end
  for _, c in ipairs(root.connections) do
    local topic = c.from.sys.name .. "." .. (c.from.port.label or c.from.port.name)
    add_output(by_name[c.from.sys.name], c.from.port.name, topic)
    local dst = by_name[c.to.sys.name]
    dst.inputs[#dst.inputs + 1] = { port = c.to.port.name, topic = topic }
  end
  for _, p in ipairs(root.inputs) do
    for _, t in ipairs(p.targets) do
      local dst = by_name[t.sys.name]
      dst.inputs[#dst.inputs + 1] = { port = t.port.name, topic = p.name }
    end
  end
  for _, p in ipairs(root.outputs) do
    add_output(by_name[p.source.sys.name], p.source.port.name, p.name)
  end
  for _, f in ipairs(root.fixed) do
    by_name[f.target.sys.name].fixed[f.target.port.name] = f.value
  end
  return models
end

-- Each model needs a periodic event (its timer: docs/executor.md) with a
-- period of at least 1 ns (the executor's clock); with --run, the run of
-- `duration` seconds must stay within the limits of cli/bounds.lua.
local function check_events(models, duration)
  for _, m in ipairs(models) do
    local evs = bounds.from_type(m.sys.type, m.name)
    if #evs == 0 then
      errors.raise(m.sys.loc, "subsystem '%s' has no periodic event, so nothing would ever "
        .. "advance it when deployed; declare one, e.g. periodic_publish { \"tick\", period = 0.01, "
        .. "calc = [[ ]] } in one of its leaves", m.name)
    end
    for _, e in ipairs(evs) do
      if e.period < 1e-9 then
        errors.raise(e.loc, "periodic event '%s' has period %g s, below the executor's 1 ns "
          .. "resolution; give it a longer period", e.name, e.period)
      end
    end
    if duration then
      local why = bounds.check(0, duration, { events = evs, end_name = "--duration" })
      if why then errors.raise(m.sys.loc, "subsystem '%s': %s", m.name, why) end
    end
  end
end

-- A diagram holding one subsystem with every port exported under its own
-- name (fixed inputs stay fixed).
local function wrapper(m)
  local env = dsl.environment(function() errors.raise(nil, "import is not available here") end)
  local items = { env.system(m.raw.args) }
  local ports = require("diagc.check.diagram").ports
  for _, p in ipairs(ports(m.sys.type, "input")) do
    local ref = m.name .. "." .. p.name
    if m.fixed[p.name] then
      items[#items + 1] = env.fix_input { ref, value = m.fixed[p.name] }
    else
      items[#items + 1] = env.export_input { ref, as = p.name }
    end
  end
  for _, p in ipairs(ports(m.sys.type, "output")) do
    -- a logged state's port is the log's, not the subsystem's; a world's
    -- port by name goes by its label (check/added_port.lua)
    if not p.from_state then
      items[#items + 1] = env.export_output { m.name .. "." .. (p.label or p.name), as = p.name }
    end
  end
  return env.diagram(m.name)(items)
end

-- app.c (templates/deploy_app.c.in)
local function app_source(spec_path, models)
  local sources, includes, ports, rows = {}, {}, {}, {}
  for _, m in ipairs(models) do
    sources[#sources + 1] = " " .. m.prefix .. ".c"
    includes[#includes + 1] = string.format("#include \"%s.h\"", m.prefix)
    for _, kind in ipairs({ "inputs", "outputs" }) do
      if #m[kind] > 0 then
        ports[#ports + 1] = string.format("static const diagc_deploy_port %s_%s[%d] = {", m.prefix, kind, #m[kind])
        for _, p in ipairs(m[kind]) do ports[#ports + 1] = string.format("  {%s, %s},", cstr(p.port), cstr(p.topic)) end
        ports[#ports + 1] = "};"
      end
    end
    rows[#rows + 1] = string.format("  {%s, &%s_model, %d, %s, %d, %s},", cstr(m.name), m.prefix,
      #m.inputs, #m.inputs > 0 and (m.prefix .. "_inputs") or "NULL",
      #m.outputs, #m.outputs > 0 and (m.prefix .. "_outputs") or "NULL")
  end
  return template.to_string("deploy_app.c.in", {
    version = compile.VERSION, spec = util.c_comment(spec_path), model_sources = table.concat(sources),
    model_includes = includes, port_tables = ports, n_models = #models, model_rows = rows,
  })
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = FLAGS }, CMD)
  if #pos ~= 1 then
    errors.raise(nil, "diagc deploy: expected one spec file, as in: diagc deploy spec.lua -o app.c [--run]")
  end
  local outc = o["-o"]
  if not outc and not o["--run"] then
    errors.raise(nil, "diagc deploy: missing -o APP.c (or --run to build and run in a temporary directory)")
  end
  if outc and not outc:match("%.c$") then errors.raise(nil, "diagc deploy: -o must name a .c file, got '%s'", outc) end
  local duration = o["--duration"] and cli.number(CMD, "--duration", o["--duration"], { min = 0, min_open = true, max = 1e6 }) or 2
  local threads = o["--threads"] and cli.number(CMD, "--threads", o["--threads"], { min = 0, max = 256, integer = true }) or 2
  if (o["--duration"] or o["--threads"] or o["--cc"]) and not o["--run"] then
    errors.raise(nil, "diagc deploy: --duration, --threads and --cc apply to --run")
  end
  if o["--cc"] and (o["--cc"] == "" or o["--cc"]:find("[%c]")) then
    errors.raise(nil, "diagc deploy: invalid --cc '%s': expected a compiler command such as cc or clang", cli.show(o["--cc"]))
  end

  local loaded = require("diagc.spec.load").load(pos[1])
  local checked = require("diagc.check").check(loaded)
  local models = plan(loaded, checked)
  check_events(models, o["--run"] and duration or nil)
  local inputs = util.sorted_keys(loaded.sources)
  if outc then output.check_target(CMD, outc, inputs) end

  local gens = {}
  for _, m in ipairs(models) do
    local wl = { root = wrapper(m), sources = loaded.sources, main = loaded.main }
    local gen = compile.compile_loaded(wl, {
      prefix = m.prefix, header_name = m.prefix .. ".h", source_name = m.prefix .. ".c",
    })
    if not o["--no-check"] and pcall(require, "diagc_host") then
      require("diagc.jit").compile(gen, { allow_undefined = true })
    end
    gens[#gens + 1] = gen
  end

  local tmpdir
  if not outc then
    local p = io.popen("mktemp -d \"${TMPDIR:-/tmp}/diagc-deploy.XXXXXX\"")
    tmpdir = p and p:read("*l")
    if p then p:close() end
    if not tmpdir or tmpdir == "" then errors.raise(nil, "diagc deploy: cannot create a temporary directory") end
    outc = tmpdir .. "/app.c"
  end
  local dir = util.dirname(outc)
  local files, writes = {}, {}
  for i, m in ipairs(models) do
    writes[#writes + 1] = { dir .. "/" .. m.prefix .. ".h", gens[i].header }
    writes[#writes + 1] = { dir .. "/" .. m.prefix .. ".c", gens[i].source }
    files[#files + 1] = dir .. "/" .. m.prefix .. ".c"
  end
  writes[#writes + 1] = { outc, app_source(loaded.main, models) }
  -- every file or none
  local ok, e = pcall(output.write_files, CMD, writes, inputs)
  if not ok then
    if tmpdir then os.execute("rm -rf " .. shq(tmpdir)) end
    error(e, 0)
  end
  if not o["--run"] then return 0 end
  -- building and running the app runs the user's C: the generation
  -- --timeout (driver.lua) ends here
  require("diagc_host").set_timeout(0)

  local host = require("diagc_host")
  local lib = host.lib_dir() .. "/libdiagc.a"
  if not io.open(lib, "rb") then errors.raise(nil, "diagc deploy: %s is missing; run make (or make install)", lib) end
  local cc = o["--cc"] or os.getenv("CC") or "cc"
  local exe = dir .. "/app"
  local cmd = { cc, "-std=c11 -O2", "-I" .. shq(host.include_dir()), "-I" .. shq(dir), shq(outc) }
  for _, f in ipairs(files) do cmd[#cmd + 1] = shq(f) end
  cmd[#cmd + 1] = shq(lib) .. " -lm -lpthread -o " .. shq(exe)
  io.stdout:flush()
  local rc = exit_code(os.execute(table.concat(cmd, " ")))
  if rc ~= 0 then errors.raise(nil, "diagc deploy: compiling the app failed (%s)", cc) end
  io.stdout:flush()
  rc = exit_code(os.execute(string.format("%s --duration %s --threads %d", shq(exe), tostring(duration), threads)))
  if tmpdir then os.execute("rm -rf " .. shq(tmpdir)) end
  return rc
end

return M
