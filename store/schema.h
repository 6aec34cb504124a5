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

/* Step 17's statement that leaves a result's test sizes out of its reported
 * tail where the tail starts with them as its columns print them
 * (store_reported.h), in both dialects (schema.c and schema_pg.c run it). */
#define STORE_SIZES_SQL "',\"n_prompt\":' || n_prompt || ',\"n_gen\":' || n_gen || ',\"n_depth\":' || n_depth"
#define STORE_SCHEMA_17_TAILS                                                                               \
    "UPDATE results SET reported_json = substr(reported_json, length(" STORE_SIZES_SQL ") + 1)"          \
    " WHERE reported_head IS NOT NULL AND n_prompt IS NOT NULL AND n_gen IS NOT NULL AND n_depth IS NOT NULL" \
    " AND substr(reported_json, 1, length(" STORE_SIZES_SQL ")) = " STORE_SIZES_SQL                       \
    " AND substr(reported_json, length(" STORE_SIZES_SQL ") + 1, 1) IN (',', '}');"

#endif
