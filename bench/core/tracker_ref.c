/* bench/tracker_ref.c: Drake's run-time dependency-tracking algorithm in C.
 * See tracker_ref.h for what is modelled.  Everything is allocated when a
 * context is created; Eval and the notification sweep allocate nothing. */
#include "tracker_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_TYPE_BASIC_VECTOR 0x42564543 /* type tag checked on every access */
#define TR_OUT_OF_DATE 1
#define TR_CACHING_DISABLED 2

static void die(const char *msg)
{
  fprintf(stderr, "tracker_ref: %s\n", msg);
  abort();
}

static void *xcalloc(size_t n, size_t sz)
{
  void *p = calloc(n ? n : 1, sz);
  if (!p) die("out of memory");
  return p;
}

static void *xrealloc(void *p, size_t sz)
{
  p = realloc(p, sz ? sz : 1);
  if (!p) die("out of memory");
  return p;
}

/* ------------------------------------------------------------------ */
/* Context side: CacheEntryValue, DependencyTracker, DependencyGraph   */

typedef struct tr_cache_value {
  int flags; /* out of date 0b01, caching disabled 0b10; 0 = ready */
  int64_t serial;
  tr_value *value;
  int cache_index, ticket;
  const char *description;
  const tr_context *owner;
} tr_cache_value;

typedef struct tr_tracker tr_tracker;
struct tr_tracker {
  int ticket;
  const char *description;
  const tr_context *owner;
  tr_cache_value *cache_value; /* the context's dummy value if none */
  tr_tracker **subscribers;
  int n_subscribers, cap_subscribers;
  tr_tracker **prerequisites;
  int n_prerequisites, cap_prerequisites;
  int suppress_notifications;
  int64_t last_change_event;
  int64_t num_value_change_notifications_received;
  int64_t num_prerequisite_notifications_received;
  int64_t num_ignored_notifications;
  int64_t num_downstream_notifications_sent;
};

struct tr_context {
  int64_t system_id;
  tr_context *parent;
  int64_t current_change_event; /* >= 0 in the root only */
  int cache_frozen;
  /* DependencyGraph: trackers indexed by ticket */
  tr_tracker **trackers;
  int n_trackers;
  /* Cache: values indexed by cache index, plus the dummy value */
  tr_cache_value **cache;
  int n_cache;
  tr_cache_value dummy;
  /* tickets of the context's own sources */
  int n_input_ports;
  int *input_port_tickets;
  tr_fixed_input **input_port_values;
  int n_output_ports;
  int *output_port_tickets;
  int n_xd, n_pn;
  int *discrete_state_tickets, *numeric_parameter_tickets;
  /* values (leaf) */
  double time, accuracy;
  tr_vector *xc;
  tr_vector **xd;
  struct tr_parameters { int n; tr_vector **numeric; } *parameters;
  /* children (diagram) */
  int n_subcontexts;
  tr_context **subcontexts;
};

static tr_vector *vector_new(int n)
{
  tr_vector *v = xcalloc(1, sizeof *v);
  v->size = n;
  v->data = xcalloc((size_t)(n > 0 ? n : 1), sizeof(double));
  return v;
}

static tr_value *value_new(int n)
{
  tr_value *a = xcalloc(1, sizeof *a);
  a->type_tag = TR_TYPE_BASIC_VECTOR;
  a->vec = vector_new(n);
  return a;
}

tr_vector *tr_value_mutable_vector(tr_value *v)
{
  if (v->type_tag != TR_TYPE_BASIC_VECTOR) die("wrong value type");
  return v->vec;
}

static const tr_vector *value_vector(const tr_value *v)
{
  if (v == NULL) die("input port is not connected");
  if (v->type_tag != TR_TYPE_BASIC_VECTOR) die("wrong value type");
  return v->vec;
}

static void ptr_push(tr_tracker ***arr, int *n, int *cap, tr_tracker *t)
{
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 4;
    *arr = xrealloc(*arr, (size_t)*cap * sizeof **arr);
  }
  (*arr)[(*n)++] = t;
}

static int has_tracker(const tr_context *c, int ticket)
{
  return ticket >= 0 && ticket < c->n_trackers && c->trackers[ticket] != NULL;
}

static tr_tracker *get_tracker(const tr_context *c, int ticket)
{
  if (!has_tracker(c, ticket)) die("no tracker for ticket");
  return c->trackers[ticket];
}

