/* status.c: names and messages of the status codes (diagc/status.h). */
#include "diagc/status.h"

#include <stddef.h>

typedef struct status_entry {
  int code;
  const char *name, *message;
} status_entry;

#define ENTRY(code, message) { code, #code, message }

static const status_entry STATUSES[] = {
  ENTRY(DIAGC_OK, "success"),
  ENTRY(DIAGC_E_FROZEN, "model: cache frozen (a stale entry was read)"),
  ENTRY(DIAGC_E_CALC, "model: a calc body failed"),
  ENTRY(DIAGC_E_INDEX, "model: no output or cache entry of that index"),
  ENTRY(DIAGC_SIM_TERMINATED, "simulator: an event handler reached termination"),
  ENTRY(DIAGC_LCP_SOLVED_TOL, "lcp: solved within accept_tol only"),
  ENTRY(DIAGC_LCP_BUDGET, "lcp: work budget spent (best point returned)"),
  ENTRY(DIAGC_CONTACT_INEXACT, "contact: an island's LCP not solved to accept_tol (best point used)"),
  ENTRY(DIAGC_SIM_E_ARG, "simulator: bad argument"),
  ENTRY(DIAGC_SIM_E_MODEL, "simulator: invalid model descriptor"),
  ENTRY(DIAGC_SIM_E_NOMEM, "simulator: out of memory"),
  ENTRY(DIAGC_SIM_E_EVENT, "simulator: an event handler failed"),
  ENTRY(DIAGC_SIM_E_EVAL, "simulator: a model evaluation failed"),
  ENTRY(DIAGC_SIM_E_NONFINITE, "simulator: NaN or infinity in the state or a logged value"),
  ENTRY(DIAGC_SIM_E_STEP, "simulator: step size fell below the minimum"),
  ENTRY(DIAGC_SIM_E_TIME, "simulator: time was changed outside the simulator"),
  ENTRY(DIAGC_SIM_E_STATE, "simulator: used after an error without re-initializing"),
  ENTRY(DIAGC_CSV_E_IO, "csv: write error on the output"),
  ENTRY(DIAGC_CSV_E_BUFFER, "csv: buffer too small"),
  ENTRY(DIAGC_LCP_E_ARG, "lcp: invalid argument"),
  ENTRY(DIAGC_LCP_E_WORKSPACE, "lcp: workspace missing or too small"),
  ENTRY(DIAGC_LCP_E_UNSOLVED, "lcp: not solved to accept_tol (best point returned)"),
  ENTRY(DIAGC_EXEC_E_ARG, "executor: bad argument or unknown id"),
  ENTRY(DIAGC_EXEC_E_FULL, "executor: more groups, entities or topics than configured"),
  ENTRY(DIAGC_EXEC_E_NOMEM, "executor: out of memory"),
  ENTRY(DIAGC_EXEC_E_STATE, "executor: call not allowed in this state"),
  ENTRY(DIAGC_EXEC_E_SHUTDOWN, "executor: shut down"),
  ENTRY(DIAGC_EXEC_E_REJECTED, "executor: delivery rejected"),
  ENTRY(DIAGC_EXEC_E_THREAD, "executor: a thread could not be started"),
  ENTRY(DIAGC_EXEC_E_SCHED, "executor: real-time scheduling not permitted"),
  ENTRY(DIAGC_DEPLOY_E_MODEL, "deploy: a model failed while running"),
  ENTRY(DIAGC_LIN_E_ARG, "linearize: bad argument"),
  ENTRY(DIAGC_LIN_E_MODEL, "linearize: the model cannot be linearized this way"),
  ENTRY(DIAGC_LIN_E_EQUILIBRIUM, "linearize: not an equilibrium"),
  ENTRY(DIAGC_LIN_E_EVAL, "linearize: an evaluation failed"),
  ENTRY(DIAGC_LIN_E_NOMEM, "linearize: out of memory"),
  ENTRY(DIAGC_TRIM_E_NO_POINT, "trim: no trim point (the residual stalls above the tolerance)"),
  ENTRY(DIAGC_TRIM_E_SINGULAR, "trim: the Jacobian with respect to the unknowns is singular"),
  ENTRY(DIAGC_CONTACT_E_ARG, "contact: invalid argument"),
  ENTRY(DIAGC_CONTACT_E_WORKSPACE, "contact: workspace missing or too small"),
  ENTRY(DIAGC_CONTACT_E_CHECK, "contact: an LCP failed its complementarity check"),
  ENTRY(DIAGC_CONTACT_E_NUMERIC, "contact: an island's LCP matrix or impulses overflowed (not finite)"),
  ENTRY(DIAGC_WORLD_E_NONFINITE, "world step: the velocity after the smooth dynamics is not finite "
        "(the state, an effort or a force overflowed)"),
  ENTRY(DIAGC_WORLD_E_CONTACTS, "world step: the collision found more contacts than max_contacts; raise "
        "max_contacts or set contact_overflow = \"drop\" (docs/world.md, \"Capacity\")"),
  ENTRY(DIAGC_BATCH_E_ARG, "batch: bad job"),
  ENTRY(DIAGC_BATCH_E_NOMEM, "batch: out of memory"),
  ENTRY(DIAGC_BATCH_E_ROWS, "batch: a run logged more rows than max_rows"),
  ENTRY(DIAGC_BATCH_E_THREAD, "batch: a thread could not be started"),
};

static const status_entry *find(int code) {
  size_t i;
  for (i = 0; i < sizeof STATUSES / sizeof STATUSES[0]; i++)
    if (STATUSES[i].code == code) return &STATUSES[i];
  return NULL;
}

const char *diagc_status_message(int code) {
  const status_entry *e = find(code);
  return e ? e->message : "unknown status code";
}

const char *diagc_status_name(int code) {
  const status_entry *e = find(code);
  return e ? e->name : NULL;
}
