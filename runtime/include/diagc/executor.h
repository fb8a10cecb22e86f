/* diagc/executor.h: a callback-group executor.
 *
 * Runs callbacks of entities (timers, subscriptions, service/client pairs,
 * guard conditions) on 1..N worker threads.  Every entity belongs to one
 * callback group, which is either mutually exclusive (never two of its
 * callbacks at once) or reentrant.  Design (see docs/executor.md):
 *
 *  - Every ready event is one item in its group's FIFO, stamped with a
 *    global sequence number.  There is no wait set: sources push items.
 *  - Groups with work sit in one FIFO of ready groups; a group enters it
 *    only on its idle -> has-work transition.  A mutually exclusive group
 *    leaves it while one of its items runs and rejoins at the tail if it
 *    still has work (round robin across groups, FIFO inside a group); a
 *    reentrant group rejoins the tail as soon as an item is taken, so
 *    several workers drain it.
 *  - One worker is woken per ready transition ("searching" flag: no
 *    thundering herd); a worker that takes an item while other groups are
 *    ready wakes one more.
 *  - A due timer is disarmed and queues one item; it is re-armed only when
 *    its callback returns (missed periods are skipped and counted), so a
 *    timer never has more than one pending event and never bursts.
 *  - There is no timer thread.  While spin or spin_until runs, one idle
 *    worker (the "keeper") waits with a timeout until the executor's next
 *    timer deadline, then queues the due timers and runs the first itself;
 *    the other idle workers wait without a timeout.  Deliveries, triggers
 *    and finished callbacks also queue timers that have come due, so a
 *    timer's item is ordered by its due time among the other items.
 *  - Ordering inside a group: FIFO by sequence number (default), or
 *    timers first (opt-in per executor; an overrunning timer can then
 *    starve the group's other entities).
 *  - One mutex per executor protects every queue and timer; callbacks run
 *    without it.  There is no second lock, so no lock-order inversion.
 *
 * Memory: diagc_exec_create() allocates the tables for the configured
 * maximum numbers of groups and entities; adding entities allocates their
 * fixed-capacity queues (depth x message size); the first spin (or
 * diagc_exec_prepare) allocates the per-group FIFOs, sized to the sum of
 * their entities' capacities so that they can never overflow, and starts
 * the worker threads (threads - 1 of them; the spinning thread is the
 * first worker).  After that nothing allocates: deliveries,
 * timers and spins use only this memory, which diagc_exec_destroy() frees.
 *
 * Topology is fixed at setup: groups and entities can be added only before
 * the executor is prepared.
 *
 * C11 + POSIX threads.
 */
#ifndef DIAGC_EXECUTOR_H
#define DIAGC_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: DIAGC_OK, an id or a count (>= 0) on success; on failure
 * a negative DIAGC_EXEC_E_* code (diagc/status.h). */

/* Ordering of items inside a group. */
#define DIAGC_EXEC_FIFO 0
#define DIAGC_EXEC_TIMERS_FIRST 1

/* Clocks. */
#define DIAGC_CLOCK_MONOTONIC 0     /* CLOCK_MONOTONIC; idle workers wait
                                       for the next timer deadline */
#define DIAGC_CLOCK_MANUAL 1        /* time moves only through
                                       diagc_exec_advance_clock();
                                       deterministic */

/* Group kinds. */
#define DIAGC_GROUP_EXCLUSIVE 0
#define DIAGC_GROUP_REENTRANT 1

/* Overflow policies of bounded queues. */
#define DIAGC_OVERFLOW_DROP_OLDEST 0
#define DIAGC_OVERFLOW_REJECT 1

/* Entity kinds. */
#define DIAGC_ENT_TIMER 0
#define DIAGC_ENT_SUBSCRIPTION 1
#define DIAGC_ENT_SERVICE 2
#define DIAGC_ENT_CLIENT 3
#define DIAGC_ENT_GUARD 4
#define DIAGC_ENT_KINDS 5

typedef struct diagc_exec diagc_exec;