/* DependencyGraph::CreateNewDependencyTracker(ticket, description, value) */
static tr_tracker *create_tracker(tr_context *c, int ticket, const char *desc,
                                  tr_cache_value *value)
{
  tr_tracker *t;
  if (ticket >= c->n_trackers) {
    int n = ticket + 1;
    c->trackers = xrealloc(c->trackers, (size_t)n * sizeof *c->trackers);
    memset(c->trackers + c->n_trackers, 0, (size_t)(n - c->n_trackers) * sizeof *c->trackers);
    c->n_trackers = n;
  }
  if (c->trackers[ticket] != NULL) die("tracker already exists");
  t = xcalloc(1, sizeof *t);
  t->ticket = ticket;
  t->description = desc;
  t->owner = c;
  t->cache_value = value ? value : &c->dummy;
  t->last_change_event = -1;
  c->trackers[ticket] = t;
  return t;
}

/* DependencyTracker::SubscribeToPrerequisite */
static void subscribe(tr_tracker *sub, tr_tracker *pre)
{
  ptr_push(&sub->prerequisites, &sub->n_prerequisites, &sub->cap_prerequisites, pre);
  ptr_push(&pre->subscribers, &pre->n_subscribers, &pre->cap_subscribers, sub);
}

/* ---- the notification sweep (DependencyTracker) ---- */

static void notify_subscribers(const tr_tracker *t, int64_t change_event, int depth);

static void note_prerequisite_change(tr_tracker *t, int64_t change_event,
                                     const tr_tracker *prerequisite, int depth)
{
  (void)prerequisite; /* used only by Drake's debug logging and asserts */
  ++t->num_prerequisite_notifications_received;
  if (t->last_change_event == change_event || t->suppress_notifications) {
    ++t->num_ignored_notifications;
    return;
  }
  t->last_change_event = change_event;
  t->cache_value->flags |= TR_OUT_OF_DATE; /* mark_out_of_date() */
  notify_subscribers(t, change_event, depth);
}

static void notify_subscribers(const tr_tracker *t, int64_t change_event, int depth)
{
  int i;
  for (i = 0; i < t->n_subscribers; ++i)
    note_prerequisite_change(t->subscribers[i], change_event, t, depth + 1);
  ((tr_tracker *)t)->num_downstream_notifications_sent += t->n_subscribers;
}

static void note_value_change(tr_tracker *t, int64_t change_event)
{
  ++t->num_value_change_notifications_received;
  if (t->last_change_event == change_event || t->suppress_notifications) {
    ++t->num_ignored_notifications;
    return;
  }
  t->last_change_event = change_event;
  notify_subscribers(t, change_event, 0);
}

/* ContextBase::start_new_change_event: walk up to the root. */
static int64_t start_new_change_event(tr_context *c)
{
  while (c->parent) c = c->parent;
  return ++c->current_change_event;
}

/* ------------------------------------------------------------------ */
/* System side                                                          */

typedef struct tr_cache_entry {
  const tr_system *owner;
  int cache_index, ticket;
  const char *description;
  tr_calc_fn calc;
  int value_size;
  int n_prereqs;
  int prereqs[8];
} tr_cache_entry;

typedef struct tr_input_port {
  const tr_system *system;
  int index, ticket, size;
} tr_input_port;

typedef struct tr_output_port {
  const tr_system *system;
  int index, ticket, size;
  int entry;                 /* leaf: index of its cache entry, else -1 */
  int child;                 /* diagram: subsystem index of the source */
  const tr_system *src_sys;  /* diagram: the exported child port */
  int src_port;
} tr_output_port;

typedef struct tr_locator {
  const tr_system *sys;
  int port;
} tr_locator;

typedef struct tr_map_item { /* sorted by key, searched by bisection (std::map) */
  tr_locator key;
  tr_locator out;  /* connection map: the upstream output port */
  int index;       /* input port map: the diagram input */
} tr_map_item;

typedef struct tr_sys_index {
  const tr_system *sys;
  int index;
} tr_sys_index;

struct tr_system {
  int64_t id;
  const char *name;
  int is_diagram;
  const tr_system *parent; /* "parent service" */
  int next_ticket;
  int n_in, n_out, n_cache;
  tr_input_port *in;
  tr_output_port *out;
  tr_cache_entry *cache;
  /* leaf */
  int nq, nv, nz;
  int n_xd, n_pn;
  int *xd_tickets, *xd_sizes;
  int *pn_tickets, *pn_sizes;
  double *pn_defaults;
  /* diagram */
  int n_children;
  tr_system **children;
  int n_conn, n_exported_in;
  tr_map_item *connection_map, *input_port_map;
  tr_sys_index *system_index_map;
  int finalized;
};

