/* runtime/src/version.c: see diagc/version.h. */
#include "diagc/version.h"

const char *diagc_version(void) { return DIAGC_VERSION_STRING; }
