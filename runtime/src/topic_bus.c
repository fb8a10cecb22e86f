/* topic_bus.c: the topic bus between executors (see diagc/executor.h).
 *
 * Holds the named topics and the links from each topic to the
 * subscriptions of one or more executors; publishing hands a message to
 * every linked subscription through diagc_exec_deliver(), so the bus needs
 * nothing of the executor beyond its public API.
 *
 * Implements: diagc_bus_create, diagc_bus_destroy, diagc_bus_topic,
 * diagc_bus_topic_name, diagc_bus_topics, diagc_bus_subscribe,
 * diagc_bus_publish. */
#include "diagc/executor.h"

#include <stdlib.h>
#include <string.h>

typedef struct bus_link {
  int topic, sub;
  diagc_exec *ex;
} bus_link;

struct diagc_bus {
  int max_topics, ntopics, max_links, nlinks;
  char **names;
  int *first, *count; /* links of a topic: a contiguous run after sorting */
  bus_link *links;
  int sorted;
};

diagc_bus *diagc_bus_create(int max_topics, int max_links) {
  if (max_topics <= 0 || max_links <= 0) return NULL;
  diagc_bus *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->max_topics = max_topics;
  b->max_links = max_links;
  b->names = calloc((size_t)max_topics, sizeof *b->names);
  b->first = calloc((size_t)max_topics, sizeof *b->first);
  b->count = calloc((size_t)max_topics, sizeof *b->count);
  b->links = calloc((size_t)max_links, sizeof *b->links);
  if (!b->names || !b->first || !b->count || !b->links) {
    diagc_bus_destroy(b);
    return NULL;
  }
  return b;
}

void diagc_bus_destroy(diagc_bus *b) {
  if (!b) return;
  if (b->names)
    for (int i = 0; i < b->ntopics; i++) free(b->names[i]);
  free(b->names);
  free(b->first);
  free(b->count);
  free(b->links);
  free(b);
}

int diagc_bus_topic(diagc_bus *b, const char *name) {
  if (!b || !name) return DIAGC_EXEC_E_ARG;
  for (int i = 0; i < b->ntopics; i++)
    if (strcmp(b->names[i], name) == 0) return i;
  if (b->ntopics >= b->max_topics) return DIAGC_EXEC_E_FULL;
  size_t n = strlen(name) + 1;
  char *s = malloc(n);
  if (!s) return DIAGC_EXEC_E_NOMEM;
  memcpy(s, name, n);
  b->names[b->ntopics] = s;
  return b->ntopics++;
}

const char *diagc_bus_topic_name(const diagc_bus *b, int t) {
  return b && t >= 0 && t < b->ntopics ? b->names[t] : NULL;
}

int diagc_bus_topics(const diagc_bus *b) { return b ? b->ntopics : 0; }

int diagc_bus_subscribe(diagc_bus *b, int topic, diagc_exec *ex, int sub) {
  if (!b || !ex || topic < 0 || topic >= b->ntopics || sub < 0) return DIAGC_EXEC_E_ARG;
  if (b->nlinks >= b->max_links) return DIAGC_EXEC_E_FULL;
  /* keep the links grouped by topic (insertion after the topic's last) */
  int pos = b->nlinks;
  while (pos > 0 && b->links[pos - 1].topic > topic) {
    b->links[pos] = b->links[pos - 1];
    pos--;
  }
  b->links[pos].topic = topic;
  b->links[pos].sub = sub;
  b->links[pos].ex = ex;
  b->nlinks++;
  for (int t = 0; t < b->ntopics; t++) b->count[t] = 0;
  for (int i = b->nlinks - 1; i >= 0; i--) {
    b->first[b->links[i].topic] = i;
    b->count[b->links[i].topic]++;
  }
  return DIAGC_OK;
}

int diagc_bus_publish(diagc_bus *b, int topic, const void *msg, size_t size) {
  if (!b || topic < 0 || topic >= b->ntopics) return DIAGC_EXEC_E_ARG;
  int n = 0;
  for (int i = b->first[topic], k = 0; k < b->count[topic]; i++, k++)
    if (diagc_exec_deliver(b->links[i].ex, b->links[i].sub, msg, size) == DIAGC_OK) n++;
  return n;
}
