/* diagc/version.h: the runtime library's version.  Written by `make` from
 * the file VERSION (the one place the version is kept); do not edit. */
#ifndef DIAGC_VERSION_H
#define DIAGC_VERSION_H

#define DIAGC_VERSION_STRING "0.1.0"
#define DIAGC_VERSION_MAJOR 0
#define DIAGC_VERSION_MINOR 1
#define DIAGC_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* Returns DIAGC_VERSION_STRING of the library that was linked. */
const char *diagc_version(void);

#ifdef __cplusplus
}
#endif

#endif
