/* diagc-topology: replays an iRobot benchmark topology on diagc's executor.
 *
 *   diagc-topology FILE.json [--threads N] [--duration S] [--json] [--virtual]
 *                  [--rt-priority P] [--probe]
 *
 * Prints per topic and in total: received messages, mean/sd/min/max
 * latency, late (> min(20% of the period, 5 ms)), too late (> min(period,
 * 50 ms); excluded from the latency statistics) and lost (gaps in the
 * tracking number), plus CPU and RSS.  --json prints the totals as one JSON
 * object.  --probe also measures the stalls of every CPU (see replay.h) and
 * how many late messages were in flight during one.  Bad arguments or input: one line on stderr, exit status 2. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "diagc-topology: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
  return 2;
}

static int parse_num(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) return 0;
  *out = v;
  return 1;
}

int main(int argc, char **argv) {
  const char *file = NULL;
  int threads = 1, as_json = 0, virtual_clock = 0, rt_priority = 0, probe = 0;
  double duration = 5.0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf("usage: diagc-topology FILE.json [--threads N] [--duration S] [--json] [--virtual]\n"
             "                      [--rt-priority P] [--probe]\n"
             "  --threads N   workers per executor (0 = max(hardware threads, 2); default 1)\n"
             "  --duration S  seconds of publishing (default 5)\n"
             "  --json        print the totals as one JSON object\n"
             "  --virtual     deterministic virtual clock: one executor, one worker, time\n"
             "                jumps from timer to timer (latencies are 0, counts exact)\n"
             "  --rt-priority P  run every thread SCHED_FIFO at priority P (1..99), so\n"
             "                other processes cannot delay them (needs root or\n"
             "                CAP_SYS_NICE); default: normal scheduling\n"
             "  --probe       one probe thread per CPU (top SCHED_FIFO priority if\n"
             "                permitted) wakes every 1 ms and measures how late it wakes\n"
             "                (stalls: >= 0.5 ms); reports the stalls and the late\n"
             "                messages in flight during one\n");
      return 0;
    } else if (strcmp(a, "--json") == 0) {
      as_json = 1;
    } else if (strcmp(a, "--virtual") == 0) {
      virtual_clock = 1;
    } else if (strcmp(a, "--probe") == 0) {
      probe = 1;
    } else if (strcmp(a, "--threads") == 0 || strcmp(a, "--duration") == 0 ||
               strcmp(a, "--rt-priority") == 0) {
      if (i + 1 >= argc) return usage_error("missing value after", a);
      double v;
      if (strcmp(a, "--rt-priority") == 0) {
        if (!parse_num(argv[i + 1], 1, 98, &v) || v != (int)v)
          return usage_error("--rt-priority expects an integer in [1, 98], got", argv[i + 1]);
        rt_priority = (int)v;
      } else if (strcmp(a, "--threads") == 0) {
        if (!parse_num(argv[i + 1], 0, 256, &v) || v != (int)v)
          return usage_error("--threads expects an integer in [0, 256], got", argv[i + 1]);
        threads = (int)v;
      } else {
        if (!parse_num(argv[i + 1], 0.001, 86400, &v))
          return usage_error("--duration expects seconds in [0.001, 86400], got", argv[i + 1]);
        duration = v;
      }
      i++;
    } else if (a[0] == '-') {
      return usage_error("unknown option", a);
    } else if (file) {
      return usage_error("expected one topology file, got another:", a);
    } else {
      file = a;
    }
  }
  if (!file) return usage_error("expected a topology file (see --help)", NULL);
  if (probe && virtual_clock) return usage_error("--probe measures wall-clock stalls: not with --virtual", NULL);
  if (rt_priority > 0) {
    /* every thread started from here on inherits the policy */
    struct sched_param sp;
    memset(&sp, 0, sizeof sp);
    sp.sched_priority = rt_priority;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      return usage_error(errno == EPERM ? "--rt-priority: real-time scheduling is not permitted "
                                          "(run as root or grant CAP_SYS_NICE)"
                                        : "--rt-priority: cannot set SCHED_FIFO", NULL);
  }
  char err[512];
  replay_topology *t = replay_load(file, err, sizeof err);
  if (!t) return usage_error(err, NULL);
  replay_result r;
  int rc = virtual_clock ? replay_run_virtual(t, duration, &r, err, sizeof err)
                         : replay_run(t, &replay_diagc_backend, threads, duration, probe, &r, err, sizeof err);
  replay_free(t);
  if (rc) {
    fprintf(stderr, "diagc-topology: %s\n", err);
    replay_result_free(&r);
    return 1;
  }
  if (as_json) {
    printf("{\"received\": %llu, \"mean_latency_us\": %.3f, \"max_latency_us\": %.3f, \"late\": %llu, "
           "\"too_late\": %llu, \"lost\": %llu, \"published\": %llu, \"dropped\": %llu, \"executors\": %d, "
           "\"threads\": %d, \"duration_s\": %.3f, \"cpu_percent\": %.2f, \"max_rss_kb\": %ld",
           (unsigned long long)r.received, r.mean_us, r.max_us, (unsigned long long)r.late,
           (unsigned long long)r.too_late, (unsigned long long)r.lost, (unsigned long long)r.published,
           (unsigned long long)r.dropped, r.executors, r.threads, r.duration_s, r.cpu_percent, r.max_rss_kb);
    if (r.probe)
      printf(", \"probe_cpus\": %d, \"probe_top_priority\": %d, \"probe_stalls\": %llu, \"probe_stalled_ms\": %.3f, \"probe_max_us\": %.1f, "
             "\"late_in_stall\": %llu",
             r.probe_cpus, r.probe_top_priority == r.probe_cpus, (unsigned long long)r.probe_stalls,
             r.probe_stalled_ms, r.probe_max_us, (unsigned long long)r.late_in_stall);
    printf("}\n");
  } else {
    printf("%s: %d executors x %d threads, %.2f s\n", file, r.executors, r.threads, r.duration_s);
    printf("%-16s %9s %9s %9s %9s %9s %9s %6s %8s %6s\n", "topic", "period_ms", "received", "mean_us", "sd_us",
           "min_us", "max_us", "late", "too_late", "lost");
    for (int k = 0; k < r.ntopics; k++) {
      const replay_topic_stats *s = &r.topics[k];
      printf("%-16s %9.3f %9llu %9.1f %9.1f %9.1f %9.1f %6llu %8llu %6llu\n", s->name, s->period_ms,
             (unsigned long long)s->received, s->mean_us, s->sd_us, s->min_us, s->max_us,
             (unsigned long long)s->late, (unsigned long long)s->too_late, (unsigned long long)s->lost);
    }
    double recv = (double)r.received;
    printf("total: received %llu, mean %.1f us, max %.1f us, late %llu (%.2f%%), too late %llu (%.2f%%), "
           "lost %llu (%.2f%%), cpu %.1f%%, rss %ld kB\n",
           (unsigned long long)r.received, r.mean_us, r.max_us, (unsigned long long)r.late,
           recv > 0 ? 100.0 * (double)r.late / recv : 0.0, (unsigned long long)r.too_late,
           recv > 0 ? 100.0 * (double)r.too_late / recv : 0.0, (unsigned long long)r.lost,
           recv + (double)r.lost > 0 ? 100.0 * (double)r.lost / (recv + (double)r.lost) : 0.0, r.cpu_percent,
           r.max_rss_kb);
    if (r.probe)
      printf("probe: %d CPUs (%s), %llu wake-ups, %llu stalls >= 0.5 ms (%.1f ms in all, longest %.1f us); "
             "late messages in flight during a stall: %llu of %llu\n",
             r.probe_cpus, r.probe_top_priority == r.probe_cpus ? "top SCHED_FIFO priority" : "replay's scheduling",
             (unsigned long long)r.probe_wakeups, (unsigned long long)r.probe_stalls,
             r.probe_stalled_ms, r.probe_max_us, (unsigned long long)r.late_in_stall,
             (unsigned long long)r.late_recorded);
  }
  replay_result_free(&r);
  return 0;
}
