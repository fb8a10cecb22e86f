-- testing/model.lua: a JIT-compiled model driven from Lua.
--   local m = diagc.jit("examples/pendulum.lua")
--   local ctx = m:context()
--   ctx:set("pend.theta", 0.3); ctx:get("pend.angle"); ctx:eval("pend.energy")
-- Everything goes through the model's descriptor (diagc_model), exactly as
-- the runtime does.
local ffi = require("ffi")
local errors = require("diagc.errors")
local compile = require("diagc.compile")
local jit = require("diagc.jit")
local dffi = require("diagc.testing.ffi")
local optcheck = require("diagc.cli.optcheck")
-- misuse is raised at the test file's line (testing/usage.lua)
local raise = require("diagc.testing.usage").raise

local M = {}

local Model, Context, Sim = {}, {}, {}
Model.__index, Context.__index, Sim.__index = Model, Context, Sim

local dptr = ffi.typeof("double *")
local cdptr = ffi.typeof("const double *[1]")

local function include_dir()
  return require("diagc_host").include_dir()
end

-- spec: a path, or a diagram value built in the test file (then `loaded`
-- needs the calling file's sources to locate calc bodies).
-- the options of diagc.jit (cli/optcheck.lua)
M.JIT_OPTIONS = { { "prefix", type = "string" }, { "defines", type = "table" } }

function M.jit(spec, opts)
  local why = optcheck.options("diagc.jit", opts, M.JIT_OPTIONS)
  if why then raise(why) end
  if type(spec) ~= "string" and type(spec) ~= "table" then
    raise("diagc.jit expects a spec file's path or a diagram built with diagc.dsl, got " .. optcheck.show(spec))
  end
  opts = opts or {}
  dffi.load(include_dir())
  local gen
  if type(spec) == "string" then
    gen = compile.compile(spec, { prefix = opts.prefix })
  else
    local info = debug.getinfo(2, "S")
    local file = info.source:sub(1, 1) == "@" and info.source:sub(2) or "?"
    local sources = {}
    local f = io.open(file, "rb")
    if f then sources[file] = f:read("*a"); f:close() end
    gen = compile.compile_loaded({ root = spec, sources = sources, main = file }, { prefix = opts.prefix })
  end
  return M.from_generated(gen, opts)
end

-- A model from generated C (compile.compile_loaded's result), compiled
-- in-process (opts.defines as diagc.jit's)
function M.from_generated(gen, opts)
  opts = opts or {}
  dffi.load(include_dir())
  local c = jit.compile(gen, { defines = opts.defines })
  local sym = c.symbol(gen.prefix .. "_model")
  if sym == nil then errors.raise(nil, "generated model has no descriptor symbol") end
  local m = setmetatable({ gen = gen, compiled = c, prefix = gen.prefix,
    desc = ffi.cast("const diagc_model *", sym) }, Model)
  m:_index()
  return m
end

function Model:_index()
  local d = self.desc
  self.sources, self.outputs, self.cache, self.elements = {}, {}, {}, {}
  self.source_index, self.output_index = {}, {}
  for i = 0, d.n_sources - 1 do
    local s = d.sources[i]
    self.sources[ffi.string(s.name)] = s
    self.source_index[ffi.string(s.name)] = i
  end
  for i = 0, d.n_outputs - 1 do
    local o = d.outputs[i]
    self.outputs[ffi.string(o.name)] = o
    self.output_index[ffi.string(o.name)] = i
  end
  for i = 0, d.n_cache - 1 do
    self.cache[ffi.string(d.cache[i].name)] = { desc = d.cache[i], index = i }
  end
  -- element names: xc elements ("pend.theta") and xd elements
  for i = 0, d.nxc - 1 do
    self.elements[ffi.string(d.xc_names[i])] = tonumber(d.xc_offset) + 8 * i
  end
  for i = 0, d.nxd - 1 do
    self.elements[ffi.string(d.xd_names[i])] = tonumber(d.xd_offset) + 8 * i
  end
  -- named runs of a discrete group's elements (a world's joints,
  -- world/signals.lua): "world.elbow" -> {source=, first=, size=}
  -- (and of a numeric parameter's: "world.elbow.damping", kind "param")
  self.groups = {}
  for _, ctx in ipairs(self.gen and self.gen.flat.leaves or {}) do
    for _, kl in ipairs({ { "state", ctx.type.by_kind.xd }, { "param", ctx.type.by_kind.pn } }) do
      local kind = kl[1]
      for _, g in ipairs(kl[2]) do
        for _, r in ipairs(g.groups or {}) do
          local name = ctx.path .. "." .. r.name
          if not self.sources[name] and not self.elements[name] then
            self.groups[name] = { source = ctx.path .. "." .. g.name, first = r.first, size = r.size, kind = kind,
              item = g }
          end
        end
      end
    end
  end
end

function Model:symbol(name)
  return self.compiled.symbol(name)
end

function Model:context()
  local d = self.desc
  local n = math.ceil(tonumber(d.context_size) / 8)
  local buf = ffi.new("double[?]", n)
  local ctx = setmetatable({ model = self, buf = buf, ptr = ffi.cast("void *", buf) }, Context)
  d.init(ctx.ptr)
  return ctx
end

-- Wrap an existing context pointer (e.g. the simulator's).
function Model:wrap(ptr, keep)
  return setmetatable({ model = self, ptr = ffi.cast("void *", ptr), keep = keep }, Context)
end

local function read_doubles(ptr, off, n)
  local p = ffi.cast(dptr, ffi.cast("char *", ptr) + off)
  if n == 1 then return p[0] end
  local t = {}
  for i = 1, n do t[i] = p[i - 1] end
  return t
end

local function to_doubles(v, n, what)
  if type(v) == "number" then v = { v } end
  if type(v) ~= "table" or #v ~= n then
    raise(string.format("%s expects %d value%s", what, n, n == 1 and "" or "s"))
  end
  local a = ffi.new("double[?]", n)
  for i = 1, n do
    if type(v[i]) ~= "number" then
      raise(string.format("%s: value %d is %s, not a number", what, i, optcheck.show(v[i])))
    end
    a[i - 1] = v[i]
  end
  return a
end

-- set a source (group) or a single state element by name
function Context:set(name, value)
  local m = self.model
  if name == "t" or name == "time" then
    m.desc.set_time(self.ptr, type(value) == "table" and value[1] or value)
    return
  end
  local s = m.sources[name]
  if s then
    if s.size == 0 then
      raise("'" .. name .. "' is abstract; use ctx:set_abstract(name, pointer)")
    end
    m.desc.set_source(self.ptr, m.source_index[name], to_doubles(value, s.size, name))
    return
  end
  local grp = m.groups[name]
  if grp then
    local src = m.sources[grp.source]
    local cur = read_doubles(self.ptr, tonumber(src.offset), src.size)
    if type(cur) == "number" then cur = { cur } end
    local vals = type(value) == "table" and value or { value }
    if #vals ~= grp.size then raise(string.format("%s expects %d value%s", name, grp.size, grp.size == 1 and "" or "s")) end
    for i = 1, grp.size do cur[grp.first + i] = vals[i] end
    m.desc.set_source(self.ptr, m.source_index[grp.source], to_doubles(cur, src.size, grp.source))
    return
  end
  local off = m.elements[name]
  if off then
    -- the leaf's group that holds this element
    for sname, src in pairs(m.sources) do
      local so = tonumber(src.offset)
      if src.size > 0 and off >= so and off < so + 8 * src.size
          and (src.kind >= dffi.const.DIAGC_SRC_Q and src.kind <= dffi.const.DIAGC_SRC_XD) then
        local cur = read_doubles(self.ptr, so, src.size)
        if type(cur) == "number" then cur = { cur } end
        cur[(off - so) / 8 + 1] = value
        m.desc.set_source(self.ptr, m.source_index[sname], to_doubles(cur, src.size, sname))
        return
      end
    end
  end
  raise("no settable source named '" .. tostring(name) .. "'")
end

-- Checked setters (as diagc run's -p, --state and --input): the name must
-- be a numeric parameter / a state group or element / an input, the
-- values finite and as many as it has.
function Context:set_param(name, value) self:_set_checked("param", name, value) end
function Context:set_state(name, value) self:_set_checked("state", name, value) end
function Context:set_input(name, value) self:_set_checked("input", name, value) end
-- Errors are raised at the caller's line, as every other context method's.
function Context:_set_checked(kind, name, value)
  if type(value) == "number" then value = { value } end
  if type(value) ~= "table" then raise("set_" .. kind .. " expects a number or a list of numbers") end
  -- assign.set's errors (shared with diagc run's -p) name no place: raise
  -- them at the test's line too, also for a test that catches them
  local ok, e = pcall(require("diagc.cli.assign").set, self.model, self, kind, name, value, nil)
  if not ok then raise(errors.is(e) and errors.format(e) or tostring(e)) end
end

-- set an abstract source from a cdata value of its C type
function Context:set_abstract(name, cdata_ptr)
  local m = self.model
  if not m.sources[name] then raise("no source named '" .. tostring(name) .. "'") end
  m.desc.set_source(self.ptr, m.source_index[name], cdata_ptr)
end

-- evaluate an output port or a vector cache entry; returns number or table
function Context:try_eval(name)
  local m = self.model
  local o = m.outputs[name]
  local c = m.cache[name]
  local out, rc, size = cdptr(), nil, nil
  if o then rc, size = m.desc.eval_output(self.ptr, m.output_index[name], out), o.size
  elseif c then rc, size = m.desc.eval_cache(self.ptr, c.index, out), c.desc.size
  else raise("no output port or cache entry named '" .. tostring(name) .. "'") end
  if rc ~= 0 then return rc end
  if out[0] == nil or size == 0 then return 0, nil end
  local v = ffi.cast(dptr, out[0])
  if size == 1 then return 0, v[0] end
  local t = {}
  for i = 1, size do t[i] = v[i - 1] end
  return 0, t
end

function Context:eval(name)
  local rc, v = self:try_eval(name)
  if rc ~= 0 then
    raise(string.format("eval of '%s' failed with status %d (%s)", name, rc,
      ffi.string(ffi.C.diagc_status_message(rc))))
  end
  return v
end

-- get: a source, a state element, the time, or (by eval) an output/cache entry
function Context:get(name)
  local m = self.model
  if name == "t" or name == "time" then return read_doubles(self.ptr, tonumber(m.desc.time_offset), 1) end
  local s = m.sources[name]
  if s and s.size > 0 then return read_doubles(self.ptr, tonumber(s.offset), s.size) end
  local grp = m.groups[name]
  if grp then
    return read_doubles(self.ptr, tonumber(m.sources[grp.source].offset) + 8 * grp.first, grp.size)
  end
  local off = m.elements[name]
  if off then return read_doubles(self.ptr, off, 1) end
  if m.outputs[name] or m.cache[name] then
    local rc, v = self:try_eval(name)
    if rc ~= 0 then raise(string.format("eval of '%s' failed with status %d", name, rc)) end
    return v
  end
  raise("nothing named '" .. tostring(name) .. "' in model " .. m.prefix)
end

function Context:time() return self:get("t") end
function Context:set_time(t) self.model.desc.set_time(self.ptr, t) end

function Context:derivatives()
  local out = cdptr()
  local rc = self.model.desc.calc_derivatives(self.ptr, out)
  if rc ~= 0 then raise("calc_derivatives failed with status " .. rc) end
  local n = self.model.desc.nxc
  local t = {}
  for i = 1, n do t[i] = out[0][i - 1] end
  return t
end

-- d xcdot / d xc at the context, dense, from the model's generated
-- Jacobian (docs/jacobians.md): J[i][j] = d xcdot[i] / d xc[j], 1-based.
-- A model without one raises the reason, at the calc's spec line.
function Context:state_jacobian()
  local d = self.model.desc
  if d.jac_xc == nil then
    local why = self.model.gen.jac_xc_missing or { message = "the model has no d xcdot / d xc" }
    local loc = why.loc and string.format("%s:%d:%d: ", why.loc.file, why.loc.line, why.loc.col or 1) or ""
    raise(loc .. why.message)
  end
  local n, nnz = d.nxc, d.jac_xc_nnz
  local nz = ffi.new("double[?]", nnz > 0 and nnz or 1)
  local rc = d.jac_xc(self.ptr, nz)
  if rc ~= 0 then raise("jac_xc failed with status " .. rc .. " (" .. ffi.string(ffi.C.diagc_status_message(rc)) .. ")") end
  local J = {}
  for i = 1, n do
    J[i] = {}
    for j = 1, n do J[i][j] = 0 end
  end
  for col = 0, n - 1 do
    for k = d.jac_xc_colptr[col], d.jac_xc_colptr[col + 1] - 1 do
      J[d.jac_xc_rowind[k] + 1][col + 1] = nz[k]
    end
  end
  return J
end

-- A, B, C, D (and f0, y0, x0, u0, element names) at this context, as
-- Drake's Linearize / FirstOrderTaylorApproximation: testing/linear.lua
-- (opts: mode, input, output, jacobian, tolerance).  Raises on failure;
-- asked for the model's Jacobian when there is none, at the calc outside
-- the differentiable subset.
function Context:linearize(opts)
  local linear = require("diagc.testing.linear")
  local why = optcheck.options("linearize", opts, linear.OPTIONS)
  if why then raise(why) end
  opts = opts or {}
  local m = self.model
  if (opts.jacobian or "model") == "model" and m.desc.jac_lin == nil and m.gen.jac_lin_missing then
    local why = m.gen.jac_lin_missing
    local loc = why.loc and string.format("%s:%d:%d: ", why.loc.file, why.loc.line, why.loc.col or 1) or ""
    raise(loc .. why.message)
  end
  local r, msg = linear.linearize(m, self, opts)
  if not r then raise("linearize: " .. msg) end
  return r
end

-- An operating point where chosen derivatives and outputs take chosen
-- values, from this context (which then holds it): testing/trim.lua
-- (opts: free, fix, target, deriv, free_deriv, jacobian, tolerance,
-- max_iterations).  Returns {iterations=, residual=, x=, u=, y=, ...};
-- raises "trim: ..." when there is no such point.
function Context:trim(opts)
  local r, msg = require("diagc.testing.trim").trim(self.model, self, opts)
  if not r then raise("trim: " .. msg) end
  return r
end

-- d(xcdot or x[n+1], y) / d p for the parameters of the spec's
-- parameter_jacobian, dense: {J = rows of columns, rows = {names},
-- cols = {names}} (rows: the state elements, then the linearization's
-- output elements; cols: the parameter elements).  Raises when the spec
-- asks for none or the model has no such Jacobian.
-- opts.jacobian = "model" (default: the generated one) | "fd" (central
-- differences of the model: testing/param_fd.lua)
function Context:parameter_jacobian(opts)
  local why = optcheck.options("parameter_jacobian", opts, { { "jacobian", one_of = { "model", "fd" } } })
  if why then raise(why) end
  local fd = opts and opts.jacobian == "fd"
  local r, msg
  if fd then r, msg = require("diagc.testing.param_fd").parameter_jacobian(self.model, self)
  else r, msg = require("diagc.testing.linear").parameter_jacobian(self.model, self) end
  if not r then raise(msg) end
  return r
end

-- d x+ / d(xc, xd, u) of one timing of the periodic discrete updates
-- (opts: period=, offset=, jacobian = "model" | "fd"): testing/update_jacobian.lua
function Context:update_jacobian(opts)
  local why = optcheck.options("update_jacobian", opts, require("diagc.testing.update_jacobian").OPTIONS)
  if why then raise(why) end
  local r, msg = require("diagc.testing.update_jacobian").update_jacobian(self.model, self, opts)
  if not r then raise(msg) end
  return r
end

-- a world step's Jacobians (world: the world leaf's path, nil for the
-- only one; opts.jacobian = "model" | "fd"): testing/step_jacobians.lua
-- the world argument of step_jacobians and rollout: a path or nil
local function world_arg(api, world, opts)
  if type(world) == "table" and opts == nil then return nil, world end
  if world ~= nil and type(world) ~= "string" then
    raise("%s: the world must be named by its path (a string), got %s", api, optcheck.show(world))
  end
  return world, opts
end

function Context:step_jacobians(world, opts)
  world, opts = world_arg("step_jacobians", world, opts)
  local r, msg = require("diagc.testing.step_jacobians").step_jacobians(self, world, opts)
  if not r then raise(msg) end
  return r
end

-- N steps of a world with their Jacobians, for vector-Jacobian products
-- backwards (opts: steps=, effort=): testing/rollout.lua
function Context:rollout(world, opts)
  world, opts = world_arg("rollout", world, opts)
  if opts == nil then raise("rollout expects {steps = N[, effort = ...]}") end
  local r, msg = require("diagc.testing.rollout").rollout(self, world, opts or {})
  if not r then raise(msg) end
  return r
end

-- per-entry counters {evals=, calcs=, invalidations=} of a cache entry
-- (a leaf output port's entry has the port's name)
function Context:counters(name)
  local m = self.model
  local c = m.cache[name]
  if not c then raise("no cache entry named '" .. tostring(name) .. "'") end
  local d = m.desc
  local function at(off)
    local p = ffi.cast("uint64_t *", ffi.cast("char *", self.ptr) + off)
    return tonumber(p[c.index])
  end
  return { evals = at(tonumber(d.n_eval_offset)), calcs = at(tonumber(d.n_calc_offset)),
    invalidations = at(tonumber(d.n_inval_offset)) }
end

function Context:set_caching(on) self.model.desc.set_caching(self.ptr, on and 1 or 0) end
function Context:freeze(on) self.model.desc.freeze_cache(self.ptr, (on == nil or on) and 1 or 0) end
function Context:invalidate_all() self.model.desc.invalidate_all(self.ptr) end

function Context:clone()
  local c = self.model:context()
  ffi.copy(c.ptr, self.ptr, tonumber(self.model.desc.context_size))
  return c
end

-- the raw bytes (for bit-for-bit comparisons)
function Context:bytes()
  return ffi.string(self.ptr, tonumber(self.model.desc.context_size))
end

-- names of every cache entry, in bit order
function Model:cache_names()
  local t = {}
  for i = 0, self.desc.n_cache - 1 do t[#t + 1] = ffi.string(self.desc.cache[i].name) end
  return t
end

------------------------------------------------- next update time (simulator)
-- Drake's CalcNextUpdateTime at this context (its time): returns the
-- earliest timed event time strictly after it (math.huge if none) and the
-- events due then, each { name =, kind = "publish" | "discrete_update" |
-- "unrestricted_update", trigger = "periodic" | "timed" | "logger" }
-- (loggers are named by their column).  Errors of next_update_time calcs
-- raise.  Owned by the simulator's part (runtime/src/next_update.c).
local KIND_NAMES = { [0] = "publish", "discrete_update", "unrestricted_update" }
function Context:next_update_time()
  local d = self.model.desc
  local n = d.n_events + d.n_loggers
  local due = ffi.new("unsigned char[?]", n > 0 and n or 1)
  local tn = ffi.new("double[1]")
  local err = ffi.new("char[320]")
  local rc = ffi.C.diagc_calc_next_update_time(d, self.ptr, tn, due, err, 320)
  if rc < 0 then raise("next_update_time: " .. ffi.string(err)) end
  local events = {}
  for i = 0, n - 1 do
    if due[i] ~= 0 then
      if i < d.n_events then
        local e = d.events[i]
        events[#events + 1] = { name = ffi.string(e.name), kind = KIND_NAMES[e.kind],
          trigger = e.trigger == dffi.const.DIAGC_TRIGGER_TIMED and "timed" or "periodic" }
      else
        events[#events + 1] = { name = ffi.string(d.loggers[i - d.n_events].name),
          kind = "publish", trigger = "logger" }
      end
    end
  end
  return tn[0], events
end

------------------------------------------------------------------ simulator
-- diagc_sim_options.jacobian by name: the implicit integrators' Jacobian
-- source (docs/simulator.md)
M.JACOBIAN_SOURCES = { "model", "fd" }
local JACOBIAN_CONST = { model = "DIAGC_JACOBIAN_MODEL", fd = "DIAGC_JACOBIAN_FD" }
-- the name of a diagc_sim_statistics.jacobian_source value
function M.jacobian_source_name(v)
  return v == dffi.const.DIAGC_JACOBIAN_MODEL and "model" or "fd"
end

-- The fields of diagc_sim_options a simulator takes from Lua, with the
-- ranges `diagc run` applies to its flags (--accuracy, --max-step: the
-- same entries; cli/optcheck.lua).  The C API's own wider conventions
-- (a NaN accuracy for the integrator's default) are not offered here.
M.SIM_OPTIONS = {
  { "integrator", type = "string" },
  { "accuracy", range = { min = 1e-14, max = 1 } },
  { "max_step", range = { min = 0, min_open = true } },
  { "fixed_step", range = { min = 0 } },
  { "initial_step", range = { min = 0 } },
  { "min_step", range = { min = 0 } },
  { "error_control", flag = true },
  { "suppress_initialization_events", flag = true },
  { "check_finite", flag = true },
  { "max_steps", range = { min = 0, integer = true } },
  { "jacobian", one_of = M.JACOBIAN_SOURCES, word = "jacobian source", words = "sources" },
}

-- the entry of option `name` in a spec list (M.SIM_OPTIONS, ...)
function M.option(spec, name)
  for _, e in ipairs(spec) do if e[1] == name then return e end end
  error("no option " .. name)
end

function Model:simulator(opts)
  local why = optcheck.options("simulator", opts, M.SIM_OPTIONS)
  if why then raise(why) end
  opts = opts or {}
  local o = ffi.new("diagc_sim_options")
  ffi.C.diagc_sim_options_init(o)
  local keep = {}
  local cvode = opts.integrator == require("diagc.testing.cvode").NAME
  for k, v in pairs(opts) do
    if k == "integrator" then keep.name = v; if not cvode then o.integrator = v end
    elseif k == "jacobian" then o.jacobian = dffi.const[JACOBIAN_CONST[v]]
    elseif M.option(M.SIM_OPTIONS, k).flag then o[k] = optcheck.flag(v)
    else o[k] = v end
  end
  local err = ffi.new("char[256]")
  local s = ffi.C.diagc_sim_create_ex(self.desc, o, err, 256)
  if s == nil then raise("simulator: " .. ffi.string(err)) end
  s = ffi.gc(s, ffi.C.diagc_sim_destroy)
  -- the optional CVODE backend (testing/cvode.lua) takes over the steps
  if cvode then
    local why = require("diagc.testing.cvode").use(s)
    if why then raise("simulator: " .. why) end
  end
  local sim = setmetatable({ model = self, sim = s, keep = keep, logs = {},
    max_step = o.error_control == 0 and o.fixed_step > 0 and o.fixed_step or o.max_step,
    max_steps = tonumber(o.max_steps) > 0 and tonumber(o.max_steps) or nil }, Sim)
  -- collect logger samples
  local d = self.desc
  local names = {}
  for i = 0, d.n_loggers - 1 do
    names[i] = ffi.string(d.loggers[i].name)
    sim.logs[names[i]] = { t = {}, v = {}, size = d.loggers[i].size }
  end
  if d.n_loggers > 0 then
    local cb = ffi.cast("diagc_log_fn", function(_, t, fired, values)
      for i = 0, d.n_loggers - 1 do
        if fired[i] ~= 0 then
          local l = sim.logs[names[i]]
          l.t[#l.t + 1] = t
          if l.size == 1 then l.v[#l.v + 1] = values[i][0]
          else
            local row = {}
            for j = 1, l.size do row[j] = values[i][j - 1] end
            l.v[#l.v + 1] = row
          end
        end
      end
    end)
    sim.cb = cb
    ffi.C.diagc_sim_set_log_callback(s, cb, nil)
  end
  sim.context = self:wrap(ffi.C.diagc_sim_context(s), sim)
  return sim
end

-- The Lua API's return values (docs/testing.md) are the C ones: 0, 1 for
-- termination (DIAGC_SIM_TERMINATED), or a negative DIAGC_SIM_E_* code.
local function lua_rc(rc)
  return rc
end
-- the simulator's message, or the world's own when a world's step stopped
-- on too many contacts (testing/world_capacity.lua)
function Sim:error()
  local msg = ffi.string(ffi.C.diagc_sim_error(self.sim))
  return require("diagc.testing.world_capacity").message(self, msg)
    or require("diagc.testing.world_lcp").message(self, msg) or msg
end
local function check(sim, rc)
  if rc < 0 then raise("simulator: " .. sim:error()) end
  return lua_rc(rc)
end
function Sim:initialize() return check(self, ffi.C.diagc_sim_initialize(self.sim)) end
-- nil, or why advancing to t could not finish (cli/bounds.lua)
function Sim:_bounds(t)
  if type(t) ~= "number" then return "advance_to expects a number, got " .. type(t) end
  local bounds = require("diagc.cli.bounds")
  local step = self.model.desc.nxc > 0 and self.max_step or nil
  self.periodic = self.periodic or bounds.from_desc(self.model.desc)
  return bounds.check(self:time(), t, { step = step, events = self.periodic,
    end_name = "advance_to target", step_name = "max_step (or fixed_step)",
    max_steps = self.max_steps, max_steps_name = "max_steps" })
end
function Sim:advance_to(t)
  local why = self:_bounds(t)
  if why then raise("simulator: " .. why) end
  return check(self, ffi.C.diagc_sim_advance_to(self.sim, t))
end
function Sim:try_advance_to(t)
  local why = self:_bounds(t)
  if why then return -1, why end
  local rc = ffi.C.diagc_sim_advance_to(self.sim, t)
  return lua_rc(rc), rc < 0 and self:error() or nil
end
-- These run the simulator, which calls the loggers' Lua callback: a C
-- function that calls back into Lua must not be called from JIT-compiled
-- code (LuaJIT panics: "bad callback"), and a test's loop over
-- advance_to gets hot enough to be compiled, so they stay interpreted.
do
  local luajit = require("jit") -- (this file's `jit` is diagc.jit)
  luajit.off(Sim.initialize)
  luajit.off(Sim.advance_to)
  luajit.off(Sim.try_advance_to)
end
function Sim:time() return ffi.C.diagc_sim_time(self.sim) end
function Sim:log(name)
  local l = self.logs[name]
  if not l then raise("no logger named '" .. tostring(name) .. "'") end
  return l
end
function Sim:stats()
  local st = ffi.new("diagc_sim_statistics")
  ffi.C.diagc_sim_stats(self.sim, st)
  return st
end

return M
