/* CSV writer: number format, header, rows, diagc_run_csv. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/csv.h"
#include "diagc/simulator.h"
#include "models/check.h"
#include "models/event_model.c"
#include "models/example_discrete.c"

static void fmt_case(double v, const char *want) {
  char buf[DIAGC_DOUBLE_BUFSIZE], name[96];
  int n = diagc_format_double(buf, sizeof buf, v);
  snprintf(name, sizeof name, "format.%s", want);
  check(n == (int)strlen(want) && strcmp(buf, want) == 0, name,
        "%.17g -> '%s'", v, buf);
}

static void test_format(void) {
  char small[4];
  int i, ok = 1;
  fmt_case(0.0, "0");
  fmt_case(-0.0, "-0");
  fmt_case(1.0, "1");
  fmt_case(10.0, "10");
  fmt_case(30.0, "30");
  fmt_case(100.0, "100");
  fmt_case(123456.0, "123456");
  fmt_case(1e6, "1e+06");
  fmt_case(1e21, "1e+21");
  fmt_case(0.1, "0.1");
  fmt_case(0.02, "0.02");
  fmt_case(3 * 0.02, "0.06");
  fmt_case(0.1 + 0.2, "0.30000000000000004");
  fmt_case(1.0 / 3.0, "0.3333333333333333");
  fmt_case(-2.5, "-2.5");
  fmt_case(1e-7, "1e-07");
  fmt_case(5e-324, "5e-324");
  fmt_case(1.7976931348623157e308, "1.7976931348623157e+308");
  fmt_case(NAN, "nan");
  fmt_case(INFINITY, "inf");
  fmt_case(-INFINITY, "-inf");
  check(diagc_format_double(small, sizeof small, 0.125) == DIAGC_CSV_E_BUFFER,
        "format.too_small_buffer", "accepted");
  /* round trip on pseudo-random doubles */
  srand(12345);
  for (i = 0; i < 20000 && ok; i++) {
    char buf[DIAGC_DOUBLE_BUFSIZE];
    double v = ((double)rand() / RAND_MAX - 0.5) *
               pow(10.0, (double)(rand() % 40 - 20));
    diagc_format_double(buf, sizeof buf, v);
    ok = strtod(buf, NULL) == v;
    if (!ok) printf("# %.17g -> %s\n", v, buf);
  }
  check(ok, "format.round_trip_random", "failed");
}

/* Reads the whole stream back. */
static char *slurp(FILE *f) {
  static char buf[8192];
  size_t n;
  rewind(f);
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  return buf;
}

static void test_run_example(void) {
  FILE *f = tmpfile();
  char err[200];
  int rc = diagc_run_csv(&example_discrete_model, NULL, 0.06, f, err,
                         sizeof err);
  const char *want = "t,example.Sn\n0,0\n0.02,10\n0.04,20\n0.06,30\n";
  const char *got = slurp(f);
  check(rc == 0 && strcmp(got, want) == 0, "run_csv.example", "rc %d: %s\n%s",
        rc, err, got);
  fclose(f);
}

static void test_empty_cells(void) {
  static const diagc_logger_desc lg[] = {{"A", 0, 1, 0.02},
                                         {"B", 0, 1, 0.03}};
  diagc_model m = example_discrete_model;
  FILE *f = tmpfile();
  char err[200];
  int rc;
  const char *got;
  m.loggers = lg;
  m.n_loggers = 2;
  rc = diagc_run_csv(&m, NULL, 0.06, f, err, sizeof err);
  got = slurp(f);
  check(rc == 0 && strcmp(got,
                          "t,A,B\n0,0,0\n0.02,10,\n0.03,,20\n0.04,20,\n"
                          "0.06,30,30\n") == 0,
        "run_csv.empty_cells", "rc %d\n%s", rc, got);
  fclose(f);
}

static void test_vector_header(void) {
  static const diagc_logger_desc lg[] = {{"em.d", 0, EM_NXD, 0.0},
                                         {"x,\"q\"", 1, 1, 0.5}};
  diagc_model m;
  diagc_csv_writer w;
  FILE *f = tmpfile();
  const char *got;
  em_reset();
  em_add_update("a.d", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, 0.5,
                0, 2, 2, 1, 1);
  m = em_model(1, 2, lg);
  diagc_csv_writer_init(&w, &m, f);
  check(diagc_csv_write_header(&w) == 0, "csv.header_rc", "write failed");
  got = slurp(f);
  check(strcmp(got,
               "t,em.d[0],em.d[1],em.d[2],em.d[3],\"x,\"\"q\"\"\"\n") == 0,
        "csv.vector_and_quoted_header", "%s", got);
  fclose(f);

  f = tmpfile();
  {
    char err[200];
    int rc = diagc_run_csv(&m, NULL, 1.0, f, err, sizeof err);
    int rows = 0, ok = 1, commas = 0;
    const char *c;
    got = slurp(f);
    for (c = got; *c; c++) {
      if (*c == ',') commas++;
      if (*c == '\n') {
        if (rows > 0 && commas != 5) ok = 0;
        rows++;
        commas = 0;
      }
    }
    check(rc == 0 && ok && rows > 3, "run_csv.vector_rows",
          "rc %d rows %d: %s", rc, rows, err);
  }
  fclose(f);
}

static void test_run_errors(void) {
  diagc_sim_options o;
  FILE *f = tmpfile();
  char err[200];
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = "magic";
  rc = diagc_run_csv(&example_discrete_model, &o, 1.0, f, err, sizeof err);
  check(rc < 0 && strstr(err, "magic") != NULL, "run_csv.bad_options",
        "rc %d err '%s'", rc, err);
  fclose(f);

  em_reset();
  {
    int p = em_add("a.stop", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH, 1, 0.5);
    diagc_model m;
    em_specs[p].status = DIAGC_REACHED_TERMINATION;
    m = em_model(0, 0, NULL);
    f = tmpfile();
    rc = diagc_run_csv(&m, NULL, 2.0, f, err, sizeof err);
    check(rc == DIAGC_SIM_TERMINATED && strstr(err, "a.stop") != NULL,
          "run_csv.terminated", "rc %d err '%s'", rc, err);
    fclose(f);
    em_specs[p].status = DIAGC_FAILED;
    f = tmpfile();
    rc = diagc_run_csv(&m, NULL, 2.0, f, err, sizeof err);
    check(rc == DIAGC_SIM_E_EVENT && strstr(err, "a.stop") != NULL,
          "run_csv.failed", "rc %d err '%s'", rc, err);
    fclose(f);
  }
}

int main(void) {
  test_format();
  test_run_example();
  test_empty_cells();
  test_vector_header();
  test_run_errors();
  return check_exit();
}