static int64_t next_system_id = 1;

static void builtin_noop_calc(const tr_system *sys, const tr_context *ctx, tr_value *out)
{
  (void)sys;
  (void)ctx;
  (void)out;
}

static int declare_cache_entry(tr_system *s, int ticket, const char *desc, tr_calc_fn calc,
                               int value_size, int n_prereqs, const int *prereqs)
{
  tr_cache_entry *e;
  int i;
  if (n_prereqs < 1 || n_prereqs > 8) die("bad prerequisite list");
  s->cache = xrealloc(s->cache, (size_t)(s->n_cache + 1) * sizeof *s->cache);
  e = &s->cache[s->n_cache];
  memset(e, 0, sizeof *e);
  e->owner = s;
  e->cache_index = s->n_cache;
  e->ticket = ticket < 0 ? s->next_ticket++ : ticket;
  e->description = desc;
  e->calc = calc;
  e->value_size = value_size;
  e->n_prereqs = n_prereqs;
  for (i = 0; i < n_prereqs; ++i) e->prereqs[i] = prereqs[i];
  return s->n_cache++;
}

/* System<T>::System(): the cache entries every system declares. */
static tr_system *system_new(const char *name, int is_diagram)
{
  static const int energy[] = { TR_ACCURACY, TR_X, TR_P };
  static const int all[] = { TR_ALL_SOURCES };
  tr_system *s = xcalloc(1, sizeof *s);
  s->id = next_system_id++;
  s->name = name;
  s->is_diagram = is_diagram;
  s->next_ticket = TR_NEXT_AVAILABLE;
  declare_cache_entry(s, -1, "potential energy", builtin_noop_calc, 1, 3, energy);
  declare_cache_entry(s, -1, "kinetic energy", builtin_noop_calc, 1, 3, energy);
  declare_cache_entry(s, -1, "conservative power", builtin_noop_calc, 1, 3, energy);
  declare_cache_entry(s, -1, "non-conservative power", builtin_noop_calc, 1, 1, all);
  declare_cache_entry(s, TR_XCDOT, "time derivatives", builtin_noop_calc, 0, 1, all);
  declare_cache_entry(s, TR_XD_UNIQUE_PERIODIC_UPDATE, "unique periodic discrete update",
                      builtin_noop_calc, 0, 1, all);
  return s;
}

tr_system *tr_leaf_new(const char *name) { return system_new(name, 0); }
tr_system *tr_diagram_new(const char *name) { return system_new(name, 1); }

void tr_leaf_declare_continuous_state(tr_system *s, int nq, int nv, int nz)
{
  s->nq = nq;
  s->nv = nv;
  s->nz = nz;
}

int tr_leaf_declare_discrete_state(tr_system *s, int size)
{
  s->xd_tickets = xrealloc(s->xd_tickets, (size_t)(s->n_xd + 1) * sizeof(int));
  s->xd_sizes = xrealloc(s->xd_sizes, (size_t)(s->n_xd + 1) * sizeof(int));
  s->xd_sizes[s->n_xd] = size;
  return s->xd_tickets[s->n_xd++] = s->next_ticket++;
}

int tr_leaf_declare_numeric_parameter(tr_system *s, int size, double dflt)
{
  s->pn_tickets = xrealloc(s->pn_tickets, (size_t)(s->n_pn + 1) * sizeof(int));
  s->pn_sizes = xrealloc(s->pn_sizes, (size_t)(s->n_pn + 1) * sizeof(int));
  s->pn_defaults = xrealloc(s->pn_defaults, (size_t)(s->n_pn + 1) * sizeof(double));
  s->pn_sizes[s->n_pn] = size;
  s->pn_defaults[s->n_pn] = dflt;
  return s->pn_tickets[s->n_pn++] = s->next_ticket++;
}

int tr_declare_input_port(tr_system *s, int size)
{
  tr_input_port *p;
  s->in = xrealloc(s->in, (size_t)(s->n_in + 1) * sizeof *s->in);
  p = &s->in[s->n_in];
  p->system = s;
  p->index = s->n_in++;
  p->ticket = s->next_ticket++;
  p->size = size;
  return p->ticket;
}

int tr_input_port_ticket(const tr_system *s, int port) { return s->in[port].ticket; }

