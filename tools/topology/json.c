/* json.c: a strict recursive-descent JSON parser (see json.h). */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *s, *end, *p;
  char *err;
  size_t errlen;
  int failed, depth;
} parser;

static void where(const parser *ps, const char *at, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (const char *q = ps->s; q < at && q < ps->end; q++) {
    if (*q == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

static void fail(parser *ps, const char *fmt, ...) {
  if (ps->failed) return;
  ps->failed = 1;
  int line, col;
  where(ps, ps->p, &line, &col);
  char msg[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(ps->err, ps->errlen, "line %d, column %d: %s", line, col, msg);
}

static void skip_ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static json *new_value(parser *ps, json_kind k) {
  json *v = calloc(1, sizeof *v);
  if (!v) {
    fail(ps, "out of memory");
    return NULL;
  }
  v->kind = k;
  int col;
  where(ps, ps->p, &v->line, &col);
  return v;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int read_hex4(parser *ps, unsigned *out) {
  if (ps->end - ps->p < 4) return 0;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(ps->p[i]);
    if (h < 0) return 0;
    v = v * 16 + (unsigned)h;
  }
  ps->p += 4;
  *out = v;
  return 1;
}

/* Parses a string starting at '"'; returns a malloc'd UTF-8 copy. */
static char *parse_string(parser *ps) {
  ps->p++; /* opening quote */
  size_t cap = 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fail(ps, "out of memory");
    return NULL;
  }
  for (;;) {
    if (ps->p >= ps->end) {
      fail(ps, "unterminated string");
      free(buf);
      return NULL;
    }
    unsigned char c = (unsigned char)*ps->p;
    char tmp[4];
    size_t k = 0;
    if (c == '"') {
      ps->p++;
      break;
    } else if (c < 0x20) {
      fail(ps, "control character in string");
      free(buf);
      return NULL;
    } else if (c == '\\') {
      ps->p++;
      if (ps->p >= ps->end) {
        fail(ps, "unterminated string");
        free(buf);
        return NULL;
      }
      char e = *ps->p++;
      unsigned cp;
      switch (e) {
      case '"': tmp[k++] = '"'; break;
      case '\\': tmp[k++] = '\\'; break;
      case '/': tmp[k++] = '/'; break;
      case 'b': tmp[k++] = '\b'; break;
      case 'f': tmp[k++] = '\f'; break;
      case 'n': tmp[k++] = '\n'; break;
      case 'r': tmp[k++] = '\r'; break;
      case 't': tmp[k++] = '\t'; break;
      case 'u':
        if (!read_hex4(ps, &cp)) {
          fail(ps, "bad \\u escape");
          free(buf);
          return NULL;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          unsigned lo;
          if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u' || (ps->p += 2, !read_hex4(ps, &lo)) ||
              lo < 0xDC00 || lo > 0xDFFF) {
            fail(ps, "unpaired surrogate in \\u escape");
            free(buf);
            return NULL;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail(ps, "unpaired surrogate in \\u escape");
          free(buf);
          return NULL;
        }
        if (cp < 0x80) tmp[k++] = (char)cp;
        else if (cp < 0x800) {
          tmp[k++] = (char)(0xC0 | (cp >> 6));
          tmp[k++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          tmp[k++] = (char)(0xE0 | (cp >> 12));
          tmp[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
          tmp[k++] = (char)(0x80 | (cp & 0x3F));
        } else {
          tmp[k++] = (char)(0xF0 | (cp >> 18));
          tmp[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
          tmp[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
          tmp[k++] = (char)(0x80 | (cp & 0x3F));
        }
        break;
      default:
        ps->p--;
        fail(ps, "bad escape '\\%c' in string", e);
        free(buf);
        return NULL;
      }
    } else {
      tmp[k++] = (char)c;
      ps->p++;
    }
    if (n + k + 1 > cap) {
      cap = cap * 2 + k;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fail(ps, "out of memory");
        return NULL;
      }
      buf = nb;
    }
    memcpy(buf + n, tmp, k);
    n += k;
  }
  buf[n] = 0;
  return buf;
}

static json *parse_value(parser *ps);

static int push(parser *ps, json *arr, json *item, char *key) {
  json **ni = realloc(arr->items, (arr->n + 1) * sizeof *ni);
  if (!ni) {
    fail(ps, "out of memory");
    return 0;
  }
  arr->items = ni;
  if (arr->kind == JSON_OBJECT) {
    char **nk = realloc(arr->keys, (arr->n + 1) * sizeof *nk);
    if (!nk) {
      fail(ps, "out of memory");
      return 0;
    }
    arr->keys = nk;
    arr->keys[arr->n] = key;
  }
  arr->items[arr->n++] = item;
  return 1;
}

static json *parse_container(parser *ps, int object) {
  json *v = new_value(ps, object ? JSON_OBJECT : JSON_ARRAY);
  if (!v) return NULL;
  if (++ps->depth > 256) {
    fail(ps, "nesting deeper than 256");
    return v;
  }
  ps->p++;
  skip_ws(ps);
  char close = object ? '}' : ']';
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
    ps->depth--;
    return v;
  }
  for (;;) {
    skip_ws(ps);
    char *key = NULL;
    if (object) {
      if (ps->p >= ps->end || *ps->p != '"') {
        fail(ps, ps->p < ps->end && *ps->p == close ? "trailing comma" : "expected a string key");
        return v;
      }
      key = parse_string(ps);
      if (!key) return v;
      for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0) {
          fail(ps, "duplicate key \"%s\"", key);
          free(key);
          return v;
        }
      skip_ws(ps);
      if (ps->p >= ps->end || *ps->p != ':') {
        fail(ps, "expected ':' after key");
        free(key);
        return v;
      }
      ps->p++;
      skip_ws(ps);
    } else if (ps->p < ps->end && *ps->p == close) {
      fail(ps, "trailing comma");
      return v;
    }
    json *item = parse_value(ps);
    if (!item || !push(ps, v, item, key)) {
      json_free(item);
      free(key);
      return v;
    }
    if (ps->failed) return v;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == close) {
      ps->p++;
      ps->depth--;
      return v;
    }
    fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    return v;
  }
}

static json *parse_number(parser *ps) {
  const char *q = ps->p;
  if (q < ps->end && *q == '-') q++;
  if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
    fail(ps, "bad number");
    return NULL;
  }
  if (*q == '0') q++;
  else while (q < ps->end && *q >= '0' && *q <= '9') q++;
  if (q < ps->end && *q == '.') {
    q++;
    if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
      fail(ps, "bad number: digits expected after '.'");
      return NULL;
    }
    while (q < ps->end && *q >= '0' && *q <= '9') q++;
  }
  if (q < ps->end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < ps->end && (*q == '+' || *q == '-')) q++;
    if (q >= ps->end || !(*q >= '0' && *q <= '9')) {
      fail(ps, "bad number: digits expected in exponent");
      return NULL;
    }
    while (q < ps->end && *q >= '0' && *q <= '9') q++;
  }
  char buf[64];
  size_t n = (size_t)(q - ps->p);
  if (n >= sizeof buf) {
    fail(ps, "number too long");
    return NULL;
  }
  memcpy(buf, ps->p, n);
  buf[n] = 0;
  json *v = new_value(ps, JSON_NUMBER);
  if (!v) return NULL;
  v->number = strtod(buf, NULL);
  if (!isfinite(v->number)) {
    fail(ps, "number out of range");
    return v;
  }
  ps->p = q;
  return v;
}