typedef struct diagc_exec_config {
  int threads;        /* workers: 0 = max(hardware threads, 2); 1 = the
                         spinning thread only (deterministic) */
  int ordering;       /* DIAGC_EXEC_FIFO (default) or _TIMERS_FIRST */
  int clock;          /* DIAGC_CLOCK_MONOTONIC (default) or _MANUAL */
  int max_groups;     /* capacity of the group table (default 64) */
  int max_entities;   /* capacity of the entity table (default 256) */
  int rt_priority;    /* 0 (default): the executor's threads inherit the
                         scheduling of the thread that prepares it; 1..99:
                         its worker threads run SCHED_FIFO at this priority
                         (they also fire the timers: there is no timer
                         thread), so other processes cannot delay them.  Needs
                         CAP_SYS_NICE (or root); without it, prepare/spin
                         fail with DIAGC_EXEC_E_SCHED.  The spinning thread
                         itself is the caller's: set its policy yourself. */
} diagc_exec_config;

/* What a callback receives.  `data` is valid during the call only. */
typedef struct diagc_exec_event {
  int entity;           /* entity id */
  int kind;             /* DIAGC_ENT_* */
  int worker;           /* 0 = the spinning thread, 1.. = helper threads */
  uint64_t seq;         /* global sequence number of the item */
  int64_t time_ns;      /* timer: scheduled time; others: arrival time
                           (executor clock) */
  const void *data;     /* message, request (service) or response (client) */
  size_t size;
  void *response;       /* service: the response to fill (response_size
                           bytes, zeroed); NULL otherwise */
  size_t response_size;
} diagc_exec_event;

typedef void (*diagc_exec_fn)(void *user, const diagc_exec_event *ev);
/* Called (without the executor lock) when a delivery dropped the oldest
 * message (`rejected` = 0) or was refused (`rejected` = 1). */
typedef void (*diagc_exec_overflow_fn)(void *user, int entity, int rejected);
/* spin_until predicate; called from worker threads: must be thread-safe. */
typedef int (*diagc_exec_pred)(void *user);

typedef struct diagc_exec_entity_stats {
  int kind, group;
  int capacity;           /* queue depth (1 for timers and guards) */
  int high_water;         /* largest number of items ever queued */
  int queued;             /* items queued now */
  uint64_t offered;       /* delivery attempts (timers: firings) */
  uint64_t accepted;      /* entered the queue */
  uint64_t rejected;      /* refused: queue full (reject) or shut down */
  uint64_t dropped;       /* accepted, then evicted (drop oldest) */
  uint64_t coalesced;     /* guard triggers merged into a pending one */
  uint64_t run;           /* callbacks completed */
  uint64_t missed_periods;/* timer periods skipped after an overrun */
} diagc_exec_entity_stats;

/* Invariants, per entity and in total:
 *   offered  = accepted + rejected + coalesced
 *   accepted = run + pending + dropped            (+ running while spinning) */
typedef struct diagc_exec_report {
  uint64_t offered, accepted, rejected, dropped, coalesced, run, pending;
  uint64_t pending_by_kind[DIAGC_ENT_KINDS];
} diagc_exec_report;

void diagc_exec_config_init(diagc_exec_config *cfg);
/* cfg may be NULL for defaults.  Returns NULL on bad config / no memory. */
diagc_exec *diagc_exec_create(const diagc_exec_config *cfg);
/* Shuts down if needed, joins every thread, frees everything. */
void diagc_exec_destroy(diagc_exec *ex);

/* ---- setup (before the first spin / diagc_exec_prepare) ---------------- */

/* Returns a group id >= 0 or an error. */
int diagc_exec_add_group(diagc_exec *ex, int kind);
/* Timer firing first at epoch + offset_ns, then every period_ns. */
int diagc_exec_add_timer(diagc_exec *ex, int group, int64_t period_ns,
                         int64_t offset_ns, diagc_exec_fn fn, void *user);
/* A subscription: a bounded queue of `depth` messages of at most
 * msg_size bytes each. */
int diagc_exec_add_subscription(diagc_exec *ex, int group, size_t msg_size,
                                int depth, int overflow, diagc_exec_fn fn,
                                void *user);
/* A service answering requests of at most req_size bytes with responses of
 * response_size bytes; `depth` requests may wait. */
int diagc_exec_add_service(diagc_exec *ex, int group, size_t req_size,
                           size_t response_size, int depth, int overflow,
                           diagc_exec_fn fn, void *user);
/* A client of `service` (same executor); its callback receives responses. */
int diagc_exec_add_client(diagc_exec *ex, int group, int service, int depth,
                          int overflow, diagc_exec_fn fn, void *user);
