/* schema.h: access to the ordered list of schema migrations. */
#ifndef LVD_STORE_SCHEMA_H
#define LVD_STORE_SCHEMA_H

#include <stddef.h>

/* The schema version this binary knows (the number of migrations). */
size_t store_schema_version(void);
/* The SQL that takes user_version from to_version-1 to to_version, or NULL. */
const char *store_schema_step(size_t to_version);
/* That step's SQL as it runs (malloc'd; NULL past the list): {HOST} in a
 * step is this machine's name (lvd_hostname), quoted for an SQL literal. */
char *store_schema_sql(size_t to_version);
/* sql with every {HOST} replaced so (malloc'd): a backend's own text of a step. */
char *store_schema_fill(const char *sql);
/* Whether that step rebuilds a table: it runs with foreign keys off (DROP
 * TABLE would cascade) and a foreign key check before it commits. */
int store_schema_fk_off(size_t to_version);

#endif
