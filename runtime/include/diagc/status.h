/* diagc/status.h: the one family of status codes of the runtime and of
 * generated code.  docs/runtime-api.md ("Status codes") lists every code,
 * what it means and which functions return it.
 *
 *  - 0 (DIAGC_OK) is success everywhere.
 *  - Negative codes are failures, one distinct value per failure, grouped
 *    by module: simulator -1..-9, generated model functions -10..-12
 *    (values fixed by the model ABI, DIAGC_ABI_VERSION in diagc/model.h),
 *    CSV writer -20.., LCP solver -30.., executor and topics -40..,
 *    deploy -50.., linearization -60.., contact solve -70...  Functions that return an id, a count or a flag (>= 0)
 *    on success return these on failure: rc < 0 is always a failure.
 *  - Positive codes are outcomes that are not failures (the result is
 *    usable): DIAGC_SIM_TERMINATED, DIAGC_LCP_SOLVED_TOL,
 *    DIAGC_LCP_BUDGET, DIAGC_CONTACT_BUDGET.
 *
 * Event handlers' results (DIAGC_DID_NOTHING, DIAGC_SUCCEEDED, ... in
 * diagc/model.h) are not status codes; a handler that fails may return
 * the negative status code of the reason instead of DIAGC_FAILED.
 *
 * diagc_status_message(code) gives a short, stable message for any code.
 *
 * C99.
 */
