/* schema.h: access to the ordered list of schema migrations. */
#ifndef LVD_STORE_SCHEMA_H
#define LVD_STORE_SCHEMA_H

#include <stddef.h>

/* The schema version this binary knows (the number of migrations). */
size_t store_schema_version(void);
/* The SQL that takes user_version from to_version-1 to to_version, or NULL. */
const char *store_schema_step(size_t to_version);

#endif
