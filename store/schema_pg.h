/* schema_pg.h: the store's schema on PostgreSQL (schema_pg.c): the base
 * created whole, and the later steps as PostgreSQL runs them. */
#ifndef LVD_STORE_SCHEMA_PG_H
#define LVD_STORE_SCHEMA_PG_H

#include <stddef.h>

/* The version a new PostgreSQL store is created at: schema.c's 1-12 at once. */
#define STORE_PG_BASE_VERSION 12

/* The base schema (malloc'd SQL, several statements; lvd_schema included). */
char *store_pg_schema_base(void);
/* The step to to_version (above the base) as PostgreSQL runs it: an override,
 * or schema.c's shared text through store_pg_ddl; malloc'd, NULL if none. */
char *store_pg_schema_step(size_t to_version);
/* A shared migration's text with SQLite's type names as PostgreSQL wants
 * them: INTEGER PRIMARY KEY an identity column, INTEGER BIGINT, REAL DOUBLE
 * PRECISION, WITHOUT ROWID dropped (literals untouched). Malloc'd. */
char *store_pg_ddl(const char *sql);

#endif
