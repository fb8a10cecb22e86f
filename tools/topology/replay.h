/* replay.h: replays an iRobot benchmark topology in-process on an executor
 * backend (diagc's executor, or the baseline in bench/executor/).
 *
 * Nodes become mutually exclusive callback groups; nodes with the same
 * executor_id share one executor (spun by its own thread with `threads`
 * workers); publishers become timers that stamp {time, tracking number,
 * frequency, size} into a fixed-size message and deliver it into the bounded
 * queue of every subscription of the topic; subscriptions score latency
 * (receive time minus stamp), late, too late and lost (sequence gaps). */
#ifndef DIAGC_TOOLS_REPLAY_H
#define DIAGC_TOOLS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "diagc/executor.h"

/* An executor backend: the subset of diagc/executor.h the replay needs. */
typedef struct replay_backend {
  const char *name;
  void *(*create)(int threads);
  int (*add_group)(void *ex);
  int (*add_timer)(void *ex, int group, int64_t period_ns, int64_t offset_ns, diagc_exec_fn fn, void *user);
  int (*add_subscription)(void *ex, int group, size_t msg_size, int depth, diagc_exec_fn fn, void *user);
  int (*prepare)(void *ex);
  int (*deliver)(void *ex, int sub, const void *msg, size_t size);
  void (*spin)(void *ex);                /* blocks until shutdown */
  void (*stop_timers)(void *ex);
  int (*idle)(void *ex);
  /* stops; adds the messages still queued to *pending and the evicted or
   * refused ones to *dropped */
  void (*shutdown)(void *ex, uint64_t *pending, uint64_t *dropped);
  void (*destroy)(void *ex);
  /* after prepare: the timers first fire at t_ns + their offset (every
   * executor in phase, however long preparing took) */
  void (*start_at)(void *ex, int64_t t_ns);
} replay_backend;

extern const replay_backend replay_diagc_backend;

typedef struct replay_topic_stats {
  char name[64];
  double period_ms;
  size_t msg_bytes;
  int subscribers;
  uint64_t published;   /* messages x subscribers offered */
  uint64_t received, late, too_late, lost, dropped;
  double mean_us, sd_us, min_us, max_us;  /* over received - too_late */
} replay_topic_stats;

typedef struct replay_result {
  int ntopics, executors, threads;
  replay_topic_stats *topics;
  uint64_t published, received, late, too_late, lost, dropped, pending;
  double mean_us, max_us;
  double duration_s, cpu_percent;
  long max_rss_kb;
  /* with the stall probe (replay_run's `probe`): */
  int probe, probe_cpus, probe_top_priority; /* probes at the top SCHED_FIFO priority */
  uint64_t probe_wakeups, probe_stalls; /* stalls: wake-ups >= 0.5 ms late */
  double probe_max_us, probe_stalled_ms;
  uint64_t late_recorded;               /* late messages (too late included) */
  uint64_t late_in_stall;               /* ... in flight during a stall */
} replay_result;

typedef struct replay_topology replay_topology;

/* Parses and validates a topology file.  On error returns NULL with a
 * one-line message in err. */
replay_topology *replay_load(const char *path, char *err, size_t errlen);
void replay_free(replay_topology *t);
/* Runs for duration_s seconds (wall clock), then stops the publishers,
 * drains every queue and scores.  Returns 0, or -1 with a message in err.
 * probe != 0: meanwhile one probe thread per CPU (pinned, at the highest
 * SCHED_FIFO priority if permitted, else with the calling thread's
 * scheduling) wakes every 1 ms and measures how late it wakes; the result
 * counts the stalls (wake-ups >= 0.5 ms late) and the late messages whose
 * flight [stamp, receive] overlaps one. */
int replay_run(const replay_topology *t, const replay_backend *be, int threads, double duration_s, int probe,
               replay_result *res, char *err, size_t errlen);
/* The same on a deterministic virtual clock: every node in one diagc
 * executor with a manual clock and one worker; time jumps from one timer to
 * the next until duration_s (publishers fire at k*period < duration_s);
 * stamps and receive times are virtual, so latencies are 0 and the counts
 * are exact. */
int replay_run_virtual(const replay_topology *t, double duration_s, replay_result *res, char *err, size_t errlen);
void replay_result_free(replay_result *res);

#endif
