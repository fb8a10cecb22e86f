/* The firings of a run's events as text (diagc run's side file of --csv);
 * see diagc/csv.h. */
#include <string.h>

#include "diagc/csv.h"

void diagc_firings_writer_init(diagc_firings_writer *w, const diagc_model *m,
                               FILE *out, long long *counts,
                               long long max_rows) {
  w->out = out;
  w->m = m;
  w->counts = counts;
  w->max_rows = max_rows > 0 ? max_rows : 1;
  w->rows = 0;
  w->error = 0;
  if (counts && m->n_events > 0)
    memset(counts, 0, (size_t)m->n_events * sizeof *counts);
}

int diagc_firings_write_header(diagc_firings_writer *w, double t0,
                               double t_end) {
  char a[DIAGC_DOUBLE_BUFSIZE], b[DIAGC_DOUBLE_BUFSIZE];
  diagc_format_double(a, sizeof a, t0);
  diagc_format_double(b, sizeof b, t_end);
  if (fprintf(w->out, "# diagc firings t0=%s t_end=%s\nt,event\n", a, b) < 0)
    w->error = 1;
  return w->error ? DIAGC_CSV_E_IO : DIAGC_OK;
}

void diagc_firings_callback(void *user, double t, int event) {
  diagc_firings_writer *w = (diagc_firings_writer *)user;
  char num[DIAGC_DOUBLE_BUFSIZE];
  const diagc_event_desc *e;
  if (event < 0 || event >= w->m->n_events) return;
  e = &w->m->events[event];
  if (e->trigger == DIAGC_TRIGGER_PERIODIC) return;
  if (++w->counts[event] > w->max_rows) return;
  diagc_format_double(num, sizeof num, t);
  if (fputs(num, w->out) < 0 || fputc(',', w->out) == EOF ||
      fputs(e->name ? e->name : "", w->out) < 0 || fputc('\n', w->out) == EOF)
    w->error = 1;
  w->rows++;
}

int diagc_firings_write_omitted(diagc_firings_writer *w) {
  int i;
  for (i = 0; i < w->m->n_events; i++) {
    const long long n = w->counts[i] - w->max_rows;
    if (n > 0 && fprintf(w->out, "# omitted %s %lld\n",
                         w->m->events[i].name ? w->m->events[i].name : "",
                         n) < 0)
      w->error = 1;
  }
  return w->error ? DIAGC_CSV_E_IO : DIAGC_OK;
}
