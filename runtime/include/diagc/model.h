/* diagc/model.h: the contract between a generated model and the runtime.
 *
 * Every generated model exports one `const diagc_model NAME_model` that
 * describes it completely: sizes, offsets into its context, names, the
 * events, the loggers and a table of functions.  The runtime (simulator,
 * executor, CLI) works through this descriptor only, never through
 * model-specific code.  A context is an opaque, pointer-free block of
 * `context_size` bytes; clone it with memcpy.
 *
 * C99.  No allocation, no global mutable state.
 */
#ifndef DIAGC_MODEL_H
#define DIAGC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DIAGC_ABI_VERSION 8

/* Eval functions and calc_derivatives return DIAGC_OK, DIAGC_E_FROZEN (a
 * stale entry was read while the cache is frozen) or DIAGC_E_CALC (a calc
 * body returned a nonzero status); the index-based eval_output and
 * eval_cache also DIAGC_E_INDEX (no such output or entry): see
 * diagc/status.h. */

/* Event handler statuses, ordered by severity as in Drake. */
#define DIAGC_DID_NOTHING 0
#define DIAGC_SUCCEEDED 1
#define DIAGC_REACHED_TERMINATION 2
#define DIAGC_FAILED 3

/* Event triggers and kinds. */
#define DIAGC_TRIGGER_INITIALIZATION 0
#define DIAGC_TRIGGER_PER_STEP 1
#define DIAGC_TRIGGER_PERIODIC 2
#define DIAGC_TRIGGER_WITNESS 3    /* fired by a witness function's zero crossing */
#define DIAGC_TRIGGER_TIMED 4      /* one-shot, at the time a next_update_time
                                      calc returns (Drake's kTimed) */

/* Witness directions (Drake's WitnessFunctionDirection), over a step
 * (t0, t1] with values w0 = w(t0), w1 = w(t1). */
#define DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE 0 /* w0 > 0 and w1 <= 0 */
#define DIAGC_WITNESS_NEGATIVE_TO_NONNEGATIVE 1 /* w0 < 0 and w1 >= 0 */
#define DIAGC_WITNESS_CROSSING 2                /* either of the above */

#define DIAGC_PUBLISH 0
#define DIAGC_DISCRETE_UPDATE 1
#define DIAGC_UNRESTRICTED_UPDATE 2

/* Kinds of mutable sources (for diagc_source_desc.kind). */
#define DIAGC_SRC_TIME 0
#define DIAGC_SRC_ACCURACY 1
#define DIAGC_SRC_Q 2          /* one leaf's q */
#define DIAGC_SRC_V 3
#define DIAGC_SRC_Z 4
#define DIAGC_SRC_XD 5         /* one discrete group */
#define DIAGC_SRC_XA 6         /* one abstract state */
#define DIAGC_SRC_PN 7         /* one numeric parameter group */
#define DIAGC_SRC_PA 8         /* one abstract parameter */
#define DIAGC_SRC_FIXED_INPUT 9
#define DIAGC_SRC_INPUT 10     /* an exported input of the root diagram */

/* FFI-BEGIN (the region below is read by LuaJIT's FFI: no preprocessor) */
/* An output port (leaf output, or diagram output at any level), evaluated
 * lazily by diagc_model.eval_output with its index in diagc_model.outputs. */
typedef struct diagc_value_desc {
  const char *name;      /* dotted path, e.g. "pid.ctl.y" */
  int size;              /* number of doubles; 0 for an abstract value */
  const char *const *elements; /* `size` element names ("x", "theta"), or
                                  NULL: elements go by index */
} diagc_value_desc;

/* A settable source.  Numeric sources are `size` doubles stored at
 * `offset` bytes into the context; diagc_model.set_source copies them in
 * and applies the source's precomputed invalidation masks.  Abstract
 * sources have size 0 and byte_size > 0 and are set from a value of their
 * C type. */
typedef struct diagc_source_desc {
  const char *name;      /* dotted path, e.g. "plant.k"; "t", "accuracy" */
  int kind;              /* DIAGC_SRC_* */
  int size;              /* doubles (0 for abstract sources) */
  size_t offset;         /* byte offset in the context */
  size_t byte_size;      /* bytes */
} diagc_source_desc;

/* An event declared by a leaf.  For updates, `handler` reads the context
 * (pre-update values) and writes into `state_buf`, a state-sized buffer
 * (diagc_model.state_size bytes) that the caller preloads with the current
 * state (bytes [state_offset, state_offset+state_size) of the context).
 * `apply` copies this event's declared writes from the buffer into the
 * context and applies the matching invalidation masks.  For publishes,
 * state_buf is NULL and apply is NULL.  Handlers return DIAGC_DID_NOTHING,
 * DIAGC_SUCCEEDED, DIAGC_REACHED_TERMINATION or DIAGC_FAILED; a handler
 * that fails for a reason diagc/status.h names may return that negative
 * status code instead of DIAGC_FAILED (it counts as DIAGC_FAILED, and the
 * simulator's message gives diagc_status_message of it: a world's step
 * returns its contact solve's failure). */
typedef struct diagc_event_desc {
  const char *name;      /* "leafpath.eventname" */
  int leaf;              /* index into diagc_model.leaf_names */
  int trigger;           /* DIAGC_TRIGGER_* */
  int kind;              /* DIAGC_PUBLISH / _DISCRETE_UPDATE / _UNRESTRICTED_UPDATE */
  double period, offset; /* periodic events only */
  int (*handler)(void *ctx, void *state_buf);
  void (*apply)(void *ctx, const void *state_buf);
} diagc_event_desc;

/* A witness function (zero crossing) declared by a leaf.  `calc` evaluates
 * the witness at the context into *value and returns 0 (nonzero: failure).
 * When it triggers, the event `event` (an index into diagc_model.events
 * whose trigger is DIAGC_TRIGGER_WITNESS, or -1 for none) fires: a publish
 * at the isolated time, or an update at the start of the next step. */
typedef struct diagc_witness_desc {
  const char *name;      /* "leafpath.witnessname" */
  int leaf;              /* index into diagc_model.leaf_names */
  int direction;         /* DIAGC_WITNESS_* */
  int (*calc)(void *ctx, double *value);
  int event;
} diagc_witness_desc;

/* A next_update_time item (Drake's DoCalcNextUpdateTime override) declared
 * by a leaf.  `calc` evaluates, at the context, the time of the leaf's next
 * one-shot event into *t_next (strictly after the context's time, or
 * INFINITY for none) and returns 0 (nonzero: failure).  At that time the
 * event `event` (an index into diagc_model.events whose trigger is
 * DIAGC_TRIGGER_TIMED) fires, merged with every other event due then. */
typedef struct diagc_timed_desc {
  const char *name;      /* "leafpath.name" */
  int leaf;              /* index into diagc_model.leaf_names */
  int (*calc)(void *ctx, double *t_next);
  int event;
} diagc_timed_desc;

/* A logger declared in the spec: samples value `value` (index into
 * diagc_model.outputs) with period 0 (every step) or period h (offset 0). */
typedef struct diagc_logger_desc {
  const char *name;      /* column name, e.g. "example.Sn" */
  int output;            /* index into diagc_model.outputs */
  int size;
  double period;
} diagc_logger_desc;

/* A cache entry, for counters and diagnostics; diagc_model.eval_cache
 * brings it up to date. */
typedef struct diagc_cache_desc {
  const char *name;      /* "leafpath.entry"; built-ins use their ticket name,
                            e.g. "pend.xcdot", ".xcdot" for the root diagram */
  int size;              /* doubles, 0 if abstract or storage-free */
} diagc_cache_desc;

/* The Jacobian of the periodic discrete updates of one timing (docs/
 * jacobians.md, "Periodic updates"): at an instant where the periodic
 * discrete update events of period `period` and offset `offset` fire, each
 * reads the state before the instant and x+ = (xc unchanged, the groups
 * they write updated, every other xd unchanged).  jac fills the nnz
 * structural nonzeros of d x+ / d(xc, xd, u) in compressed columns (row
 * indices of column j: rowind[colptr[j] .. colptr[j + 1])): rows the nxc
 * continuous then the nxd discrete state elements (nrow), columns the
 * same then the elements of diagc_model.lin_inputs (ncol).  NULL (nnz 0)
 * when an unrestricted update shares the timing or a calc it needs is
 * outside the differentiable subset.  It is the cache entry `name`. */
typedef struct diagc_jac_update_desc {
  const char *name;      /* "jac_update0", ... */
  double period, offset;
  int nrow, ncol, nnz;
  const int *colptr;     /* ncol + 1 */
  const int *rowind;     /* nnz */
  int (*jac)(void *ctx, double *nz);
} diagc_jac_update_desc;

typedef struct diagc_model {
  int abi_version;                 /* DIAGC_ABI_VERSION */
  const char *name;
  size_t context_size;
  size_t state_offset, state_size; /* the state block inside the context */
  size_t time_offset;              /* double t */
  size_t xc_offset;                /* double xc[nxc] = q(all) v(all) z(all) */
  size_t xd_offset;                /* double xd[nxd] */
  int nq, nv, nz, nxc, nxd;
  const char *const *xc_names;     /* nxc names, "pend.theta" */
  const char *const *xd_names;     /* nxd names, "counter.x[0]" */
  int n_leaves;
  const char *const *leaf_names;
  int n_outputs;  const diagc_value_desc *outputs;   /* every output port */
  int n_cache;    const diagc_cache_desc *cache;     /* every cache entry */
  int n_sources;  const diagc_source_desc *sources;
  int n_events;   const diagc_event_desc *events;
  int n_loggers;  const diagc_logger_desc *loggers;
  size_t n_eval_offset, n_calc_offset, n_inval_offset; /* uint64_t[n_cache] */
  double default_accuracy;
  void (*init)(void *ctx);                    /* defaults, t = 0, all stale */
  void (*set_time)(void *ctx, double t);
  void (*set_accuracy)(void *ctx, double a);
  void (*set_xc)(void *ctx, const double *xc);
  double *(*mutable_xc)(void *ctx);           /* invalidates like set_xc */
  void (*set_state)(void *ctx, const void *state); /* whole state block */
  int (*calc_derivatives)(void *ctx, const double **xcdot);
  void (*set_caching)(void *ctx, int on);
  void (*freeze_cache)(void *ctx, int frozen);
  void (*invalidate_all)(void *ctx);
  /* By index (ABI 6; before, one function pointer per element):
     set_source copies sources[i].byte_size bytes from value into the
     context and applies source i's invalidation (an index outside
     [0, n_sources) does nothing); eval_output brings outputs[i] up to
     date and points *value at it; eval_cache does the same for cache[i]
     (*value is NULL for an abstract or storage-free entry).  Both evals
     return DIAGC_E_INDEX for an index out of range. */
  void (*set_source)(void *ctx, int i, const void *value);
  int (*eval_output)(void *ctx, int i, const double **value);
  int (*eval_cache)(void *ctx, int i, const double **value);
  int n_witnesses; const diagc_witness_desc *witnesses; /* zero crossings */
  int n_timed; const diagc_timed_desc *timed;  /* next_update_time items */
  /* d xcdot / d xc, generated (docs/jacobians.md): jac_xc fills the
     jac_xc_nnz structural nonzeros in compressed columns (row indices of
     column j: jac_xc_rowind[jac_xc_colptr[j] .. jac_xc_colptr[j + 1])).
     Rows are sorted within a column.  jac_xc writes the values at the
     context's (t, xc, parameters, inputs, discrete state) and returns
     DIAGC_OK or a failure status, like calc_derivatives.  NULL (and nnz
     0) when a calc on the derivative path is outside the differentiable
     subset; the simulator's implicit integrators then use finite
     differences. */
  int jac_xc_nnz;
  const int *jac_xc_colptr;        /* nxc + 1 */
  const int *jac_xc_rowind;        /* jac_xc_nnz */
  int (*jac_xc)(void *ctx, double *nz);
  /* d(xcdot, y) / d(xc, u), generated for linearization (docs/jacobians.md,
     "Linearization"; diagc/linearize.h).  Rows: the nxc time derivatives,
     then the elements of the output ports lin_outputs[0 .. n_lin_outputs)
     (indices into outputs: the root diagram's exported and the logged
     ports), jac_lin_nrow in all.  Columns: the nxc continuous state
     elements, then the elements of the sources lin_inputs[0 ..
     n_lin_inputs) (indices into sources: the root's exported inputs, in
     the order of the context's u), jac_lin_ncol in all.  Compressed
     columns like jac_xc; jac_lin evaluates the outputs and the derivatives
     first.  jac_lin NULL (nnz 0) when a calc it needs is outside the
     differentiable subset; the blocks are always there. */
  int n_lin_outputs;
  const int *lin_outputs;
  int n_lin_inputs;
  const int *lin_inputs;
  int jac_lin_nrow, jac_lin_ncol, jac_lin_nnz;
  const int *jac_lin_colptr;       /* jac_lin_ncol + 1 */
  const int *jac_lin_rowind;       /* jac_lin_nnz */
  int (*jac_lin)(void *ctx, double *nz);
  /* 0: jac_lin is d(xcdot, y) / d(xc, u) as above.  h > 0: the model
     has one periodic discrete update of period h (every leaf's discrete
     updates share h and one offset, no other event writes state).  Purely
     discrete (nxc 0): jac_lin is d(x[n+1], y) / d(xd, u), the state rows
     and columns the nxd discrete state elements.  A sampled loop (nxc > 0,
     nxd > 0): jac_lin is d(xcdot, y) / d(xc, xd, u), the nxd discrete
     state columns between xc and u (jac_lin_ncol = nxc + nxd + nu), and
     the update's Jacobian is jac_updates[0]. */
  double lin_time_period;
  /* The calcs (as cache entry paths, e.g. "plant.xcdot") whose local
     Jacobian in jac_xc / jac_lin is formed by central differences of the
     calc, as the spec asks with jacobian = "finite_difference"; every
     other local Jacobian is exact. */
  int n_jac_fd;
  const char *const *jac_fd_calcs;
  /* d(xcdot or x[n+1], y) / d p for the numeric parameters the spec lists
     in parameter_jacobian (docs/jacobians.md, "Parameter Jacobian"): rows
     as jac_lin's (jac_p_nrow = jac_lin_nrow), columns the elements of the
     sources jac_params[0 .. n_jac_params) (jac_p_ncol in all), the state
     and inputs held fixed; compressed columns like jac_xc.  jac_p NULL
     (and nnz 0) when none is asked for or a calc it needs is outside the
     differentiable subset. */
  int n_jac_params;
  const int *jac_params;
  int jac_p_nrow, jac_p_ncol, jac_p_nnz;
  const int *jac_p_colptr;
  const int *jac_p_rowind;
  int (*jac_p)(void *ctx, double *nz);
  /* ABI 7: one Jacobian per timing of the periodic discrete updates
     (above), in order of the timings' first events. */
  int n_jac_updates;
  const diagc_jac_update_desc *jac_updates;
  /* cache[first_jac_cache .. n_cache) are the generated Jacobians
     ("jac_xc", "jac_lin", "jac_p", "jac_update0", ...), cache entries with
     tickets, valid bits and counters of their own: eval_cache brings one
     up to date and points *value at its nonzeros (size = nnz). */
  int first_jac_cache;
} diagc_model;

/* FFI-END */

/* Helpers used by generated code: counters of invalidations. */
static inline void diagc_count_bits(uint64_t *counts, uint64_t mask) {
  while (mask) {
    int b = 0;
    uint64_t m = mask & (~mask + 1u);
    while (!((m >> b) & 1u)) b++;
    counts[b]++;
    mask &= mask - 1u;
  }
}

#ifdef __cplusplus
}
#endif
#endif