static tr_output_port *add_output_port(tr_system *s, int size)
{
  tr_output_port *p;
  s->out = xrealloc(s->out, (size_t)(s->n_out + 1) * sizeof *s->out);
  p = &s->out[s->n_out];
  memset(p, 0, sizeof *p);
  p->system = s;
  p->index = s->n_out++;
  p->size = size;
  p->entry = -1;
  return p;
}

/* LeafSystem::CreateCachedLeafOutputPort: a cache entry, then the port. */
int tr_leaf_declare_output_port(tr_system *s, int size, tr_calc_fn calc, int n_prereqs,
                                const int *prereqs)
{
  int entry = declare_cache_entry(s, -1, "output port cache", calc, size, n_prereqs, prereqs);
  tr_output_port *p = add_output_port(s, size);
  p->entry = entry;
  p->ticket = s->next_ticket++;
  return p->index;
}

void tr_diagram_add(tr_system *d, tr_system *child)
{
  d->children = xrealloc(d->children, (size_t)(d->n_children + 1) * sizeof *d->children);
  d->children[d->n_children++] = child;
  child->parent = d;
}

void tr_diagram_connect(tr_system *d, tr_system *src, int out_port, tr_system *dst, int in_port)
{
  tr_map_item *m;
  d->connection_map = xrealloc(d->connection_map, (size_t)(d->n_conn + 1) * sizeof *d->connection_map);
  m = &d->connection_map[d->n_conn++];
  m->key.sys = dst;
  m->key.port = in_port;
  m->out.sys = src;
  m->out.port = out_port;
  m->index = -1;
}

int tr_diagram_export_input(tr_system *d, tr_system *child, int in_port)
{
  tr_map_item *m;
  tr_declare_input_port(d, child->in[in_port].size);
  d->input_port_map = xrealloc(d->input_port_map, (size_t)(d->n_exported_in + 1) * sizeof *d->input_port_map);
  m = &d->input_port_map[d->n_exported_in++];
  m->key.sys = child;
  m->key.port = in_port;
  m->index = d->n_in - 1;
  return d->n_in - 1;
}

static int child_index_linear(const tr_system *d, const tr_system *child)
{
  int i;
  for (i = 0; i < d->n_children; ++i)
    if (d->children[i] == child) return i;
  die("not a child");
  return -1;
}

int tr_diagram_export_output(tr_system *d, tr_system *child, int out_port)
{
  tr_output_port *p = add_output_port(d, child->out[out_port].size);
  p->ticket = d->next_ticket++;
  p->child = child_index_linear(d, child);
  p->src_sys = child;
  p->src_port = out_port;
  return p->index;
}

static int loc_cmp(const tr_locator *a, const tr_locator *b)
{
  if (a->sys != b->sys) return (uintptr_t)a->sys < (uintptr_t)b->sys ? -1 : 1;
  return a->port < b->port ? -1 : (a->port > b->port);
}

static int map_item_cmp(const void *a, const void *b)
{
  return loc_cmp(&((const tr_map_item *)a)->key, &((const tr_map_item *)b)->key);
}

static int sys_index_cmp(const void *a, const void *b)
{
  uintptr_t x = (uintptr_t)((const tr_sys_index *)a)->sys;
  uintptr_t y = (uintptr_t)((const tr_sys_index *)b)->sys;
  return x < y ? -1 : (x > y);
}

void tr_diagram_finalize(tr_system *d)
{
  int i;
  qsort(d->connection_map, (size_t)d->n_conn, sizeof *d->connection_map, map_item_cmp);
  qsort(d->input_port_map, (size_t)d->n_exported_in, sizeof *d->input_port_map, map_item_cmp);
  d->system_index_map = xcalloc((size_t)d->n_children, sizeof *d->system_index_map);
  for (i = 0; i < d->n_children; ++i) {
    d->system_index_map[i].sys = d->children[i];
    d->system_index_map[i].index = i;
  }
  qsort(d->system_index_map, (size_t)d->n_children, sizeof *d->system_index_map, sys_index_cmp);
  d->finalized = 1;
}

