-- world/dynamics.lua: the C of a world's rigid-body dynamics, generated for
-- its tree (the "dynamics" helper of a lowered world; WORLD_API.md).
--
--   dyn = this module (diagc.world.dynamics)
--   local text = dyn.emit(world, prefix[, opts])
--   local facts = dyn.facts(world)           -- = the facts of world/tree.lua
--
-- world: a checked world table (gravity, bodies with mass, com, inertia and
-- joint = {type, parent, xyz, rpy, axis, damping}).  prefix: a C identifier
-- prefix.  The text is C99: `#include <math.h>`, the static inline helpers
-- it uses (named prefix_*), then the static functions
--   void   prefix_kinematics(const double *q, double *X)                 X: nb * 12 poses
--   void   prefix_mass_matrix(const double *q, const double *X, const double *inertial, double *M)
--          (inertial: the world's parameters mass, com, inertia packed, 10 per
--          moving body: tree.INERTIAL)   facts.nm doubles:
--          block diagonal over the subtrees, each block row-major (entry (i, j)
--          at M[facts.mindex(i, j)], world/tree.lua); structural zeros (dofs on
--          different branches) are not written: zero M once
--   void   prefix_bias(const double *q, const double *v, const double *X, const double *inertial, double *c)
--          c = C(q, v) v + g(q), without the joints' damping:
--   void   prefix_damping(const double *d, const double *v, double *c)
--          c_k += d[j] v_k for every dof k of moving joint j (0-based, in body order)
--   void   prefix_factor(double *M)                   in place, tree-sparse L^T D L
--   void   prefix_solve(const double *LDL, double *x)  x <- M^-1 x
--   void   prefix_solve_cols(const double *LDL, double *X, int ncol, int ld)   (only when asked for)
--          X <- M^-1 X for the nv x ncol row-major X (X[i * ld + c]), each column as solve would
--   void   prefix_solve_tree(const double *LDL, int tree, double *x)   (only when asked for)
--          x <- M^-1 x over the dofs of subtree `tree`, packed: x[k] is its k-th dof (facts.tree_dofs)
--   void   prefix_solve_tree3(const double *LDL, int tree, double *x, int stride)   (only when asked for)
--          the same for three right-hand sides x, x + stride, x + 2 stride (a contact's rows)
--   void   prefix_point_jacobian(int body, const double *q, const double *X,
--                                const double p[3], double *Jp)   3 x nv row-major
--   void   prefix_point_jacobian_tree(int body, ...)   (only when asked for)
--          the same on the dofs of the body's tree: 3 x (widest tree), row-major
--   void   prefix_integrate(const double *q, const double *v, double dt, double *q_next)
--   double prefix_energy(const double *q, const double *v, const double *X, const double *inertial)
--   void   prefix_velocities(const double *q, const double *v, const double *X, double *V)  (only when asked for)
--          V: nb * 6 body velocities (angular, linear at the world origin; world axes)
-- opts.functions: the functions to emit, e.g. { "kinematics", "bias" }
-- (default M.FUNCTIONS, the nine above all but solve_tree and
-- point_jacobian_tree; an unused
-- static function would warn under -Wall).  Loops over
-- bodies and dofs are unrolled; geometry is literal (the masses, centres
-- of mass and inertias of moving bodies are `inertial`); the
-- same world gives the same bytes.  facts(world) gives nq, nv, nb, per-body
-- q0/v0, the dof parent array, the contact-island tree of each body and the
-- default q (see tree.lua).
local tree = require("diagc.world.tree")
local spatial = require("diagc.world.spatial")
local fold = require("diagc.world.fold")
local size = require("diagc.world.size")
local looped = require("diagc.world.looped")

local M = {}

-- what each function computes, for the error about a constant that does
-- not fold (world/fold.lua, world/lower.lua)
M.PARTS = { kinematics = "kinematics (the joints' placements and axes)",
  mass_matrix = "mass matrix (the masses, centres of mass and inertias)",
  bias = "bias forces (gravity on the masses, Coriolis terms)",
  mass_bias = "mass matrix and bias forces", damping = "damping",
  factor = "mass matrix factor", solve = "solve", solve_cols = "solve", solve_tree = "solve", solve_tree3 = "solve",
  point_jacobian = "point Jacobians",
  point_jacobian_tree = "point Jacobians",
  integrate = "position update", energy = "energy (the masses in gravity)", velocities = "body velocities" }

M.FUNCTIONS = { "kinematics", "mass_matrix", "bias", "damping", "factor", "solve", "point_jacobian", "integrate", "energy" }
M.ORDER = { "kinematics", "mass_matrix", "bias", "mass_bias", "damping", "factor", "solve", "solve_cols", "solve_tree", "solve_tree3",
  "point_jacobian",
  "point_jacobian_tree", "integrate", "energy", "velocities" }

local EMIT = {
  kinematics = function(w, t, p, h) return require("diagc.world.kinematics").emit(w, t, p, h) end,
  mass_matrix = function(w, t, p, h) return require("diagc.world.crba").emit(w, t, p, h) end,
  bias = function(w, t, p, h) return require("diagc.world.rnea").emit(w, t, p, h) end,
  -- both at once (the looped form shares the columns and inertias: world/looped.lua);
  -- with the two it calls when they are not wanted themselves
  mass_bias = function(w, t, p, h, want)
    local out = {}
    if not want.mass_matrix then out[#out + 1] = require("diagc.world.crba").emit(w, t, p, h) end
    if not want.bias then out[#out + 1] = require("diagc.world.rnea").emit(w, t, p, h) end
    out[#out + 1] = string.format("static void %s_mass_bias(const double *q, const double *v, const double *X, "
      .. "const double *inertial, double *M, double *c)\n{\n  %s_mass_matrix(q, X, inertial, M);\n"
      .. "  %s_bias(q, v, X, inertial, c);\n}\n", p, p, p)
    return table.concat(out, "\n")
  end,
  damping = function(w, t, p) return require("diagc.world.rnea").emit_damping(w, t, p) end,
  factor = function(w, t, p) return require("diagc.world.ltdl").emit(w, t, p, "factor") end,
  solve = function(w, t, p) return require("diagc.world.ltdl").emit(w, t, p, "solve") end,
  solve_cols = function(w, t, p) return require("diagc.world.ltdl").emit(w, t, p, "solve_cols") end,
  solve_tree = function(w, t, p) return require("diagc.world.ltdl").emit(w, t, p, "solve_tree") end,
  solve_tree3 = function(w, t, p) return require("diagc.world.ltdl").emit(w, t, p, "solve_tree3") end,
  point_jacobian = function(w, t, p) return require("diagc.world.jacobian").emit(w, t, p) end,
  point_jacobian_tree = function(w, t, p) return require("diagc.world.jacobian").emit_tree(w, t, p) end,
  integrate = function(w, t, p, h) return require("diagc.world.integrate").emit(w, t, p, h) end,
  energy = function(w, t, p, h) return require("diagc.world.energy").emit(w, t, p, h) end,
  velocities = function(w, t, p) return require("diagc.world.energy").emit_velocities(w, t, p) end,
}

M.facts = tree.facts

-- the form of a world's dynamics (part nil) or of their tangent
-- derivatives (part "tangents"), "unrolled" or "looped" (world/size.lua's
-- M.mode: the world's `dynamics` setting, or by its size)
function M.mode(world, t, part)
  return size.mode(world, t or tree.facts(world), part)
end

function M.emit(world, prefix, opts)
  opts = opts or {}
  assert(type(prefix) == "string" and prefix:match("^[%a_][%w_]*$"), "dynamics.emit: prefix must be a C identifier")
  local t = tree.facts(world)
  local h = spatial.helpers(prefix)
  local want = {}
  for _, name in ipairs(opts.functions or M.FUNCTIONS) do
    assert(EMIT[name], "dynamics.emit: unknown function " .. tostring(name))
    want[name] = true
  end
  local is_looped = M.mode(world, t) == "looped"
  local bodies = {}
  local parts = is_looped and looped.parts(world, t, prefix, h)
  for _, name in ipairs(M.ORDER) do
    if want[name] then
      local emit = EMIT[name]
      if is_looped and name ~= "integrate" and name ~= "damping" then
        emit = function(w, tt, p, hh) return looped.emit(name, w, tt, p, hh, parts) end
      end
      local ok, text = pcall(emit, world, t, prefix, h, want)
      if not ok then
        if fold.is_nonfinite(text) and not text.part then text.part = M.PARTS[name] end
        error(text, 0)
      end
      bodies[#bodies + 1] = text
    end
  end
  local head = string.format("/* %s: rigid-body dynamics generated for a tree of %d bodies (nq %d, nv %d)%s */\n",
    prefix, t.nb, t.nq, t.nv, is_looped and ", looped over its tables" or "")
  return head .. "#include <math.h>\n\n" .. h:text() .. "\n" .. (parts and parts:text() .. "\n" or "")
    .. table.concat(bodies, "\n")
end

return M
