/* json.h: a small strict JSON parser (RFC 8259) for the topology tool.
 * The whole document is parsed into a tree; json_free() releases it. */
#ifndef DIAGC_TOOLS_JSON_H
#define DIAGC_TOOLS_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json json;
struct json {
  json_kind kind;
  double number;
  char *string;      /* JSON_STRING: UTF-8, NUL-terminated */
  size_t n;          /* array/object: number of elements */
  json **items;      /* array elements / object values */
  char **keys;       /* object keys (parallel to items) */
  int line;          /* where the value starts (1-based) */
};

/* Parses `text` (len bytes).  On error returns NULL and writes a one-line
 * message ("line L, column C: ...") into err. */
json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(json *v);
/* Object member by key, or NULL. */
const json *json_get(const json *obj, const char *key);

#endif
