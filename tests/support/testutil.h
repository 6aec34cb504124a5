/* testutil.h: helpers shared by the cmocka tests: temporary directories,
 * paths into tests/fixtures, writing files, a fresh store per test, and sessions
 * over fake engines. */
#ifndef LVD_TESTUTIL_H
#define LVD_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/types.h"
#include "store/store.h"

/* SQL on the SQLite file at path through a connection of its own (the
 * "other process" of a test): run, failing the test on an error; or the
 * integer in the first column of its first row. */
void tu_sql(const char *path, const char *sql);
int64_t tu_sql_int(const char *path, const char *sql);

/* A fresh directory under $TMPDIR, removed by tu_tmpdir_free. */
char *tu_tmpdir(void);
void tu_tmpdir_free(char *dir);
/* $LVD_FIXTURES/rel, a file under tests/fixtures (fails the test when
 * LVD_FIXTURES is unset); malloc'd. */
char *tu_fixture(const char *rel);
/* The text of the capture tests/fixtures/llama.cpp/rel (tu_fixture,
 * tu_read); malloc'd. */
char *tu_capture_text(const char *rel);
/* A real test model by file name: share/models/FILE when the repository
 * ships it (the nightly's bundled tiny-llama, stored once), else
 * tests/fixtures/models/FILE; malloc'd. */
char *tu_model(const char *file);
/* $LVD_SOURCE/rel; malloc'd. */
char *tu_source(const char *rel);
/* Writes n bytes to path (fails the test on error). */
void tu_write(const char *path, const void *data, size_t n);
void tu_write_str(const char *path, const char *s);
/* Reads a whole file into a malloc'd NUL-terminated string. */
char *tu_read(const char *path, size_t *n);
/* Runs fn(arg) with file descriptor fd (stdout or stderr) going to a
 * temporary file: what it wrote there (malloc'd), its return value in *rc. */
char *tu_capture(int fd, int (*fn)(void *), void *arg, int *rc);
/* Copies file from to to and sets its mode (fails the test on error). */
void tu_copy(const char *from, const char *to, unsigned mode);

/* Engine parameters with every field passed: two devices CUDA0/CUDA1, -sm
 * row, -ts 0.60/0.40, -ngl 99, -fa 1, -ub 256, -ctk/-ctv q8_0, -ncmoe 4,
 * -t 8, -fitt 1024, -fitc 4096, env GGML_VK_VISIBLE_DEVICES=0. */
lvd_params tu_params_every(void);

/* A fresh store, created (fails the test on error): DIR/store.db, or a new
 * database on the test's PostgreSQL server when LVD_TEST_PG names one
 * (tests/pg/with-postgres.sh sets it: the _pg twins of the store tests). */
store *tu_store(const char *dir);
/* Opens (creating) the store spec names (fails the test on error). */
store *tu_store_at(const char *spec);
/* Records a plain engine NAME at dir (NULL: /e/NAME), build b9749, origin
 * registered, this host's; returns its id (fails the test otherwise). */
int64_t tu_engine_put(store *s, const char *name, const char *dir);
/* The specification tu_store opens (malloc'd): DIR/store.db or a new
 * database's URI. */
char *tu_store_spec(const char *dir);
/* LVD_TEST_PG (the test server's URI), or NULL: the tests run on SQLite. */
const char *tu_pg(void);
/* Skips the calling test on PostgreSQL: it inspects the SQLite file itself. */
void tu_sqlite_only(void);
/* Runs sql on the PostgreSQL database uri through a connection of its own
 * (the "other process"); its first value as an integer. Fail the test on error. */
void tu_pg_exec(const char *uri, const char *sql);
int64_t tu_pg_int(const char *uri, const char *sql);
/* The same on the store spec names, whichever backend: SQL through a
 * connection of its own (the "other process"), and its first value. */
void tu_raw_exec(const char *spec, const char *sql);
int64_t tu_raw_int(const char *spec, const char *sql);

/* A temporary directory with a fresh store in it. */
typedef struct tu_storefx {
    char *dir;
    char *path;   /* dir/store.db, or the PostgreSQL database's URI (tu_store) */
    store *s;
} tu_storefx;
/* cmocka setup and teardown: *state is a new tu_storefx. */
int tu_store_setup(void **state);
int tu_store_teardown(void **state);

/* A session over fake engines, for the tests that run them. */
enum { TU_MAX_ENGINES = 10 };
typedef struct tu_session {
    char *tmp;            /* a temporary directory, removed at teardown */
    char *model;          /* share/models/tiny-llama-q4_0.gguf */
    store *s;             /* tmp/store.db */
    store_artifact art;   /* the model, identified in s */
    lvd_engine e[TU_MAX_ENGINES];
    lvd_probe p[TU_MAX_ENGINES];
    size_t n;
} tu_session;

/* cmocka setup and teardown: *state is a new tu_session. */
int tu_session_setup(void **state);
int tu_session_teardown(void **state);
/* Engine NAME: tmp/NAME with $LVD_FAKE_ENGINE linked as llama-bench (and,
 * with ppl, llama-perplexity), its scenario "log = calls.log" and then
 * scenario; registered as build b9749 and probed afresh into e[i], p[i].
 * Returns i. */
size_t tu_session_engine(tu_session *f, const char *name, int ppl, const char *scenario);

#endif