static int literal(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
    ps->p += n;
    return 1;
  }
  return 0;
}

static json *parse_value(parser *ps) {
  skip_ws(ps);
  if (ps->p >= ps->end) {
    fail(ps, "unexpected end of input");
    return NULL;
  }
  char c = *ps->p;
  if (c == '{') return parse_container(ps, 1);
  if (c == '[') return parse_container(ps, 0);
  if (c == '"') {
    json *v = new_value(ps, JSON_STRING);
    if (!v) return NULL;
    v->string = parse_string(ps);
    if (!v->string) {
      free(v);
      return NULL;
    }
    return v;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return parse_number(ps);
  json *v = new_value(ps, JSON_NULL);
  if (!v) return NULL;
  if (literal(ps, "true")) v->kind = JSON_TRUE;
  else if (literal(ps, "false")) v->kind = JSON_FALSE;
  else if (!literal(ps, "null")) {
    fail(ps, "unexpected character '%c'", c);
    free(v);
    return NULL;
  }
  return v;
}

json *json_parse(const char *text, size_t len, char *err, size_t errlen) {
  parser ps = { text, text + len, text, err, errlen, 0, 0 };
  if (errlen) err[0] = 0;
  json *v = parse_value(&ps);
  if (!ps.failed) {
    skip_ws(&ps);
    if (ps.p != ps.end) fail(&ps, "unexpected text after the JSON value");
  }
  if (ps.failed) {
    json_free(v);
    return NULL;
  }
  return v;
}

void json_free(json *v) {
  if (!v) return;
  for (size_t i = 0; i < v->n; i++) {
    json_free(v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->string);
  free(v);
}

const json *json_get(const json *obj, const char *key) {
  if (!obj || obj->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
  return NULL;
}