int diagc_exec_add_guard(diagc_exec *ex, int group, diagc_exec_fn fn, void *user);
void diagc_exec_set_overflow_hook(diagc_exec *ex, diagc_exec_overflow_fn fn,
                                  void *user);
/* Ends setup: allocates the group FIFOs, starts the threads, arms the
 * timers (epoch = now).  Called by the first spin if not called before. */
int diagc_exec_prepare(diagc_exec *ex);
/* After prepare: moves the epoch, so that every armed timer next fires at
 * epoch_ns + its offset (executor clock; a timer whose item is queued or
 * running keeps its phase until it is re-armed).  Preparing several
 * executors, then giving them one epoch a little ahead, starts their
 * timers in phase, whatever the time spent preparing each. */
int diagc_exec_set_epoch(diagc_exec *ex, int64_t epoch_ns);

/* ---- events (thread-safe, any thread, also from callbacks) ------------- */

/* Copies `size` bytes (<= the subscription's msg_size) into the queue. */
int diagc_exec_deliver(diagc_exec *ex, int subscription, const void *msg,
                       size_t size);
int diagc_exec_trigger(diagc_exec *ex, int guard);
/* Sends a request from `client` to its service. */
int diagc_exec_call(diagc_exec *ex, int client, const void *req, size_t size);
/* Manual clock only: sets the time (monotone) and queues every due timer,
 * in order of due time, then timer id. */
int diagc_exec_advance_clock(diagc_exec *ex, int64_t t_ns);

/* ---- spinning (one spin at a time) ------------------------------------- */

/* Runs until diagc_exec_shutdown() or diagc_exec_cancel(). */
int diagc_exec_spin(diagc_exec *ex);
/* Runs exactly the items queued when it is called (due timers are queued
 * first) and returns when they are done. */
int diagc_exec_spin_some(diagc_exec *ex);
/* Runs until pred(user) is true (pred may be NULL), the executor clock
 * reaches deadline_ns (< 0: none; manual clock: checked when idle) or
 * shutdown.  Returns 1 if the predicate held, 0 on deadline. */
int diagc_exec_spin_until(diagc_exec *ex, diagc_exec_pred pred, void *user,
                          int64_t deadline_ns);
/* Makes the current spin return (after running callbacks finish). */
void diagc_exec_cancel(diagc_exec *ex);
/* Stops the timers (no more firings; queued timer items stay queued). */
void diagc_exec_stop_timers(diagc_exec *ex);
/* 1 if nothing is queued and no callback runs. */
int diagc_exec_idle(diagc_exec *ex);
/* Stops: timers stop, later deliveries are rejected, a running spin
 * returns once its running callbacks finish (waited for, unless called
 * from a callback).  Fills `report` (may be NULL) with the totals; items
 * still queued are `pending`.  Idempotent. */
int diagc_exec_shutdown(diagc_exec *ex, diagc_exec_report *report);

/* ---- introspection ------------------------------------------------------ */

int64_t diagc_exec_now(diagc_exec *ex);    /* executor clock, ns */
int64_t diagc_exec_epoch(diagc_exec *ex);  /* clock value at prepare */
int diagc_exec_threads(const diagc_exec *ex);
int diagc_exec_get_stats(diagc_exec *ex, int entity,
                            diagc_exec_entity_stats *st);
int diagc_exec_report_totals(diagc_exec *ex, diagc_exec_report *report);
int64_t diagc_monotonic_ns(void);          /* CLOCK_MONOTONIC in ns */

/* ---- topics: fan-out of one message to subscriptions of any executor --- */

typedef struct diagc_bus diagc_bus;
diagc_bus *diagc_bus_create(int max_topics, int max_links);
void diagc_bus_destroy(diagc_bus *bus);
/* Returns the id of topic `name` (created on first use), or an error. */
int diagc_bus_topic(diagc_bus *bus, const char *name);
const char *diagc_bus_topic_name(const diagc_bus *bus, int topic);
int diagc_bus_topics(const diagc_bus *bus);
/* Setup: deliver messages of `topic` to (ex, subscription). */
int diagc_bus_subscribe(diagc_bus *bus, int topic, diagc_exec *ex, int subscription);
/* Delivers to every linked subscription; returns the number that accepted.
 * Not to be called concurrently with diagc_bus_subscribe/topic. */
int diagc_bus_publish(diagc_bus *bus, int topic, const void *msg, size_t size);

#ifdef __cplusplus
}
#endif
#endif
