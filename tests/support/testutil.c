/* testutil.c: helpers shared by the cmocka tests (see testutil.h). */
#include "tests/support/testutil.h"

#include "engine/probe.h"
#include "common/util.h"
#include "store/identify.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *tmpl = lvd_xasprintf("%s/lvd-test-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(tmpl));
    return tmpl;
}

void tu_tmpdir_free(char *dir)
{
    if (dir)
        lvd_rm_rf(dir);
    free(dir);
}

char *tu_fixture(const char *rel)
{
    const char *fx = getenv("LVD_FIXTURES");
    if (!fx || !*fx)
        fail_msg("LVD_FIXTURES is not set (run the tests through ctest)");
    return lvd_xasprintf("%s/%s", fx, rel);
}

char *tu_capture_text(const char *rel)
{
    char *path = lvd_xasprintf("llama.cpp/%s", rel);
    char *full = tu_fixture(path);
    char *text = tu_read(full, NULL);
    free(path);
    free(full);
    return text;
}

char *tu_model(const char *file)
{
    char *rel = lvd_xasprintf("share/models/%s", file);
    char *path = tu_source(rel);
    free(rel);
    if (access(path, F_OK) == 0)
        return path;
    free(path);
    rel = lvd_xasprintf("models/%s", file);
    path = tu_fixture(rel);
    free(rel);
    return path;
}

char *tu_source(const char *rel)
{
    const char *src = getenv("LVD_SOURCE");
    if (!src || !*src)
        fail_msg("LVD_SOURCE is not set (run the tests through ctest)");
    return lvd_xasprintf("%s/%s", src, rel);
}

void tu_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

void tu_write_str(const char *path, const char *s)
{
    tu_write(path, s, strlen(s));
}

char *tu_read(const char *path, size_t *n)
{
    lvd_sb sb = {0};
    lvd_err err;
    if (lvd_read_file(path, (size_t)1 << 30, &sb, &err) != 0)
        fail_msg("%s", err.msg);
    if (n)
        *n = sb.len;
    return lvd_sb_detach(&sb);
}

char *tu_capture(int fd, int (*fn)(void *), void *arg, int *rc)
{
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/captured", dir);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(fd);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), fd);
    *rc = fn(arg);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, fd);
    close(saved);
    fclose(f);
    char *text = tu_read(path, NULL);
    free(path);
    tu_tmpdir_free(dir);
    return text;
}

void tu_copy(const char *from, const char *to, unsigned mode)
{
    size_t n;
    char *data = tu_read(from, &n);
    tu_write(to, data, n);
    free(data);
    assert_int_equal(chmod(to, (mode_t)mode), 0);
}

lvd_params tu_params_every(void)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "CUDA0/CUDA1");
    snprintf(p.split_mode, sizeof p.split_mode, "row");
    snprintf(p.tensor_split, sizeof p.tensor_split, "0.60/0.40");
    p.ngl = 99;
    p.fa = 1;
    p.ubatch = 256;
    snprintf(p.type_k, sizeof p.type_k, "q8_0");
    snprintf(p.type_v, sizeof p.type_v, "q8_0");
    p.n_cpu_moe = 4;
    p.threads = 8;
    snprintf(p.env, sizeof p.env, "GGML_VK_VISIBLE_DEVICES=0");
    p.fit_target = 1024;
    p.fit_ctx = 4096;
    return p;
}

const char *tu_pg(void)
{
    const char *pg = getenv("LVD_TEST_PG");
    return pg && *pg ? pg : NULL;
}

/* A new, empty database on the test server; its URI (the server's, another
 * dbname). */
static char *pg_fresh_database(void)
{
    static unsigned n;
    PGconn *c = PQconnectdb(tu_pg());
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("LVD_TEST_PG: %s", PQerrorMessage(c));
    char name[64];
    snprintf(name, sizeof name, "t%ld_%u", (long)getpid(), n++);
    char *sql = lvd_xasprintf("CREATE DATABASE %s", name);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail_msg("%s(in: %.300s)", PQerrorMessage(c), sql); /* the error first: cmocka cuts long lines */
    PQclear(r);
    free(sql);
    const char *host = PQhost(c), *user = PQuser(c);
    char *uri = lvd_xasprintf("postgresql://%s@/%s?host=%s", user, name, host);
    PQfinish(c);
    return uri;
}

/* The first value of sql's result on the database uri (NULL: no row), or
 * fails the test. */
static char *pg_query(const char *uri, const char *sql)
{
    PGconn *c = PQconnectdb(uri);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("%s: %s", uri, PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        fail_msg("%s(in: %.300s)", PQerrorMessage(c), sql);
    char *v = st == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0) ? lvd_xstrdup(PQgetvalue(r, 0, 0))
                                                                                 : NULL;
    PQclear(r);
    PQfinish(c);
    return v;
}

