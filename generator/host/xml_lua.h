/* generator/host/xml_lua.h: xml_parse for Lua (xml_lua.c, libexpat). */
#ifndef DIAGC_XML_LUA_H
#define DIAGC_XML_LUA_H

#include <lua.h>

/* Deepest element nesting xml_parse accepts. */
#define DIAGC_XML_MAX_DEPTH 256

/* xml_parse(text, name) -> root | nil, "name:line:col: message"
 * The document's root element as a tree of plain tables
 *   {tag = "robot", attrs = {name = value, ...}, children = {element, ...},
 *    text = character data directly inside the element (concatenated),
 *    line = , col = (1-based, where the start tag begins)}.
 * Parsed by expat (well-formedness only, no DTD validation, no external
 * entities); `name` prefixes the error positions. */
int diagc_xml_parse_lua(lua_State *L);

#endif
