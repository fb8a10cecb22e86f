-- world/step_check.lua: the C that makes a world's contact solve report
-- what failed (world/step.lua calls it after diagc_contact_solve).  With
-- check_lcp = true, a step whose LCP is left unsolved (the solve returns
-- DIAGC_CONTACT_INEXACT: some island above lcp.accept_tol, and not because
-- the work budget ran out: an infeasible problem such as two links of one
-- robot overlapping for good) fails with
-- DIAGC_CONTACT_E_CHECK, as one that fails the runtime's own check does,
-- instead of being accepted.  A failed check leaves in the work's info
--   info[0] = contacts, info[1] = the candidate pair (0-based) of the
--   contact whose normal velocity after the solve approaches most,
--   info[2] = the LCP residual, info[3] = that normal velocity,
-- which `diagc run` reads to name the pair (cli/world_failure.lua); the
-- time is the simulator's (the failed update's).
local M = {}

local function lines(t) return table.concat(t, "\n") end

-- PFXcheck_failed(w, nc, st): fills info as above from the first nc rows,
-- the collision contacts (w->v_next: after the solve); a world with no
-- candidate pair (joint limits only) names no pair
function M.emit(C, P)
  if #C.pairs == 0 then
    return lines({
      string.format("static inline void %scheck_failed(%swork *w, int nc, const diagc_contact_stats *st)", P, P),
      "{",
      "  w->info[0] = nc;",
      "  w->info[1] = -1;",
      "  w->info[2] = st->residual > st->check_violation ? st->residual : st->check_violation;",
      "  w->info[3] = 0.0;",
      "}",
    })
  end
  return M.emit_pairs(C, P)
end

function M.emit_pairs(C, P)
  local W = C.width
  return lines({
    string.format("static inline void %scheck_failed(%swork *w, int nc, const diagc_contact_stats *st)", P, P),
    "{",
    "  int worst = 0;",
    "  double vmin = 0.0;",
    "  for (int i = 0; i < nc; i++) {",
    string.format("    const int *pr = %spair[w->pair[i]];", P),
    string.format("    int ta = pr[4], tb = pr[5], na = ta >= 0 ? %stree_dof0[ta + 1] - %stree_dof0[ta] : 0;", P, P),
    string.format("    int nb = (tb >= 0 && tb != ta) ? %stree_dof0[tb + 1] - %stree_dof0[tb] : 0;", P, P),
    "    double vn = 0.0;",
    "    for (int c = 0; c < na + nb; c++) {",
    string.format("      int k = c < na ? %stree_dofs[%stree_dof0[ta] + c] : %stree_dofs[%stree_dof0[tb] + c - na];",
      P, P, P, P),
    string.format("      vn += w->Jc[(size_t)(3 * i) * %d + c] * w->v_next[k];", W),
    "    }",
    "    if (i == 0 || vn < vmin) { vmin = vn; worst = i; }",
    "  }",
    "  w->info[0] = nc;",
    "  w->info[1] = nc > 0 ? w->pair[worst] : -1;",
    "  w->info[2] = st->residual > st->check_violation ? st->residual : st->check_violation;",
    "  w->info[3] = vmin;",
    "}",
  })
end

-- the lines of the contact phase after the solve (status, o, st in scope)
function M.after_solve(C, P)
  if not C.settings.check_lcp then return {} end
  return {
    "  /* check_lcp: an LCP left unsolved (not for want of work budget) is a failure */",
    "  if (status == DIAGC_CONTACT_INEXACT && !st.budget_hit) status = DIAGC_CONTACT_E_CHECK;",
    -- the collision contacts only: the joint limits' rows (after them) have no pair
    string.format("  if (status == DIAGC_CONTACT_E_CHECK) %scheck_failed(w, %s, &st);", P,
      C.nlim_rows > 0 and "ncc" or "nc"),
  }
end

return M