void tu_pg_exec(const char *uri, const char *sql)
{
    free(pg_query(uri, sql));
}

int64_t tu_pg_int(const char *uri, const char *sql)
{
    char *v = pg_query(uri, sql);
    assert_non_null(v);
    int64_t n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

char *tu_store_spec(const char *dir)
{
    return tu_pg() ? pg_fresh_database() : lvd_xasprintf("%s/store.db", dir);
}

void tu_raw_exec(const char *spec, const char *sql)
{
    if (store_is_remote(spec))
        tu_pg_exec(spec, sql);
    else
        tu_sql(spec, sql);
}

int64_t tu_raw_int(const char *spec, const char *sql)
{
    return store_is_remote(spec) ? tu_pg_int(spec, sql) : tu_sql_int(spec, sql);
}

void tu_sqlite_only(void)
{
    if (tu_pg())
        skip();
}

store *tu_store_at(const char *spec)
{
    store *s = NULL;
    lvd_err err = {{0}};
    if (store_open(spec, STORE_OPEN_CREATE, &s, &err) != 0)
        fail_msg("%s", err.msg);
    return s;
}

int64_t tu_engine_put(store *s, const char *name, const char *dir)
{
    char own[256];
    snprintf(own, sizeof own, "/e/%s", name);
    lvd_engine e = {.name = (char *)name, .dir = (char *)(dir ? dir : own), .build = "b9749",
                    .origin = "registered"};
    lvd_err err = {{0}};
    if (store_engine_put(s, &e, &err))
        fail_msg("%s", err.msg);
    assert_true(e.id > 0);
    return e.id;
}

store *tu_store(const char *dir)
{
    char *path = tu_store_spec(dir);
    store *s = tu_store_at(path);
    free(path);
    return s;
}

int tu_store_setup(void **state)
{
    tu_storefx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    f->path = tu_store_spec(f->dir);
    f->s = tu_store_at(f->path);
    *state = f;
    return 0;
}

int tu_store_teardown(void **state)
{
    tu_storefx *f = *state;
    store_close(f->s);
    tu_tmpdir_free(f->dir);
    free(f->path);
    free(f);
    return 0;
}

int tu_session_setup(void **state)
{
    tu_session *f = lvd_xcalloc(1, sizeof *f);
    f->tmp = tu_tmpdir();
    f->model = tu_model("tiny-llama-q4_0.gguf");
    f->s = tu_store(f->tmp);
    lvd_err err = {{0}};
    if (store_identify(f->s, f->model, 0, &f->art, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    *state = f;
    return 0;
}

int tu_session_teardown(void **state)
{
    tu_session *f = *state;
    for (size_t i = 0; i < f->n; i++) {
        lvd_engine_free(&f->e[i]);
        lvd_probe_free(&f->p[i]);
    }
    store_artifact_free(&f->art);
    store_close(f->s);
    tu_tmpdir_free(f->tmp);
    free(f->model);
    free(f);
    return 0;
}

size_t tu_session_engine(tu_session *f, const char *name, int ppl, const char *scenario)
{
    assert_true(f->n < TU_MAX_ENGINES);
    size_t i = f->n++;
    char *dir = lvd_xasprintf("%s/%s", f->tmp, name);
    assert_int_equal(mkdir(dir, 0755), 0);
    const char *bins[] = {"llama-bench", "llama-perplexity"};
    for (size_t b = 0; b < (ppl ? 2u : 1u); b++) {
        char *bin = lvd_xasprintf("%s/%s", dir, bins[b]);
        assert_int_equal(symlink(getenv("LVD_FAKE_ENGINE"), bin), 0);
        free(bin);
    }
    char *scn = lvd_xasprintf("%s/fake-scenario", dir);
    char *text = lvd_xasprintf("log = calls.log\n%s", scenario);
    tu_write_str(scn, text);
    free(text);
    free(scn);
    lvd_engine *e = &f->e[i];
    memset(e, 0, sizeof *e);
    e->name = lvd_xstrdup(name);
    e->dir = dir;
    e->build = lvd_xstrdup("b9749");
    e->origin = lvd_xstrdup("registered");
    e->flavour = lvd_xstrdup("local");
    lvd_err err = {{0}};
    if (store_engine_put(f->s, e, &err) || engine_probe_engine(f->s, e, 1, 0, &f->p[i], &err))
        fail_msg("%s", err.msg);
    return i;
}

void tu_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

int64_t tu_sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}
