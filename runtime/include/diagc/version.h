/* diagc/version.h: the runtime library's version. */
#ifndef DIAGC_VERSION_H
#define DIAGC_VERSION_H

#define DIAGC_VERSION_STRING "0.1.0"

/* Returns "0.1.0" (DIAGC_VERSION_STRING of the library that was linked). */
const char *diagc_version(void);

#endif
