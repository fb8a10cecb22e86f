-- testing/cvode.lua: the optional CVODE backend (diagc/cvode.h), the
-- integrator "cvode_bdf" of `diagc run` and m:simulator{}.  bin/diagc does
-- not link SUNDIALS: the backend's shared library, lib/libdiagc_cvode.so
-- (built by make when libsundials-dev is installed), is loaded at run time
-- on first use; its diagc_sim_* references resolve to the runtime inside
-- bin/diagc.  DIAGC_CVODE_LIBRARY overrides the library's path.
local ffi = require("ffi")
local dffi = require("diagc.testing.ffi")

local M = {}

M.NAME = "cvode_bdf"
M.MISSING = "cvode_bdf needs libsundials-dev: install it with scripts/install-deps.sh libsundials-dev and rebuild"

local lib

-- The loaded library, or nil and the one-line reason.
function M.load()
  if lib then return lib end
  local host = require("diagc_host")
  local path = os.getenv("DIAGC_CVODE_LIBRARY") or (host.lib_dir() .. "/libdiagc_cvode.so")
  local f = io.open(path, "rb")
  if not f then return nil, M.MISSING end
  f:close()
  local ok, l = pcall(ffi.load, path)
  if not ok then return nil, M.MISSING .. " (" .. tostring(l):gsub("%s+", " ") .. ")" end
  dffi.load(host.include_dir())
  dffi.header(host.include_dir(), "cvode.h")
  lib = l
  return lib
end

-- Makes CVODE the integrator of the simulator `sim` (a diagc_sim *);
-- returns nil or the reason it could not.
function M.use(sim)
  local l, why = M.load()
  if not l then return why end
  if l.diagc_sim_use_cvode(sim, nil) ~= 0 then return ffi.string(ffi.C.diagc_sim_error(sim)) end
  return nil
end

-- "SUNDIALS 6.4.1, KLU sparse LU" (for --stats): the linear solver the
-- backend chose (KLU with the model's Jacobian when built with it).
function M.describe(model_jacobian)
  local l = assert(M.load())
  return string.format("SUNDIALS %s, %s", ffi.string(l.diagc_cvode_sundials_version()),
    (model_jacobian and l.diagc_cvode_has_klu() ~= 0) and "KLU sparse LU" or "dense LU")
end

return M