#ifndef DIAGC_STATUS_H
#define DIAGC_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum diagc_status {
  DIAGC_OK = 0,

  /* outcomes that are not failures */
  DIAGC_SIM_TERMINATED = 1,   /* a handler returned DIAGC_REACHED_TERMINATION:
                                 the simulation stopped early */
  DIAGC_LCP_SOLVED_TOL = 2,   /* LCP: tol < violation <= accept_tol */
  DIAGC_LCP_BUDGET = 3,       /* LCP: the work budget ran out; x is the
                                 best point seen (finite, usable); also
                                 the contact solve's (diagc/world.h) */
  DIAGC_CONTACT_INEXACT = 4,  /* contact solve: an island's LCP was not
                                 solved to accept_tol (best point used) */

  /* simulator (diagc/simulator.h) */
  DIAGC_SIM_E_ARG = -1,       /* bad argument (t_max < t, NaN, name) */
  DIAGC_SIM_E_MODEL = -2,     /* invalid model descriptor */
  DIAGC_SIM_E_NOMEM = -3,     /* allocation failed */
  DIAGC_SIM_E_EVENT = -4,     /* an event handler returned DIAGC_FAILED */
  DIAGC_SIM_E_EVAL = -5,      /* calc_derivatives, an output eval, a
                                 witness or next_update_time calc failed */
  DIAGC_SIM_E_NONFINITE = -6, /* NaN or infinity in a state, a logged value,
                                 a witness value or a next update time */
  DIAGC_SIM_E_STEP = -7,      /* step size fell below the minimum */
  DIAGC_SIM_E_TIME = -8,      /* time changed externally since the last
                                 initialize/advance_to */
  DIAGC_SIM_E_STATE = -9,     /* used after an error without re-initializing */

  /* generated model functions: eval, calc_derivatives (values fixed by
     the model ABI) */
  DIAGC_E_FROZEN = -10,       /* a stale entry was read while the cache is
                                 frozen */
  DIAGC_E_CALC = -11,         /* a calc body returned a nonzero status */
  DIAGC_E_INDEX = -12,        /* eval_output / eval_cache: no output or
                                 cache entry of that index */

  /* CSV writer (diagc/csv.h) */
  DIAGC_CSV_E_IO = -20,       /* a write to the stream failed */
  DIAGC_CSV_E_BUFFER = -21,   /* the output buffer is too small */

  /* LCP solver (diagc/lcp.h) */
  DIAGC_LCP_E_ARG = -30,      /* invalid argument; x is left unchanged */
  DIAGC_LCP_E_WORKSPACE = -31,/* workspace missing or smaller than needed;
                                 x is left unchanged */
  DIAGC_LCP_E_UNSOLVED = -32, /* no x with violation <= accept_tol found;
                                 x is the best point seen (finite), its
                                 violation is in the stats */

  /* executor and topics (diagc/executor.h) */
  DIAGC_EXEC_E_ARG = -40,     /* bad argument or unknown id */
  DIAGC_EXEC_E_FULL = -41,    /* more groups/entities/topics than configured */
  DIAGC_EXEC_E_NOMEM = -42,   /* allocation failed */
  DIAGC_EXEC_E_STATE = -43,   /* setup call after prepare, or spin while
                                 another spin runs */
  DIAGC_EXEC_E_SHUTDOWN = -44,/* the executor was shut down */
  DIAGC_EXEC_E_REJECTED = -45,/* delivery refused (queue full, reject) */
  DIAGC_EXEC_E_THREAD = -46,  /* a thread could not be started */
  DIAGC_EXEC_E_SCHED = -47,   /* rt_priority: real-time scheduling not
                                 permitted */

  /* deploy (diagc/deploy.h) */
  DIAGC_DEPLOY_E_MODEL = -50, /* a deployed model failed while running */

  /* linearization (diagc/linearize.h) */
  DIAGC_LIN_E_ARG = -60,      /* bad argument: port index, NULL array */
  DIAGC_LIN_E_MODEL = -61,    /* not purely continuous, or no generated
                                 Jacobian with DIAGC_JACOBIAN_MODEL */
  DIAGC_LIN_E_EQUILIBRIUM = -62, /* linearize: xcdot is not zero within
                                 the tolerance at the operating point */
  DIAGC_LIN_E_EVAL = -63,     /* an eval, the derivatives or the Jacobian
                                 failed, or gave NaN/infinity */
  DIAGC_LIN_E_NOMEM = -64,    /* allocation failed */

  /* trim (diagc/trim.h); its other failures are DIAGC_LIN_E_* */
  DIAGC_TRIM_E_NO_POINT = -65, /* the residual stalls above the tolerance:
                                 no trim point with these unknowns */
  DIAGC_TRIM_E_SINGULAR = -66, /* the Jacobian of the equations with
                                 respect to the unknowns is singular */

  /* contact solve (diagc/world.h) */
  DIAGC_CONTACT_E_ARG = -70,  /* bad argument; x, v_next unchanged */
  DIAGC_CONTACT_E_WORKSPACE = -71, /* workspace missing or too small */
  DIAGC_CONTACT_E_CHECK = -72,/* check: an island's LCP above accept_tol
                                 although its solve reported success */
  DIAGC_CONTACT_E_NUMERIC = -73,/* an island's A or impulses overflowed:
                                 its impulses are zero */
  DIAGC_WORLD_E_NONFINITE = -74,/* a generated world step: the velocity
                                 after the smooth dynamics is not finite
                                 (the state, an effort or a force
                                 overflowed) */
  DIAGC_WORLD_E_CONTACTS = -75 /* a generated world step: its collision
                                 found more contacts than max_contacts
                                 and contact_overflow is "stop" */,

  /* batch (diagc/batch.h) */
  DIAGC_BATCH_E_ARG = -80,    /* a bad job (a size, an index, a NULL array) */
  DIAGC_BATCH_E_NOMEM = -81,  /* allocation failed */
  DIAGC_BATCH_E_ROWS = -82,   /* a run logged more rows than max_rows */
  DIAGC_BATCH_E_THREAD = -83  /* a thread could not be started */
} diagc_status;

/* A short, stable, one-line message for `code` (never NULL, never empty);
 * "unknown status code" for a value that is not a diagc_status. */
const char *diagc_status_message(int code);
/* The code's name, e.g. "DIAGC_SIM_E_ARG", or NULL for a value that is
 * not a diagc_status. */
const char *diagc_status_name(int code);

#ifdef __cplusplus
}
#endif
#endif