/* std::map::find, as bisection over the sorted items. */
static const tr_map_item *map_find(const tr_map_item *items, int n, const tr_locator *key)
{
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    int c = loc_cmp(&items[mid].key, key);
    if (c == 0) return &items[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* Diagram::GetSystemIndexOrAbort: system_index_map_.find(sys). */
static int system_index(const tr_system *d, const tr_system *sys)
{
  int lo = 0, hi = d->n_children;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    const tr_system *m = d->system_index_map[mid].sys;
    if (m == sys) return d->system_index_map[mid].index;
    if ((uintptr_t)m < (uintptr_t)sys) lo = mid + 1;
    else hi = mid;
  }
  die("system not in diagram");
  return -1;
}

/* ------------------------------------------------------------------ */
/* Context allocation (Drake's order of tracker creation/subscription)  */

/* ContextBase::CreateBuiltInTrackers */
static void create_builtin_trackers(tr_context *c)
{
  tr_tracker *t, *a, *q, *v, *z, *xc, *xd, *xa, *x, *pn, *pa, *p, *u, *asx, *as, *conf, *kin;
  create_tracker(c, TR_NOTHING, "nothing", NULL);
  t = create_tracker(c, TR_TIME, "t", NULL);
  a = create_tracker(c, TR_ACCURACY, "accuracy", NULL);
  q = create_tracker(c, TR_Q, "q", NULL);
  v = create_tracker(c, TR_V, "v", NULL);
  z = create_tracker(c, TR_Z, "z", NULL);
  xc = create_tracker(c, TR_XC, "xc", NULL);
  subscribe(xc, q);
  subscribe(xc, v);
  subscribe(xc, z);
  xd = create_tracker(c, TR_XD, "xd", NULL);
  xa = create_tracker(c, TR_XA, "xa", NULL);
  x = create_tracker(c, TR_X, "x", NULL);
  subscribe(x, xc);
  subscribe(x, xd);
  subscribe(x, xa);
  pn = create_tracker(c, TR_PN, "pn", NULL);
  pa = create_tracker(c, TR_PA, "pa", NULL);
  p = create_tracker(c, TR_P, "p", NULL);
  subscribe(p, pn);
  subscribe(p, pa);
  u = create_tracker(c, TR_ALL_INPUT_PORTS, "u", NULL);
  asx = create_tracker(c, TR_ALL_SOURCES_EXCEPT_INPUT_PORTS, "all sources except input ports", NULL);
  subscribe(asx, t);
  subscribe(asx, a);
  subscribe(asx, x);
  subscribe(asx, p);
  as = create_tracker(c, TR_ALL_SOURCES, "all sources", NULL);
  subscribe(as, asx);
  subscribe(as, u);
  conf = create_tracker(c, TR_CONFIGURATION, "configuration", NULL);
  subscribe(conf, a);
  subscribe(conf, q);
  subscribe(conf, z);
  subscribe(conf, xd);
  subscribe(conf, xa);
  subscribe(conf, p);
  kin = create_tracker(c, TR_KINEMATICS, "kinematics", NULL);
  subscribe(kin, conf);
  subscribe(kin, v);
  create_tracker(c, TR_XCDOT, "xcdot", NULL);
  create_tracker(c, TR_PE, "PE", NULL);
  create_tracker(c, TR_KE, "KE", NULL);
  create_tracker(c, TR_PC, "pc", NULL);
  create_tracker(c, TR_PNC, "pnc", NULL);
  create_tracker(c, TR_XD_UNIQUE_PERIODIC_UPDATE, "xd_unique_periodic_update", NULL);
}

/* SystemBase::InitializeContextBase */
static void initialize_context_base(const tr_system *s, tr_context *c)
{
  int i, k;
  c->system_id = s->id;
  c->dummy.flags = TR_OUT_OF_DATE; /* never read */
  c->dummy.owner = c;
  create_builtin_trackers(c);
  /* CreateSourceTrackers: xd_i, pn_i (no abstract kinds here), u_i */
  c->n_xd = s->n_xd;
  c->discrete_state_tickets = xcalloc((size_t)s->n_xd, sizeof(int));
  for (i = 0; i < s->n_xd; ++i) {
    tr_tracker *t = create_tracker(c, s->xd_tickets[i], "xd_i", NULL);
    c->discrete_state_tickets[i] = s->xd_tickets[i];
    subscribe(get_tracker(c, TR_XD), t);
  }
  c->n_pn = s->n_pn;
  c->numeric_parameter_tickets = xcalloc((size_t)s->n_pn, sizeof(int));
  for (i = 0; i < s->n_pn; ++i) {
    tr_tracker *t = create_tracker(c, s->pn_tickets[i], "pn_i", NULL);
    c->numeric_parameter_tickets[i] = s->pn_tickets[i];
    subscribe(get_tracker(c, TR_PN), t);
  }
  c->n_input_ports = s->n_in;
  c->input_port_tickets = xcalloc((size_t)s->n_in, sizeof(int));
  c->input_port_values = xcalloc((size_t)s->n_in, sizeof *c->input_port_values);
  for (i = 0; i < s->n_in; ++i) {
    tr_tracker *t = create_tracker(c, s->in[i].ticket, "u_i", NULL);
    c->input_port_tickets[i] = s->in[i].ticket;
    subscribe(get_tracker(c, TR_ALL_INPUT_PORTS), t);
  }
  /* Cache::CreateNewCacheEntryValue for every cache entry, in order */
  c->n_cache = s->n_cache;
  c->cache = xcalloc((size_t)s->n_cache, sizeof *c->cache);
  for (i = 0; i < s->n_cache; ++i) {
    const tr_cache_entry *e = &s->cache[i];
    tr_cache_value *cv = xcalloc(1, sizeof *cv);
    tr_tracker *t;
    cv->flags = TR_OUT_OF_DATE;
    cv->cache_index = i;
    cv->ticket = e->ticket;
    cv->description = e->description;
    cv->owner = c;
    c->cache[i] = cv;
    if (has_tracker(c, e->ticket)) {
      t = get_tracker(c, e->ticket); /* well-known (xcdot, ...) */
      t->cache_value = cv;
    } else {
      t = create_tracker(c, e->ticket, e->description, cv);
    }
    for (k = 0; k < e->n_prereqs; ++k)
      if (e->prereqs[k] != TR_NOTHING) subscribe(t, get_tracker(c, e->prereqs[k]));
    cv->value = value_new(e->value_size); /* SetInitialValue(Allocate()) */
  }
  /* output port trackers; a leaf port subscribes to its cache entry */
  c->n_output_ports = s->n_out;
  c->output_port_tickets = xcalloc((size_t)s->n_out, sizeof(int));
  for (i = 0; i < s->n_out; ++i) {
    tr_tracker *y = create_tracker(c, s->out[i].ticket, "y_i", NULL);
    c->output_port_tickets[i] = s->out[i].ticket;
    if (s->out[i].entry >= 0) subscribe(y, get_tracker(c, s->cache[s->out[i].entry].ticket));
  }
}

static tr_context *allocate(const tr_system *s);

static tr_context *allocate_leaf(const tr_system *s)
{
  tr_context *c = xcalloc(1, sizeof *c);
  int i;
  initialize_context_base(s, c);
  c->accuracy = 1e-4;
  /* state */
  c->xc = vector_new(s->nq + s->nv + s->nz);
  c->xd = xcalloc((size_t)s->n_xd, sizeof *c->xd);
  for (i = 0; i < s->n_xd; ++i) c->xd[i] = vector_new(s->xd_sizes[i]);
  c->parameters = xcalloc(1, sizeof *c->parameters);
  c->parameters->n = s->n_pn;
  c->parameters->numeric = xcalloc((size_t)s->n_pn, sizeof(tr_vector *));
  for (i = 0; i < s->n_pn; ++i) {
    int k;
    c->parameters->numeric[i] = vector_new(s->pn_sizes[i]);
    for (k = 0; k < s->pn_sizes[i]; ++k) c->parameters->numeric[i]->data[k] = s->pn_defaults[i];
  }
  /* init_continuous_state / init_discrete_state / init_abstract_state:
   * don't propagate notifications through variables we don't have */
  if (s->nq == 0) get_tracker(c, TR_Q)->suppress_notifications = 1;
  if (s->nv == 0) get_tracker(c, TR_V)->suppress_notifications = 1;
  if (s->nz == 0) get_tracker(c, TR_Z)->suppress_notifications = 1;
  if (s->nq + s->nv + s->nz == 0) get_tracker(c, TR_XC)->suppress_notifications = 1;
  if (s->n_xd == 0) get_tracker(c, TR_XD)->suppress_notifications = 1;
  get_tracker(c, TR_XA)->suppress_notifications = 1; /* no abstract state here */
  return c;
}

static void set_parent(tr_context *child, tr_context *parent)
{
  child->parent = parent;
  child->current_change_event = -1;
}

static tr_context *allocate_diagram(const tr_system *d)
{
  static const int composites[] = { TR_Q, TR_V, TR_Z, TR_XD, TR_XA, TR_PN, TR_PA,
                                    TR_XCDOT, TR_PE, TR_KE, TR_PC, TR_PNC };
  tr_context *c = xcalloc(1, sizeof *c);
  int i, k;
  if (!d->finalized) die("diagram not finalized");
  initialize_context_base(d, c);
  c->accuracy = 1e-4;
  c->n_subcontexts = d->n_children;
  c->subcontexts = xcalloc((size_t)d->n_children, sizeof *c->subcontexts);
  for (i = 0; i < d->n_children; ++i) {
    c->subcontexts[i] = allocate(d->children[i]);
    set_parent(c->subcontexts[i], c);
  }
  /* SubscribeDiagramCompositeTrackersToChildrens */
  for (i = 0; i < d->n_children; ++i)
    for (k = 0; k < (int)(sizeof composites / sizeof composites[0]); ++k)
      subscribe(get_tracker(c, composites[k]), get_tracker(c->subcontexts[i], composites[k]));
  /* peer connections, in connection-map order */
  for (i = 0; i < d->n_conn; ++i) {
    const tr_map_item *m = &d->connection_map[i];
    tr_context *src = c->subcontexts[system_index(d, m->out.sys)];
    tr_context *dst = c->subcontexts[system_index(d, m->key.sys)];
    subscribe(get_tracker(dst, dst->input_port_tickets[m->key.port]),
              get_tracker(src, src->output_port_tickets[m->out.port]));
  }
  /* exported inputs: the child port subscribes to the diagram port */
  for (i = 0; i < d->n_exported_in; ++i) {
    const tr_map_item *m = &d->input_port_map[i];
    tr_context *dst = c->subcontexts[system_index(d, m->key.sys)];
    subscribe(get_tracker(dst, dst->input_port_tickets[m->key.port]),
              get_tracker(c, c->input_port_tickets[m->index]));
  }
  /* exported outputs: the diagram port subscribes to the child port */
  for (i = 0; i < d->n_out; ++i) {
    const tr_output_port *p = &d->out[i];
    tr_context *src = c->subcontexts[p->child];
    subscribe(get_tracker(c, c->output_port_tickets[i]),
              get_tracker(src, src->output_port_tickets[p->src_port]));
  }
  return c;
}

static tr_context *allocate(const tr_system *s)
{
  return s->is_diagram ? allocate_diagram(s) : allocate_leaf(s);
}

tr_context *tr_allocate_context(const tr_system *s)
{
  tr_context *c = allocate(s);
  c->current_change_event = 0;
  return c;
}

tr_context *tr_subcontext(tr_context *d, int i) { return d->subcontexts[i]; }

/* ------------------------------------------------------------------ */
/* Mutation                                                              */

/* ContextBase::SetFixedInputPortValue (FixInputPort) */
tr_fixed_input *tr_fix_input(tr_context *c, int port, int size, const double *v)
{
  tr_fixed_input *f = xcalloc(1, sizeof *f);
  tr_tracker *port_tracker = get_tracker(c, c->input_port_tickets[port]);
  tr_tracker *value_tracker;
  int i;
  if (c->input_port_values[port] != NULL) die("port already fixed");
  value_tracker = create_tracker(c, c->n_trackers, "Value for fixed input port", NULL);
  subscribe(port_tracker, value_tracker);
  f->owner = c;
  f->port = port;
  f->ticket = value_tracker->ticket;
  f->value = value_new(size);
  for (i = 0; i < size; ++i) f->value->vec->data[i] = v[i];
  c->input_port_values[port] = f;
  note_value_change(value_tracker, start_new_change_event(c));
  return f;
}

/* FixedInputPortValue::GetMutableData() + get_mutable_value<BasicVector>() */
tr_vector *tr_fixed_input_get_mutable_vector(tr_fixed_input *f)
{
  tr_context *c = f->owner;
  tr_tracker *t = get_tracker(c, f->ticket);
  int64_t change_event = start_new_change_event(c);
  note_value_change(t, change_event);
  ++f->serial;
  return tr_value_mutable_vector(f->value);
}

typedef void (*bulk_note_fn)(tr_context *c, int64_t change_event);

/* ContextBase::NoteAllNumericParametersChanged */
static void note_all_numeric_parameters_changed(tr_context *c, int64_t change_event)
{
  int i;
  for (i = 0; i < c->n_pn; ++i)
    note_value_change(get_tracker(c, c->numeric_parameter_tickets[i]), change_event);
}

/* ContextBase::PropagateBulkChange + DiagramContext::DoPropagateBulkChange */
static void propagate_bulk_change(tr_context *c, int64_t change_event, bulk_note_fn note)
{
  int i;
  note(c, change_event);
  for (i = 0; i < c->n_subcontexts; ++i) propagate_bulk_change(c->subcontexts[i], change_event, note);
}

/* Context::get_mutable_numeric_parameter (notifies all numeric parameters) */
tr_vector *tr_get_mutable_numeric_parameter(tr_context *c, int i)
{
  int64_t change_event = start_new_change_event(c);
  propagate_bulk_change(c, change_event, note_all_numeric_parameters_changed);
  if (i < 0 || i >= c->parameters->n) die("bad parameter index");
  return c->parameters->numeric[i];
}

const tr_vector *tr_get_numeric_parameter(const tr_context *c, int i)
{
  if (i < 0 || i >= c->parameters->n) die("bad parameter index");
  return c->parameters->numeric[i];
}

/* ------------------------------------------------------------------ */
/* Evaluation                                                            */

static void validate_context(const tr_system *s, const tr_context *c)
{
  if (s->id != c->system_id) die("context does not belong to this system");
}

/* CacheEntry::EvalAbstract + UpdateValue */
static const tr_value *cache_entry_eval(const tr_cache_entry *e, const tr_context *c)
{
  tr_cache_value *cv = c->cache[e->cache_index];
  if (cv->flags != 0) {
    /* GetMutableAbstractValueOrThrow */
    if (cv->value == NULL) die("no value");
    if (!(cv->flags & TR_OUT_OF_DATE) && !(cv->flags & TR_CACHING_DISABLED)) die("already computed");
    if (c->cache_frozen) die("cache is frozen");
    ++cv->serial;
    e->calc(e->owner, c, cv->value);
    cv->flags &= ~TR_OUT_OF_DATE; /* mark_up_to_date() */
  }
  return cv->value;
}

static const tr_value *eval_output_abstract(const tr_system *s, int port, const tr_context *c)
{
  const tr_output_port *p;
  validate_context(s, c);
  if (port < 0 || port >= s->n_out) die("bad output port");
  p = &s->out[port];
  if (p->entry >= 0) return cache_entry_eval(&s->cache[p->entry], c); /* LeafOutputPort */
  /* DiagramOutputPort: evaluate the source port on the subcontext */
  return eval_output_abstract(p->src_sys, p->src_port, c->subcontexts[p->child]);
}

const tr_vector *tr_eval_output(const tr_system *s, int port, const tr_context *c)
{
  return value_vector(eval_output_abstract(s, port, c));
}

static const tr_value *eval_abstract_input(const tr_system *s, const tr_context *c, int port);

/* Diagram::EvalConnectedSubsystemInputPort */
static const tr_value *eval_connected_subsystem_input(const tr_system *d, const tr_context *dc,
                                                      const tr_system *s, int port)
{
  tr_locator id;
  const tr_map_item *ext, *up;
  validate_context(d, dc);
  id.sys = s;
  id.port = port;
  ext = map_find(d->input_port_map, d->n_exported_in, &id);
  up = map_find(d->connection_map, d->n_conn, &id);
  if (!ext && !up) return NULL;
  if (ext) return eval_abstract_input(d, dc, ext->index);
  /* EvalSubsystemOutputPort */
  return eval_output_abstract(up->out.sys, up->out.port,
                              dc->subcontexts[system_index(d, up->out.sys)]);
}

/* SystemBase::EvalAbstractInputImpl */
static const tr_value *eval_abstract_input(const tr_system *s, const tr_context *c, int port)
{
  const tr_fixed_input *f;
  if (port < 0 || port >= s->n_in) die("bad input port");
  f = c->input_port_values[port];
  if (f != NULL) return f->value;
  if (s->parent == NULL) return NULL;
  if (c->parent == NULL) return NULL;
  return eval_connected_subsystem_input(s->parent, c->parent, s, port);
}

const tr_vector *tr_eval_vector_input(const tr_system *s, const tr_context *c, int port)
{
  return value_vector(eval_abstract_input(s, c, port));
}

/* ------------------------------------------------------------------ */

void tr_collect_stats(const tr_context *c, tr_stats *st)
{
  int i;
  for (i = 0; i < c->n_trackers; ++i) {
    const tr_tracker *t = c->trackers[i];
    if (!t) continue;
    st->trackers++;
    st->subscriptions += t->n_subscribers;
    st->value_change_received += t->num_value_change_notifications_received;
    st->prereq_received += t->num_prerequisite_notifications_received;
    st->ignored += t->num_ignored_notifications;
    st->sent += t->num_downstream_notifications_sent;
  }
  st->cache_values += c->n_cache;
  for (i = 0; i < c->n_subcontexts; ++i) tr_collect_stats(c->subcontexts[i], st);
}
