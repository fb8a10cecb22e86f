/* generator/host/xml_lua.c: an XML document as a tree of Lua tables,
 * xml_parse(text, name), parsed by libexpat (bin/diagc: diagc_host.xml_parse;
 * the URDF import, generator/diagc/world/urdf.lua, reads with it).
 *
 * The tree is built on the Lua side as expat reports the elements: a table
 * of the open elements (index = depth, 0 = the document) is kept on the Lua
 * stack.  The parser lives in a userdata whose __gc frees it, so a Lua error
 * raised inside a callback (the heap limit) leaks nothing. */
#include <stdio.h>
#include <string.h>

#include <expat.h>
#include <lauxlib.h>
#include <lua.h>

#include "xml_lua.h"

#define PARSER_MT "diagc_host.xml_parser"
#define CHUNK ((size_t)1 << 20) /* bytes handed to expat at a time */

typedef struct xml_state {
  lua_State *L;
  XML_Parser p;
  int open;  /* stack index of the table of open elements, [depth] = element */
  int texts; /* stack index of the table of their text pieces, [depth] = {...} */
  int depth;
  char why[128]; /* why the parse was stopped by a callback, if it was */
} xml_state;

static int parser_gc(lua_State *L) {
  XML_Parser *box = luaL_checkudata(L, 1, PARSER_MT);
  if (*box != NULL) XML_ParserFree(*box);
  *box = NULL;
  return 0;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void XMLCALL on_start(void *ud, const XML_Char *tag, const XML_Char **attrs) {
  xml_state *s = ud;
  lua_State *L = s->L;
  int i;
  if (s->depth >= DIAGC_XML_MAX_DEPTH) {
    snprintf(s->why, sizeof s->why, "elements are nested more than %d deep", DIAGC_XML_MAX_DEPTH);
    XML_StopParser(s->p, XML_FALSE);
    return;
  }
  lua_createtable(L, 0, 6);
  lua_pushstring(L, tag);
  lua_setfield(L, -2, "tag");
  lua_newtable(L);
  for (i = 0; attrs[i] != NULL; i += 2) {
    lua_pushstring(L, attrs[i + 1]);
    lua_setfield(L, -2, attrs[i]);
  }
  lua_setfield(L, -2, "attrs");
  lua_newtable(L);
  lua_setfield(L, -2, "children");
  set_int(L, "line", (lua_Integer)XML_GetCurrentLineNumber(s->p));
  set_int(L, "col", (lua_Integer)XML_GetCurrentColumnNumber(s->p) + 1);
  /* parent.children[#parent.children + 1] = element */
  lua_rawgeti(L, s->open, s->depth);
  lua_getfield(L, -1, "children");
  lua_pushvalue(L, -3);
  lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
  lua_pop(L, 2);
  s->depth++;
  lua_rawseti(L, s->open, s->depth);
}

static void XMLCALL on_end(void *ud, const XML_Char *tag) {
  xml_state *s = ud;
  lua_State *L = s->L;
  luaL_Buffer b;
  int i, n, el, pieces;
  (void)tag;
  lua_rawgeti(L, s->open, s->depth);
  el = lua_gettop(L);
  lua_rawgeti(L, s->texts, s->depth);
  pieces = lua_gettop(L);
  n = lua_istable(L, pieces) ? (int)lua_objlen(L, pieces) : 0;
  luaL_buffinit(L, &b); /* (the buffer keeps its parts on the stack) */
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, pieces, i);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  lua_setfield(L, el, "text");
  lua_settop(L, el - 1);
  lua_pushnil(L);
  lua_rawseti(L, s->texts, s->depth);
  lua_pushnil(L);
  lua_rawseti(L, s->open, s->depth);
  s->depth--;
}

static void XMLCALL on_text(void *ud, const XML_Char *text, int len) {
  xml_state *s = ud;
  lua_State *L = s->L;
  if (s->depth < 1) return;
  lua_rawgeti(L, s->texts, s->depth);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, s->texts, s->depth);
  }
  lua_pushlstring(L, text, (size_t)len);
  lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
  lua_pop(L, 1);
}

static int parse_error(lua_State *L, xml_state *s, const char *name) {
  enum XML_Error code = XML_GetErrorCode(s->p);
  const char *why = code == XML_ERROR_ABORTED && s->why[0] ? s->why : XML_ErrorString(code);
  long line = (long)XML_GetCurrentLineNumber(s->p);
  long col = (long)XML_GetCurrentColumnNumber(s->p) + 1;
  lua_pushnil(L);
  lua_pushfstring(L, "%s:%d:%d: %s", name, (int)line, (int)col, why ? why : "malformed XML");
  lua_pushinteger(L, (lua_Integer)line);
  lua_pushinteger(L, (lua_Integer)col);
  lua_pushstring(L, why ? why : "malformed XML");
  return 5;
}

/* xml_parse(text, name) -> root | nil, "name:line:col: why", line, col, why */
int diagc_xml_parse_lua(lua_State *L) {
  size_t len, off = 0;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "xml");
  XML_Parser *box;
  xml_state s;
  memset(&s, 0, sizeof s);
  s.L = L;
  box = lua_newuserdata(L, sizeof *box);
  *box = NULL;
  if (luaL_newmetatable(L, PARSER_MT)) {
    lua_pushcfunction(L, parser_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
  *box = s.p = XML_ParserCreate(NULL);
  if (s.p == NULL) return luaL_error(L, "xml_parse: cannot create an expat parser (out of memory)");
  XML_SetUserData(s.p, &s);
  XML_SetElementHandler(s.p, on_start, on_end);
  XML_SetCharacterDataHandler(s.p, on_text);
  lua_newtable(L); /* open elements; [0] = the document */
  s.open = lua_gettop(L);
  lua_createtable(L, 0, 1);
  lua_newtable(L);
  lua_setfield(L, -2, "children");
  lua_rawseti(L, s.open, 0);
  lua_newtable(L);
  s.texts = lua_gettop(L);
  do {
    size_t n = len - off < CHUNK ? len - off : CHUNK;
    int final = off + n == len;
    if (XML_Parse(s.p, text + off, (int)n, final) != XML_STATUS_OK) return parse_error(L, &s, name);
    off += n;
  } while (off < len);
  XML_ParserFree(s.p);
  *box = NULL;
  lua_rawgeti(L, s.open, 0);
  lua_getfield(L, -1, "children");
  lua_rawgeti(L, -1, 1);
  return 1;
}
