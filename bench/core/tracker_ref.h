/* bench/tracker_ref.h: a C model of Drake's *run-time* cache-invalidation
 * machinery, used as the baseline in bench/run.
 *
 * What is modelled (after Drake's systems/framework at be259df724; see
 * docs/PERFORMANCE.md for the list of deliberate simplifications):
 *   - System-side objects (systems, ports, cache entries) separate from
 *     Context-side objects (contexts, trackers, cache-entry values); the
 *     contexts hold no pointers to systems.
 *   - One DependencyTracker per ticket per context, each a separate heap
 *     object with heap arrays of subscriber and prerequisite pointers,
 *     built once at context allocation in Drake's order.
 *   - The built-in trackers of every context (nothing, t, accuracy, q, v,
 *     z, xc, xd, xa, x, pn, pa, p, all_sources_except_input_ports, u,
 *     all_sources, configuration, kinematics, xcdot, pe, ke, pc, pnc,
 *     xd_unique_periodic_update) with Drake's subscriptions, the cache
 *     entries every System declares (potential/kinetic energy, conservative
 *     and non-conservative power, time derivatives, unique periodic discrete
 *     update), the diagram "up" subscriptions to each child, per-port
 *     trackers, fixed-input-value trackers, and suppression of empty state
 *     kinds in leaf contexts.
 *   - A root change-event counter; NoteValueChange / NotePrerequisiteChange
 *     with the last-change-event check and the received/ignored/sent
 *     statistics; out-of-date flags on cache-entry values.
 *   - Lazy Eval: output port -> cache entry -> Calc, which pulls its inputs
 *     through the parent diagram (exported-input and connection look-ups
 *     in sorted maps, subsystem index look-up) to upstream output ports.
 *   - Bulk changes (parameters) go through PropagateBulkChange, which notes
 *     the lowest-level trackers of every subcontext below the one changed.
 */
#ifndef DIAGC_BENCH_TRACKER_REF_H
#define DIAGC_BENCH_TRACKER_REF_H

#include <stdint.h>

/* Built-in ticket numbers (Drake's internal::BuiltInTicketNumbers). */
enum {
  TR_NOTHING = 0,
  TR_TIME = 1,
  TR_ACCURACY = 2,
  TR_Q = 3,
  TR_V = 4,
  TR_Z = 5,
  TR_XC = 6,
  TR_XD = 7,
  TR_XA = 8,
  TR_X = 9,
  TR_PN = 10,
  TR_PA = 11,
  TR_P = 12,
  TR_ALL_SOURCES_EXCEPT_INPUT_PORTS = 13,
  TR_ALL_INPUT_PORTS = 14,
  TR_ALL_SOURCES = 15,
  TR_CONFIGURATION = 16,
  TR_KINEMATICS = 17,
  TR_XCDOT = 18,
  TR_PE = 19,
  TR_KE = 20,
  TR_PC = 21,
  TR_PNC = 22,
  TR_XD_UNIQUE_PERIODIC_UPDATE = 23,
  TR_NEXT_AVAILABLE = 24
};

typedef struct tr_system tr_system;
typedef struct tr_context tr_context;

/* BasicVector<double>: its data lives in a separate heap block. */
typedef struct tr_vector {
  int size;
  double *data;
} tr_vector;

/* AbstractValue holding a BasicVector (type-tagged, checked on access). */
typedef struct tr_value {
  int type_tag;
  tr_vector *vec;
} tr_value;

/* FixedInputPortValue. */
typedef struct tr_fixed_input {
  tr_context *owner;
  int port;
  int ticket;
  int64_t serial;
  tr_value *value;
} tr_fixed_input;

/* Calc(context, value) of a cache entry. */
typedef void (*tr_calc_fn)(const tr_system *sys, const tr_context *ctx, tr_value *out);

/* ---- building systems (System side) ---- */
tr_system *tr_leaf_new(const char *name);
void tr_leaf_declare_continuous_state(tr_system *s, int nq, int nv, int nz);
int tr_leaf_declare_discrete_state(tr_system *s, int size); /* -> ticket */
int tr_leaf_declare_numeric_parameter(tr_system *s, int size, double dflt); /* -> ticket */
int tr_declare_input_port(tr_system *s, int size);            /* -> ticket */
int tr_input_port_ticket(const tr_system *s, int port);
/* A vector output port with its own cache entry; prereqs are tickets of s. */
int tr_leaf_declare_output_port(tr_system *s, int size, tr_calc_fn calc,
                                int n_prereqs, const int *prereqs); /* -> port index */

tr_system *tr_diagram_new(const char *name);
void tr_diagram_add(tr_system *d, tr_system *child);
void tr_diagram_connect(tr_system *d, tr_system *src, int out_port, tr_system *dst, int in_port);
int tr_diagram_export_input(tr_system *d, tr_system *child, int in_port); /* -> diagram port */
int tr_diagram_export_output(tr_system *d, tr_system *child, int out_port);
void tr_diagram_finalize(tr_system *d); /* builds the sorted look-up maps */

/* ---- contexts ---- */
tr_context *tr_allocate_context(const tr_system *s);
tr_context *tr_subcontext(tr_context *diagram_ctx, int i);
tr_fixed_input *tr_fix_input(tr_context *ctx, int port, int size, const double *v);
/* FixedInputPortValue::GetMutableData(): notifies, then grants access. */
tr_vector *tr_fixed_input_get_mutable_vector(tr_fixed_input *f);
/* Context::get_mutable_numeric_parameter(i). */
tr_vector *tr_get_mutable_numeric_parameter(tr_context *ctx, int i);
const tr_vector *tr_get_numeric_parameter(const tr_context *ctx, int i);

/* ---- evaluation ---- */
const tr_vector *tr_eval_output(const tr_system *s, int port, const tr_context *ctx);
const tr_vector *tr_eval_vector_input(const tr_system *s, const tr_context *ctx, int port);
tr_vector *tr_value_mutable_vector(tr_value *v);

/* ---- statistics (summed over every tracker of the context tree) ---- */
typedef struct tr_stats {
  int64_t trackers, subscriptions, cache_values;
  int64_t value_change_received, prereq_received, ignored, sent;
} tr_stats;
void tr_collect_stats(const tr_context *ctx, tr_stats *st);

#endif
