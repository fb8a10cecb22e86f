/* baseline.h: the comparison executor of bench/executor.  Its structure
 * follows rclcpp's Single/MultiThreadedExecutor: no per-group queues, one
 * global "ready set" rebuilt by scanning every entity on each wait (a
 * source with 100 pending messages contributes one callback per pass, like
 * one with 1), timers first in each pass, and in multi-threaded mode
 * entities of busy mutually exclusive groups are masked out of the rebuilt
 * set.  Timers are "called" (advanced to their next period) when taken.
 * Bounded queues with drop-oldest, like a KEEP_LAST history. */
#ifndef DIAGC_BENCH_BASELINE_H
#define DIAGC_BENCH_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "diagc/executor.h"

typedef struct base_exec base_exec;

base_exec *base_create(int threads, int max_entities);
int base_add_group(base_exec *ex);
int base_add_timer(base_exec *ex, int group, int64_t period_ns, int64_t offset_ns, diagc_exec_fn fn, void *user);
int base_add_subscription(base_exec *ex, int group, size_t msg_size, int depth, diagc_exec_fn fn, void *user);
int base_add_guard(base_exec *ex, int group, diagc_exec_fn fn, void *user);
int base_prepare(base_exec *ex);
/* After prepare: every timer next fires at epoch_ns + its offset. */
void base_set_epoch(base_exec *ex, int64_t epoch_ns);
int base_deliver(base_exec *ex, int sub, const void *msg, size_t size);
int base_trigger(base_exec *ex, int guard);
/* One harvest, each ready entity executed once (rclcpp spin_some). */
int base_spin_some(base_exec *ex);
/* Runs until shutdown, with `threads` workers (the caller and helpers). */
int base_spin(base_exec *ex);
void base_stop_timers(base_exec *ex);
int base_idle(base_exec *ex);
void base_shutdown(base_exec *ex, uint64_t *pending, uint64_t *dropped);
void base_destroy(base_exec *ex);

#endif
