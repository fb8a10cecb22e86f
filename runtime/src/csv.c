/* CSV output of logger samples; see diagc/csv.h. */
#include "diagc/csv.h"

#include <string.h>

void diagc_csv_writer_init(diagc_csv_writer *w, const diagc_model *m,
                           FILE *out) {
  w->out = out;
  w->m = m;
  w->rows = 0;
  w->error = 0;
}

/* Writes s, quoted if it needs to be, with an optional suffix: "[i]", or
 * ".name" when the element has a name (diagc_value_desc.elements). */
static void put_name(diagc_csv_writer *w, const char *s, int index,
                     const char *element) {
  char suffix[24] = "";
  int quote;
  if (!s) s = "";
  if (index >= 0) snprintf(suffix, sizeof suffix, "[%d]", index);
  if (element) {
    quote = strpbrk(s, ",\"\r\n") != NULL || strpbrk(element, ",\"\r\n") != NULL;
    if (quote && fputc('"', w->out) == EOF) w->error = 1;
    for (; *s; s++) {
      if (quote && *s == '"' && fputc('"', w->out) == EOF) w->error = 1;
      if (fputc(*s, w->out) == EOF) w->error = 1;
    }
    if (fputc('.', w->out) == EOF) w->error = 1;
    for (; *element; element++) {
      if (quote && *element == '"' && fputc('"', w->out) == EOF) w->error = 1;
      if (fputc(*element, w->out) == EOF) w->error = 1;
    }
    if (quote && fputc('"', w->out) == EOF) w->error = 1;
    return;
  }
  quote = strpbrk(s, ",\"\r\n") != NULL;
  if (!quote) {
    if (fputs(s, w->out) < 0 || fputs(suffix, w->out) < 0) w->error = 1;
    return;
  }
  if (fputc('"', w->out) == EOF) w->error = 1;
  for (; *s; s++) {
    if (*s == '"' && fputc('"', w->out) == EOF) w->error = 1;
    if (fputc(*s, w->out) == EOF) w->error = 1;
  }
  if (fputs(suffix, w->out) < 0 || fputc('"', w->out) == EOF) w->error = 1;
}

int diagc_csv_write_header(diagc_csv_writer *w) {
  int i, k;
  if (fputc('t', w->out) == EOF) w->error = 1;
  for (i = 0; i < w->m->n_loggers; i++) {
    const diagc_logger_desc *l = &w->m->loggers[i];
    const char *const *el = NULL;
    if (l->output >= 0 && l->output < w->m->n_outputs)
      el = w->m->outputs[l->output].elements;
    if (l->size == 1 && !el) {
      if (fputc(',', w->out) == EOF) w->error = 1;
      put_name(w, l->name, -1, NULL);
    } else {
      for (k = 0; k < l->size; k++) {
        if (fputc(',', w->out) == EOF) w->error = 1;
        put_name(w, l->name, el ? -1 : k, el ? el[k] : NULL);
      }
    }
  }
  if (fputc('\n', w->out) == EOF) w->error = 1;
  return w->error ? DIAGC_CSV_E_IO : DIAGC_OK;
}

int diagc_csv_write_row(diagc_csv_writer *w, double t,
                        const unsigned char *fired,
                        const double *const *values) {
  char num[DIAGC_DOUBLE_BUFSIZE];
  int i, k;
  diagc_format_double(num, sizeof num, t);
  if (fputs(num, w->out) < 0) w->error = 1;
  for (i = 0; i < w->m->n_loggers; i++) {
    const int size = w->m->loggers[i].size;
    const int on = fired[i] && values[i] != NULL;
    for (k = 0; k < size; k++) {
      if (fputc(',', w->out) == EOF) w->error = 1;
      if (on) {
        diagc_format_double(num, sizeof num, values[i][k]);
        if (fputs(num, w->out) < 0) w->error = 1;
      }
    }
  }
  if (fputc('\n', w->out) == EOF) w->error = 1;
  w->rows++;
  return w->error ? DIAGC_CSV_E_IO : DIAGC_OK;
}

void diagc_csv_log_callback(void *user, double t, const unsigned char *fired,
                            const double *const *values) {
  (void)diagc_csv_write_row((diagc_csv_writer *)user, t, fired, values);
}

int diagc_run_csv(const diagc_model *m, const diagc_sim_options *opt,
                  double t_end, FILE *out, char *err, size_t errlen) {
  diagc_csv_writer w;
  diagc_sim *sim;
  int rc;

  if (err && errlen) err[0] = 0;
  sim = diagc_sim_create_ex(m, opt, err, errlen);
  if (!sim) {
    if (err && errlen && !err[0])
      snprintf(err, errlen, "cannot create simulator");
    return DIAGC_SIM_E_MODEL;
  }
  diagc_csv_writer_init(&w, m, out);
  if (diagc_csv_write_header(&w) != 0) {
    if (err && errlen) snprintf(err, errlen, "write error on the CSV output");
    diagc_sim_destroy(sim);
    return DIAGC_CSV_E_IO;
  }
  diagc_sim_set_log_callback(sim, diagc_csv_log_callback, &w);
  rc = diagc_sim_initialize(sim);
  if (rc == DIAGC_OK) rc = diagc_sim_advance_to(sim, t_end);
  if (rc != DIAGC_OK && err && errlen)
    snprintf(err, errlen, "%s", diagc_sim_error(sim));
  if (fflush(out) != 0 || ferror(out)) w.error = 1;
  if (w.error && rc >= 0) {
    if (err && errlen) snprintf(err, errlen, "write error on the CSV output");
    rc = DIAGC_CSV_E_IO;
  }
  diagc_sim_destroy(sim);
  return rc;
}
