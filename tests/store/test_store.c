/* test_store.c: the store as its callers see it: creation and migrations, the
 * refusal of newer schemas and of files that are not stores (left untouched),
 * every put/get roundtrip (NULLs and NaN included), atomic runs, and probe
 * freshness by TTL, binary mtime/size and backend, and store_rows, which
 * every list reads through. The SQLite calls here only prepare or inspect
 * files behind the store's back. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/bisectdb.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

typedef tu_storefx fx;

static void assert_near(double a, double b)
{
    if (!(fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1)))
        fail_msg("%.17g != %.17g", a, b);
}

static void expect_counts(store *s, int64_t runs, int64_t results, int64_t samples)
{
    store_counts c;
    lvd_err err = {0};
    assert_int_equal(store_counts_get(s, &c, &err), 0);
    assert_int_equal(c.runs, runs);
    assert_int_equal(c.results, results);
    assert_int_equal(c.samples, samples);
}

/* --- opening, migrations, refusals ---------------------------------------- */

static void test_create(void **state)
{
    (void)state;
    tu_sqlite_only(); /* the SQLite file itself */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/a/b/store.db", dir);
    store *s = NULL;
    lvd_err err = {0};
    assert_int_equal(store_open(path, 0, &s, &err), -1);
    assert_non_null(strstr(err.msg, "no store here"));
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &s, &err), 0);
    assert_string_equal(store_path(s), path);
    int64_t v;
    assert_int_equal(store_user_version(s, &v, &err), 0);
    assert_int_equal(v, (int64_t)store_schema_version());
    store_counts c;
    assert_int_equal(store_counts_get(s, &c, &err), 0);
    assert_int_equal(c.artifacts + c.engines + c.runs + c.verdicts, 0);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
    /* Reopening read-only works and sees the same version. */
    assert_int_equal(store_open(path, STORE_OPEN_READONLY, &s, &err), 0);
    assert_int_equal(store_user_version(s, &v, &err), 0);
    assert_int_equal(v, (int64_t)store_schema_version());
    store_close(s);
    free(path);
    tu_tmpdir_free(dir);
}

/* A store made before probes recorded their environment: its probes' env
 * is "not recorded" and never served from the cache, whatever is set now;
 * its checks carry none. */
static void test_migrate_probe_env(void **state)
{
    (void)state;
    tu_sqlite_only(); /* the SQLite file itself */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/v1.db", dir);
    char *sql = lvd_xasprintf("%s PRAGMA user_version = 1;"
                              "INSERT INTO engines (id, name, dir, build, origin, created_at)"
                              " VALUES (1, 'vk', '/e/vk', 'b9749', 'registered', 1);"
                              "INSERT INTO probes (engine_id, binary, bin_mtime_ns, bin_size, probed_at, backend)"
                              " VALUES (1, '/e/vk/llama-bench', 5, 6, 100, 'cpu');",
                              store_schema_step(1));
    tu_sql(path, sql);
    free(sql);
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        fail_msg("%s", err.msg);
    lvd_probe got;
    assert_int_equal(store_probe_latest(s, 1, &got, &err), 0);
    assert_null(got.env);
    lvd_probe_free(&got);
    assert_int_equal(store_probe_fresh(s, "/e/vk/llama-bench", "", 5, 6, 200, 86400, &got, &err), 1);
    assert_int_equal(store_probe_latest_env(s, 1, "", &got, &err), 1);
    store_close(s);
    free(path);
    tu_tmpdir_free(dir);
}

/* A store made before the sample arrays left the reported object (schema
 * 11): migration 12 strips them from valid JSON, keeps every other field,
 * and leaves a row that is not JSON as it was. */
static void test_migrate_reported_arrays(void **state)
{
    (void)state;
    tu_sqlite_only(); /* the SQLite file itself */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/v11.db", dir);
    lvd_sb sql = {0};
    for (size_t v = 1; v <= 11; v++)
        lvd_sb_adds(&sql, store_schema_step(v));
    lvd_sb_adds(&sql, "PRAGMA user_version = 11;"
                      "INSERT INTO artifacts (sha256, size, created_at) VALUES"
                      " ('" SHA_A "', 1, 1);"
                      "INSERT INTO engines (id, name, dir, build, origin, created_at)"
                      " VALUES (1, 'cpu', '/e/cpu', 'b9749', 'registered', 1);"
                      "INSERT INTO runs (id, artifact, engine_id, binary, build, host, arm_key, status, started_at, source)"
                      " VALUES (1, '" SHA_A "', 1, '/e/cpu/llama-bench', 'b9749', 'h', 'k', 'ok', 1, 'bench');"
                      "INSERT INTO results (id, run_id, test, reported_json) VALUES"
                      " (1, 1, 'tg128', '{\"avg_ts\": 5, \"samples_ns\": [1, 2], \"samples_ts\": [3.5, 4.5]}'),"
                      " (2, 1, 'pp512', 'not json \"samples_ns\"');");
    tu_sql(path, lvd_sb_str(&sql));
    lvd_sb_free(&sql);
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        fail_msg("%s", err.msg);
    store_run_filter f = {.with_samples = 1};
    lvd_run *v;
    size_t n;
    assert_int_equal(store_run_list(s, &f, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].n_results, 2);
    assert_string_equal(v[0].results[0].reported_json, "{\"avg_ts\":5}");
    assert_string_equal(v[0].results[1].reported_json, "not json \"samples_ns\"");
    store_run_list_free(v, n);
    store_close(s);
    free(path);
    tu_tmpdir_free(dir);
}

static void test_migrate_from_zero(void **state)
{
    (void)state;
    tu_sqlite_only(); /* the SQLite file itself */
    char *dir = tu_tmpdir();
    /* An SQLite file at user_version 0 with an unrelated table, and an empty file. */
    char *old = lvd_xasprintf("%s/old.db", dir);
    tu_sql(old, "CREATE TABLE keep_me (x INTEGER); INSERT INTO keep_me VALUES (42);");
    char *empty = lvd_xasprintf("%s/empty.db", dir);
    tu_write(empty, "", 0);
    const char *paths[] = {old, empty};
    for (size_t i = 0; i < 2; i++) {
        store *s;
        lvd_err err = {0};
        /* Read-only never migrates. */
        assert_int_equal(store_open(paths[i], STORE_OPEN_READONLY, &s, &err), -1);
        assert_non_null(strstr(err.msg, "needs migrating"));
        assert_int_equal(tu_sql_int(paths[i], "PRAGMA user_version"), 0);
        if (store_open(paths[i], 0, &s, &err))
            fail_msg("%s", err.msg);
        int64_t v;
        assert_int_equal(store_user_version(s, &v, &err), 0);
        assert_int_equal(v, (int64_t)store_schema_version());
        store_artifact a = {.sha256 = SHA_A, .size = 1};
        assert_int_equal(store_artifact_put(s, &a, &err), 0);
        store_close(s);
    }
    assert_int_equal(tu_sql_int(old, "SELECT x FROM keep_me"), 42);
    assert_int_equal(tu_sql_int(old, "SELECT count(*) FROM artifacts"), 1);
    /* Every migration step exists and the list ends where the version says. */
    for (size_t v = 1; v <= store_schema_version(); v++)
        assert_non_null(store_schema_step(v));
    assert_null(store_schema_step(store_schema_version() + 1));
    assert_null(store_schema_step(0));
    free(old);
    free(empty);
    tu_tmpdir_free(dir);
}

static void test_refuse_newer(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 7};
    assert_int_equal(store_artifact_put(f->s, &a, &err), 0);
    store_close(f->s);
    f->s = NULL;
    int pg = tu_pg() != NULL;
    tu_raw_exec(f->path, pg ? "UPDATE lvd_schema SET version = 99" : "PRAGMA user_version = 99");
    size_t n0 = 0;
    char *before = pg ? NULL : tu_read(f->path, &n0);
    const char *tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'";
    int64_t tables0 = pg ? tu_raw_int(f->path, tables) : 0;
    const int flags[] = {0, STORE_OPEN_CREATE, STORE_OPEN_READONLY};
    for (size_t i = 0; i < LVD_ARRAY_LEN(flags); i++) {
        store *s = NULL;
        assert_int_equal(store_open(f->path, flags[i], &s, &err), -1);
        assert_null(s);
        assert_non_null(strstr(err.msg, f->path));
        assert_non_null(strstr(err.msg, "schema version 99 is newer"));
        assert_non_null(strstr(err.msg, "not changed"));
    }
    size_t n1 = 0;
    char *after = pg ? NULL : tu_read(f->path, &n1);
    assert_int_equal(n0, n1);
    if (pg) {
        assert_int_equal(tu_raw_int(f->path, tables), tables0);
        assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM artifacts"), 1);
    } else {
        assert_memory_equal(before, after, n0);
    }
    assert_int_equal(tu_raw_int(f->path, pg ? "SELECT version FROM lvd_schema" : "PRAGMA user_version"), 99);
    free(before);
    free(after);
}

static void test_refuse_not_a_database(void **state)
{
    (void)state;
    tu_sqlite_only(); /* the SQLite file itself */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/notes.txt", dir);
    lvd_sb sb = {0};
    for (int i = 0; i < 200; i++)
        lvd_sb_adds(&sb, "this is a text file, not a store\n");
    tu_write(path, sb.buf, sb.len);
    store *s = NULL;
    lvd_err err = {0};
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &s, &err), -1);
    assert_non_null(strstr(err.msg, "not a llama-verdict store"));
    assert_non_null(strstr(err.msg, path));
    size_t n;
    char *after = tu_read(path, &n);
    assert_int_equal(n, sb.len);
    assert_memory_equal(after, sb.buf, n);
    free(after);
    /* A directory is refused too. */
    assert_int_equal(store_open(dir, 0, &s, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    lvd_sb_free(&sb);
    free(path);
    tu_tmpdir_free(dir);
}

static void test_default_path(void **state)
{
    (void)state;
    char *saved_store = getenv("LVD_STORE") ? lvd_xstrdup(getenv("LVD_STORE")) : NULL;
    char *saved_xdg = getenv("XDG_DATA_HOME") ? lvd_xstrdup(getenv("XDG_DATA_HOME")) : NULL;
    setenv("LVD_STORE", "/env/store.db", 1);
    setenv("XDG_DATA_HOME", "/xdg", 1);
    char *p = store_default_path("/explicit.db");
    assert_string_equal(p, "/explicit.db");
    free(p);
    p = store_default_path(NULL);
    assert_string_equal(p, "/env/store.db");
    free(p);
    unsetenv("LVD_STORE");
    p = store_default_path(NULL);
    assert_string_equal(p, "/xdg/llama-verdict/store.db");
    free(p);
    unsetenv("XDG_DATA_HOME");
    p = store_default_path("");
    assert_true(lvd_ends_with(p, "/.local/share/llama-verdict/store.db"));
    free(p);
    if (saved_store)
        setenv("LVD_STORE", saved_store, 1);
    if (saved_xdg)
        setenv("XDG_DATA_HOME", saved_xdg, 1);
    free(saved_store);
    free(saved_xdg);
}

/* --- artifacts and the path cache --------------------------------------- */

static gguf_shape full_shape(void)
{
    gguf_shape g = {0};
    g.known = 1;
    g.version = 3;
    g.n_tensors = 291;
    g.n_kv = 24;
    strcpy(g.arch, "llama");
    strcpy(g.name, "Small Llama");
    g.file_type = 7;
    g.n_block = 4;
    g.n_embd = 256;
    g.n_head = 8;
    g.n_head_kv = 4;
    g.head_dim_k = 32;
    g.head_dim_v = 32;
    g.n_ctx_train = 2048;
    g.n_expert = 8;
    g.n_expert_used = 2;
    g.block_bytes = 5000000000ULL; /* above 2^32 */
    g.expert_bytes = 4000000000ULL;
    g.non_block_bytes = 16777216;
    g.tensor_bytes = 20550656;
    g.data_offset = 725440;
    g.embd_bytes = 4194304; /* every stored column its own value */
    return g;
}

static void test_artifacts(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 20725888, .shape = full_shape(), .last_path = "/m/a.gguf"};
    assert_int_equal(store_artifact_put(f->s, &a, &err), 0);
    store_artifact got;
    assert_int_equal(store_artifact_get(f->s, SHA_A, &got, &err), 0);
    assert_string_equal(got.sha256, SHA_A);
    assert_int_equal(got.size, 20725888);
    assert_true(got.created_at > 0);
    assert_string_equal(got.last_path, "/m/a.gguf");
    assert_memory_equal(&got.shape, &a.shape, sizeof a.shape);
    store_artifact_free(&got);

    /* A stub (shape unknown, size unknown, no path) never erases what is known. */
    store_artifact stub = {.sha256 = SHA_A, .size = -1};
    assert_int_equal(store_artifact_put(f->s, &stub, &err), 0);
    assert_int_equal(store_artifact_get(f->s, SHA_A, &got, &err), 0);
    assert_int_equal(got.size, 20725888);
    assert_string_equal(got.last_path, "/m/a.gguf");
    assert_memory_equal(&got.shape, &a.shape, sizeof a.shape);
    store_artifact_free(&got);

    /* A stub alone: shape unknown and NULL path read back as such. */
    store_artifact b = {.sha256 = SHA_B, .size = -1};
    assert_int_equal(store_artifact_put(f->s, &b, &err), 0);
    assert_int_equal(store_artifact_get(f->s, SHA_B, &got, &err), 0);
    assert_int_equal(got.shape.known, 0);
    assert_int_equal(got.size, -1);
    assert_null(got.last_path);
    store_artifact_free(&got);
    /* ...and the real file later fills it in. */
    b.size = 99;
    b.shape = full_shape();
    b.shape.n_expert = 0;
    assert_int_equal(store_artifact_put(f->s, &b, &err), 0);
    assert_int_equal(store_artifact_get(f->s, SHA_B, &got, &err), 0);
    assert_int_equal(got.size, 99);
    assert_int_equal(got.shape.known, 1);
    assert_int_equal(got.shape.n_expert, 0);
    store_artifact_free(&got);

    store_artifact *v;
    size_t n;
    assert_int_equal(store_artifact_list(f->s, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    store_artifact_list_free(v, n);

    assert_int_equal(store_artifact_get(f->s, "cccc", &got, &err), 1);
    store_artifact bad = {.sha256 = "ABCDEF"};
    assert_int_equal(store_artifact_put(f->s, &bad, &err), -1);
    assert_non_null(strstr(err.msg, "not a SHA-256"));
}

static void test_path_cache(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    char sha[LVD_SHA256_HEX_LEN + 1];
    /* The artifact must be recorded first. */
    assert_int_equal(store_path_put(f->s, "/m/a.gguf", 10, 1000, 77, SHA_A, &err), -1);
    assert_non_null(strstr(err.msg, "record the artifact first"));
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 10, 1000, 77, sha, &err), 1);
    store_artifact a = {.sha256 = SHA_A, .size = 10};
    assert_int_equal(store_artifact_put(f->s, &a, &err), 0);
    assert_int_equal(store_path_put(f->s, "/m/a.gguf", 10, 1000, 77, SHA_A, &err), 0);
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 10, 1000, 77, sha, &err), 0);
    assert_string_equal(sha, SHA_A);
    /* Any change of size, mtime or inode is a miss. */
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 11, 1000, 77, sha, &err), 1);
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 10, 1001, 77, sha, &err), 1);
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 10, 1000, 78, sha, &err), 1);
    assert_int_equal(store_path_lookup(f->s, "/m/b.gguf", 10, 1000, 77, sha, &err), 1);
    /* Re-recording the path replaces the old entry and moves last_path. */
    store_artifact b = {.sha256 = SHA_B, .size = 11};
    assert_int_equal(store_artifact_put(f->s, &b, &err), 0);
    assert_int_equal(store_path_put(f->s, "/m/a.gguf", 11, 2000, 77, SHA_B, &err), 0);
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 10, 1000, 77, sha, &err), 1);
    assert_int_equal(store_path_lookup(f->s, "/m/a.gguf", 11, 2000, 77, sha, &err), 0);
    assert_string_equal(sha, SHA_B);
    store_artifact got;
    assert_int_equal(store_artifact_get(f->s, SHA_B, &got, &err), 0);
    assert_string_equal(got.last_path, "/m/a.gguf");
    store_artifact_free(&got);
}

/* --- engines and probes --------------------------------------------------- */


static void test_engines(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_engine e = {.name = "b9749-cpu", .dir = "/e/cpu", .build = "b9749", .commit = "d32676d77",
                    .flavour = "ubuntu-x64", .digest = SHA_A, .origin = "fetched", .created_at = 1234};
    assert_int_equal(store_engine_put(f->s, &e, &err), 0);
    int64_t id = e.id;
    assert_true(id > 0);
    lvd_engine got;
    assert_int_equal(store_engine_get(f->s, id, &got, &err), 0);
    assert_string_equal(got.name, "b9749-cpu");
    assert_string_equal(got.dir, "/e/cpu");
    assert_string_equal(got.build, "b9749");
    assert_string_equal(got.commit, "d32676d77");
    assert_string_equal(got.flavour, "ubuntu-x64");
    assert_string_equal(got.digest, SHA_A);
    assert_string_equal(got.origin, "fetched");
    assert_int_equal(got.created_at, 1234);
    lvd_engine_free(&got);

    /* Update by name: same id and created_at, NULLs stay NULL. */
    lvd_engine u = {.name = "b9749-cpu", .dir = "/e/cpu2", .build = "b9750", .origin = "registered"};
    assert_int_equal(store_engine_put(f->s, &u, &err), 0);
    assert_int_equal(u.id, id);
    assert_int_equal(u.created_at, 1234);
    assert_int_equal(store_engine_by_name(f->s, "b9749-cpu", &got, &err), 0);
    assert_string_equal(got.dir, "/e/cpu2");
    assert_string_equal(got.build, "b9750");
    assert_null(got.commit);
    assert_null(got.flavour);
    assert_null(got.digest);
    lvd_engine_free(&got);

    /* A second engine in the same directory is refused, naming the first. */
    lvd_engine clash = {.name = "other", .dir = "/e/cpu2", .build = "b1", .origin = "registered"};
    assert_int_equal(store_engine_put(f->s, &clash, &err), -1);
    assert_non_null(strstr(err.msg, "already registered as 'b9749-cpu'"));
    lvd_engine bad_origin = {.name = "x", .dir = "/e/x", .build = "b1", .origin = "stolen"};
    assert_int_equal(store_engine_put(f->s, &bad_origin, &err), -1);
    lvd_engine no_build = {.name = "x", .dir = "/e/x", .origin = "registered"};
    assert_int_equal(store_engine_put(f->s, &no_build, &err), -1);
    assert_non_null(strstr(err.msg, "needs a name"));

    tu_engine_put(f->s, "cuda-local", "/e/cuda");
    lvd_engine *v;
    size_t n;
    assert_int_equal(store_engine_list(f->s, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(v[0].name, "b9749-cpu");
    assert_string_equal(v[1].name, "cuda-local");
    store_engine_list_free(v, n);
    assert_int_equal(store_engine_get(f->s, 999, &got, &err), 1);
    assert_int_equal(store_engine_by_name(f->s, "nope", &got, &err), 1);
}

static void test_probes(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = tu_engine_put(f->s, "cuda", "/e/cuda");
    const char *bin = "/e/cuda/llama-bench";
    lvd_probe got;
    assert_int_equal(store_probe_latest(f->s, eid, &got, &err), 1);
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 600, 10000, 86400, &got, &err), 1);

    lvd_device devs[2] = {
        {.selector = "CUDA0", .name = "NVIDIA H200", .total_mib = 143156, .free_mib = 142422,
         .backend = "cuda", .compute_cap = "9.0"},
        {.selector = "Vulkan0", .name = "NVIDIA H200 (NVIDIA)", .total_mib = -1, .free_mib = -1,
         .backend = "vulkan"},
    };
    lvd_probe p = {.engine_id = eid, .binary = (char *)bin, .bin_mtime_ns = 500, .bin_size = 600,
                   .probed_at = 10000, .backend = "cuda", .devices = devs, .n_devices = 2,
                   .flags = "lvd-flags 1\n[llama-bench]\n-m --model <filename>\n"};
    assert_int_equal(store_probe_put(f->s, &p, &err), 0);
    assert_true(p.id > 0);

    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 600, 10000 + 3600, 86400, &got, &err), 0);
    assert_int_equal(got.id, p.id);
    assert_int_equal(got.engine_id, eid);
    assert_string_equal(got.binary, bin);
    assert_string_equal(got.backend, "cuda");
    assert_null(got.reason);
    assert_int_equal(got.n_devices, 2);
    assert_memory_equal(&got.devices[0], &devs[0], sizeof devs[0]);
    assert_memory_equal(&got.devices[1], &devs[1], sizeof devs[1]);
    assert_string_equal(got.flags, p.flags); /* what its tools list, kept with it */
    lvd_probe_free(&got);

    /* TTL: fresh at exactly ttl, stale one second later. */
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 600, 10000 + 86400, 86400, &got, &err), 0);
    lvd_probe_free(&got);
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 600, 10000 + 86401, 86400, &got, &err), 1);
    /* A changed binary (mtime or size) invalidates at once. */
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 501, 600, 10001, 86400, &got, &err), 1);
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 601, 10001, 86400, &got, &err), 1);
    assert_int_equal(store_probe_fresh(f->s, "/e/other/llama-bench", NULL, 500, 600, 10001, 86400, &got, &err), 1);

    /* "cpu" (probed, no devices) is a cacheable fact... */
    const char *cpu_bin = "/e/cpu/llama-bench";
    lvd_probe cpu = {.engine_id = eid, .binary = (char *)cpu_bin, .bin_mtime_ns = 1, .bin_size = 2,
                     .probed_at = 20000, .backend = "cpu"};
    assert_int_equal(store_probe_put(f->s, &cpu, &err), 0);
    assert_int_equal(store_probe_fresh(f->s, cpu_bin, NULL, 1, 2, 20000, 86400, &got, &err), 0);
    assert_string_equal(got.backend, "cpu");
    assert_int_equal(got.n_devices, 0);
    lvd_probe_free(&got);

    /* ..."unknown" never is, though it is recorded and is the latest. */
    const char *hung = "/e/hung/llama-bench";
    lvd_probe unk = {.engine_id = eid, .binary = (char *)hung, .bin_mtime_ns = 1, .bin_size = 2,
                     .probed_at = 30000, .backend = "unknown", .reason = "timed out after 5000 ms"};
    assert_int_equal(store_probe_put(f->s, &unk, &err), 0);
    assert_int_equal(store_probe_fresh(f->s, hung, NULL, 1, 2, 30000, 86400, &got, &err), 1);
    assert_int_equal(store_probe_latest(f->s, eid, &got, &err), 0);
    assert_int_equal(got.id, unk.id);
    assert_string_equal(got.backend, "unknown");
    assert_string_equal(got.reason, "timed out after 5000 ms");
    lvd_probe_free(&got);

    /* A newer valid probe of the same binary is the one served. */
    lvd_probe p2 = p;
    p2.id = 0;
    p2.probed_at = 15000;
    p2.n_devices = 1;
    assert_int_equal(store_probe_put(f->s, &p2, &err), 0);
    assert_int_equal(store_probe_fresh(f->s, bin, NULL, 500, 600, 16000, 86400, &got, &err), 0);
    assert_int_equal(got.id, p2.id);
    assert_int_equal(got.n_devices, 1);
    lvd_probe_free(&got);

    /* The environment is part of the key: a probe made under
     * GGML_VK_VISIBLE_DEVICES=0 is served only under it, and the probe made
     * with nothing set only without it. */
    lvd_probe vk = p;
    vk.id = 0;
    vk.probed_at = 15500;
    vk.env = "GGML_VK_VISIBLE_DEVICES=0";
    assert_int_equal(store_probe_put(f->s, &vk, &err), 0);
    assert_int_equal(store_probe_fresh(f->s, bin, "GGML_VK_VISIBLE_DEVICES=0", 500, 600, 16000, 86400, &got, &err), 0);
    assert_int_equal(got.id, vk.id);
    assert_string_equal(got.env, "GGML_VK_VISIBLE_DEVICES=0");
    lvd_probe_free(&got);
    assert_int_equal(store_probe_fresh(f->s, bin, "", 500, 600, 16000, 86400, &got, &err), 0);
    assert_int_equal(got.id, p2.id);
    assert_string_equal(got.env, "");
    lvd_probe_free(&got);
    assert_int_equal(store_probe_fresh(f->s, bin, "GGML_VK_VISIBLE_DEVICES=1", 500, 600, 16000, 86400, &got, &err), 1);
    assert_int_equal(store_probe_fresh(f->s, bin, "GGML_VK_VISIBLE_DEVICES=", 500, 600, 16000, 86400, &got, &err), 1);
    assert_int_equal(store_probe_latest_env(f->s, eid, "GGML_VK_VISIBLE_DEVICES=0", &got, &err), 0);
    assert_int_equal(got.id, vk.id);
    lvd_probe_free(&got);
    assert_int_equal(store_probe_latest_env(f->s, eid, "", &got, &err), 0);
    assert_int_equal(got.id, unk.id);
    lvd_probe_free(&got);
    assert_int_equal(store_probe_latest_env(f->s, eid, "CUDA_VISIBLE_DEVICES=0", &got, &err), 1);

    /* A probe of an engine that does not exist is refused. */
    lvd_probe orphan = {.engine_id = 999, .binary = "/x", .backend = "cpu"};
    assert_int_equal(store_probe_put(f->s, &orphan, &err), -1);
    store_counts c;
    assert_int_equal(store_counts_get(f->s, &c, &err), 0);
    assert_int_equal(c.probes, 5);
}

/* --- runs ----------------------------------------------------------------- */

static void fill_result(lvd_result *r, const char *test, size_t n, double base)
{
    memset(r, 0, sizeof *r);
    snprintf(r->test, sizeof r->test, "%s", test);
    r->n_prompt = 512;
    r->n_depth = 0;
    strcpy(r->backends, "CUDA");
    r->rep_ngl = 99;
    r->rep_fa = 1;
    r->rep_ubatch = 512;
    r->rep_n_cpu_moe = 0;
    r->rep_threads = 16;
    strcpy(r->rep_type_k, "f16");
    strcpy(r->rep_type_v, "q8_0");
    r->reported_json = lvd_xstrdup("{\"avg_ts\": 1}");
    r->n = n;
    r->ns = lvd_xcalloc(n, sizeof *r->ns);
    r->ts = lvd_xcalloc(n, sizeof *r->ts);
    r->warmup = lvd_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        r->ns[i] = 1000000 + (int64_t)i;
        r->ts[i] = base + (double)i / 3.0;
    }
    if (n)
        r->warmup[0] = 1;
}

static void make_run(lvd_run *r, int64_t eid, const char *arm, int64_t started)
{
    memset(r, 0, sizeof *r);
    strcpy(r->artifact, SHA_A);
    r->engine_id = eid;
    r->binary = lvd_xstrdup("/e/cuda/llama-bench");
    r->build = lvd_xstrdup("b9749");
    r->host = lvd_xstrdup("gpu-box");
    lvd_params_init(&r->params);
    strcpy(r->params.device, "CUDA0");
    r->params.ngl = 99;
    r->arm_key = lvd_xstrdup(arm);
    r->build_number = 9749;
    strcpy(r->status, "ok");
    r->exit_code = 0;
    r->started_at = started;
    r->wall_ms = 4321;
    strcpy(r->source, "bench");
    r->n_results = 2;
    r->results = lvd_xcalloc(2, sizeof *r->results);
    fill_result(&r->results[0], "pp512", 5, 60000.5);
    fill_result(&r->results[1], "tg128", 3, 995.25);
}

static void setup_run_deps(store *s, int64_t *eid)
{
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 1};
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
    *eid = tu_engine_put(s, "cuda", "/e/cuda");
}

/* Puts a probe of engine eid under env at probed_at with the devices
 * named in sel (NULL-terminated; none: no devices); its id. */
static int64_t put_probe(store *s, int64_t eid, const char *env, int64_t probed_at, const char *const *sel)
{
    lvd_device devs[4];
    size_t n = 0;
    for (; sel && sel[n]; n++)
        devs[n] = (lvd_device){.total_mib = 1000 + (int64_t)n, .free_mib = -1, .backend = "cuda"};
    for (size_t i = 0; i < n; i++) {
        snprintf(devs[i].selector, sizeof devs[i].selector, "%s", sel[i]);
        snprintf(devs[i].name, sizeof devs[i].name, "card %zu", i);
    }
    lvd_probe p = {.engine_id = eid, .binary = "/e/x/llama-bench", .bin_mtime_ns = 5, .bin_size = 6,
                   .probed_at = probed_at, .backend = "cuda", .env = (char *)env, .devices = devs,
                   .n_devices = n};
    lvd_err err = {{0}};
    if (store_probe_put(s, &p, &err))
        fail_msg("%s", err.msg);
    return p.id;
}

/* Every engine with its newest probe under one environment in one query
 * (lvd select's read): the same probe store_probe_latest_env finds per
 * engine, its devices in order; an engine never probed there comes with a
 * zeroed probe; a retired one and another host's are left out. */
static void test_probes_batch(void **state)
{
    fx *f = *state;
    lvd_err err = {{0}};
    static const char *const two[] = {"CUDA0", "CUDA1", NULL};
    static const char *const one[] = {"CUDA9", NULL};
    int64_t a = tu_engine_put(f->s, "a", NULL), b = tu_engine_put(f->s, "b", NULL);
    int64_t never = tu_engine_put(f->s, "never", NULL), old = tu_engine_put(f->s, "old", NULL);
    lvd_engine far = {.name = "far", .dir = "/e/far", .build = "b9749", .origin = "registered", .host = "elsewhere"};
    assert_int_equal(store_engine_put(f->s, &far, &err), 0);
    put_probe(f->s, a, "", 100, one);
    int64_t a_new = put_probe(f->s, a, "", 200, two);
    int64_t a_env = put_probe(f->s, a, "CUDA_VISIBLE_DEVICES=1", 300, one);
    int64_t b_new = put_probe(f->s, b, "", 150, NULL);
    put_probe(f->s, b, "", 140, one);
    put_probe(f->s, never, "CUDA_VISIBLE_DEVICES=1", 100, one);
    put_probe(f->s, old, "", 500, one);
    put_probe(f->s, far.id, "", 500, one);
    assert_int_equal(store_engine_retire(f->s, old, &err), 0);

    lvd_engine *e;
    lvd_probe *v;
    size_t n;
    assert_int_equal(store_engines_probed(f->s, NULL, NULL, &e, &v, &n, &err), 0);
    assert_int_equal(n, 3); /* a, b and never; not old (retired) nor far (another host) */
    assert_int_equal(e[0].id, a);
    assert_string_equal(e[0].name, "a");
    assert_int_equal(v[0].engine_id, a);
    assert_int_equal(v[0].id, a_new);
    assert_int_equal(v[0].probed_at, 200);
    assert_int_equal(v[0].n_devices, 2);
    assert_string_equal(v[0].devices[0].selector, "CUDA0");
    assert_string_equal(v[0].devices[1].selector, "CUDA1");
    assert_string_equal(v[0].devices[1].name, "card 1");
    assert_int_equal(v[0].devices[1].total_mib, 1001);
    assert_int_equal(v[0].devices[1].free_mib, -1);
    assert_int_equal(e[1].id, b);
    assert_int_equal(v[1].engine_id, b);
    assert_int_equal(v[1].id, b_new);
    assert_int_equal(v[1].n_devices, 0);
    assert_int_equal(e[2].id, never);
    assert_int_equal(v[2].id, 0); /* never probed under "" */
    assert_int_equal(v[2].n_devices, 0);
    /* the same probes, one query per engine */
    for (size_t i = 0; i < 2; i++) {
        lvd_probe one_by_one;
        assert_int_equal(store_probe_latest_env(f->s, v[i].engine_id, "", &one_by_one, &err), 0);
        assert_int_equal(one_by_one.id, v[i].id);
        assert_int_equal(one_by_one.n_devices, v[i].n_devices);
        lvd_probe_free(&one_by_one);
    }
    store_engine_list_free(e, n);
    store_probe_list_free(v, n);

    assert_int_equal(store_engines_probed(f->s, NULL, "CUDA_VISIBLE_DEVICES=1", &e, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].id, a_env);
    assert_string_equal(v[0].env, "CUDA_VISIBLE_DEVICES=1");
    assert_int_equal(v[0].n_devices, 1);
    assert_string_equal(v[0].devices[0].selector, "CUDA9");
    assert_int_equal(v[1].id, 0); /* b was never probed under it */
    assert_int_equal(e[2].id, never);
    assert_int_equal(v[2].engine_id, never);
    store_engine_list_free(e, n);
    store_probe_list_free(v, n);

    assert_int_equal(store_engines_probed(f->s, "elsewhere", "", &e, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(e[0].id, far.id);
    assert_int_equal(v[0].engine_id, far.id);
    store_engine_list_free(e, n);
    store_probe_list_free(v, n);
    assert_int_equal(store_engines_probed(f->s, "nobody", "", &e, &v, &n, &err), 0);
    assert_int_equal(n, 0);
    assert_null(e);
    assert_null(v);
}

static void test_run_roundtrip(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid;
    setup_run_deps(f->s, &eid);
    lvd_run r;
    make_run(&r, eid, "arm-a", 1000);
    r.session = lvd_xstrdup("night-1");
    r.build_commit = lvd_xstrdup("unknown");
    r.params.fa = 1;
    r.params.ubatch = 256;
    strcpy(r.params.type_k, "q8_0");
    strcpy(r.params.type_v, "q8_0");
    r.params.n_cpu_moe = 4;
    r.params.threads = 8;
    strcpy(r.params.env, "GGML_VK_PREFER_HOST_MEMORY=1");
    r.results[1].ns = (free(r.results[1].ns), NULL); /* ns unknown */
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    assert_true(r.id > 0 && r.results[0].id > 0 && r.results[1].id > 0);
    expect_counts(f->s, 1, 2, 8);

    store_run_filter flt = {.with_samples = 1};
    lvd_run *v;
    size_t n;
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    lvd_run *g = &v[0];
    assert_int_equal(g->id, r.id);
    assert_string_equal(g->artifact, SHA_A);
    assert_int_equal(g->engine_id, eid);
    assert_string_equal(g->binary, r.binary);
    assert_string_equal(g->build, "b9749");
    assert_string_equal(g->host, "gpu-box");
    assert_string_equal(g->session, "night-1");
    assert_string_equal(g->arm_key, "arm-a");
    assert_memory_equal(&g->params, &r.params, sizeof r.params);
    assert_string_equal(g->build_commit, "unknown");
    assert_int_equal(g->build_number, 9749);
    assert_string_equal(g->status, "ok");
    assert_null(g->reason);
    assert_null(g->stderr_tail);
    assert_int_equal(g->exit_code, 0);
    assert_int_equal(g->started_at, 1000);
    assert_int_equal(g->wall_ms, 4321);
    assert_string_equal(g->source, "bench");
    assert_int_equal(g->n_results, 2);
    for (size_t i = 0; i < 2; i++) {
        const lvd_result *a = &r.results[i], *b = &g->results[i];
        assert_int_equal(b->id, a->id);
        assert_string_equal(b->test, a->test);
        assert_int_equal(b->n_prompt, a->n_prompt);
        assert_int_equal(b->n_gen, a->n_gen);
        assert_int_equal(b->n_depth, a->n_depth);
        assert_string_equal(b->backends, a->backends);
        assert_int_equal(b->rep_ngl, a->rep_ngl);
        assert_int_equal(b->rep_fa, a->rep_fa);
        assert_int_equal(b->rep_ubatch, a->rep_ubatch);
        assert_int_equal(b->rep_n_cpu_moe, a->rep_n_cpu_moe);
        assert_int_equal(b->rep_threads, a->rep_threads);
        assert_string_equal(b->rep_type_k, a->rep_type_k);
        assert_string_equal(b->rep_type_v, "q8_0");
        assert_string_equal(b->reported_json, a->reported_json);
        assert_int_equal(b->n, a->n);
        for (size_t j = 0; j < a->n; j++) {
            assert_true(b->ts[j] == a->ts[j]); /* doubles survive exactly */
            assert_int_equal(b->ns[j], a->ns ? a->ns[j] : -1);
            assert_int_equal(b->warmup[j], j == 0);
        }
    }
    store_run_list_free(v, n);

    /* Without samples: the run rows only. */
    flt.with_samples = 0;
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].n_results, 0);
    assert_null(v[0].results);
    store_run_list_free(v, n);
    lvd_run_free(&r);
}

static void test_run_filters(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid;
    setup_run_deps(f->s, &eid);
    int64_t eid2 = tu_engine_put(f->s, "vulkan", "/e/vulkan");
    struct {
        int64_t engine;
        const char *arm, *status, *session;
        int64_t at;
    } rows[] = {
        {eid, "a", "ok", "s1", 100}, {eid, "b", "ok", "s1", 200}, {eid2, "a", "failed", "s2", 300},
        {eid, "a", "gpu_ignored", NULL, 400},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(rows); i++) {
        lvd_run r;
        make_run(&r, rows[i].engine, rows[i].arm, rows[i].at);
        strcpy(r.status, rows[i].status);
        r.session = rows[i].session ? lvd_xstrdup(rows[i].session) : NULL;
        if (!strcmp(rows[i].status, "failed")) {
            r.reason = lvd_xstrdup("exit 1");
            r.stderr_tail = lvd_xstrdup("error: failed to load model");
            r.left_out = lvd_xstrdup("left out -ncmoe 4: not in llama-bench's --help");
            r.exit_code = 1;
        }
        if (store_run_put(f->s, &r, &err))
            fail_msg("%s", err.msg);
        lvd_run_free(&r);
    }
    struct {
        store_run_filter f;
        size_t n;
        int64_t first_at;
    } cases[] = {
        {{0}, 4, 100},
        {{.engine_id = 0, .arm_key = "a"}, 3, 100},
        {{.engine_id = 1}, 3, 100},
        {{.status = "failed"}, 1, 300},
        {{.session = "s1"}, 2, 100},
        {{.since = 250}, 2, 300},
        {{.limit = 2}, 2, 400}, /* newest first */
        {{.artifact = SHA_B}, 0, 0},
        {{.host = "gpu-box", .arm_key = "a", .engine_id = 1, .limit = 1}, 1, 400},
        {{.host = "other"}, 0, 0},
        /* a session with the engine and arm: filtered beside the session's index */
        {{.session = "s1", .arm_key = "b"}, 1, 200},
        {{.session = "s1", .arm_key = "a", .engine_id = 1}, 1, 100},
        {{.session = "s2", .engine_id = 1}, 0, 0},
    };
    cases[2].f.engine_id = eid;
    cases[8].f.engine_id = eid;
    cases[11].f.engine_id = eid;
    cases[12].f.engine_id = eid;
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        lvd_run *v;
        size_t n;
        assert_int_equal(store_run_list(f->s, &cases[i].f, &v, &n, &err), 0);
        if (n != cases[i].n)
            fail_msg("case %zu: %zu runs, expected %zu", i, n, cases[i].n);
        if (n)
            assert_int_equal(v[0].started_at, cases[i].first_at);
        store_run_list_free(v, n);
    }
    lvd_run *v;
    size_t n;
    store_run_filter failed = {.status = "failed"};
    assert_int_equal(store_run_list(f->s, &failed, &v, &n, &err), 0);
    assert_string_equal(v[0].reason, "exit 1");
    assert_string_equal(v[0].stderr_tail, "error: failed to load model");
    assert_string_equal(v[0].left_out, "left out -ncmoe 4: not in llama-bench's --help");
    assert_int_equal(v[0].exit_code, 1);
    store_run_list_free(v, n);
    /* NULL filter = everything, oldest first. */
    assert_int_equal(store_run_list(f->s, NULL, &v, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(v[3].started_at, 400);
    store_run_list_free(v, n);
}

static void test_run_atomic(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid;
    setup_run_deps(f->s, &eid);

    /* A result insert that the database itself rejects mid-run (a trigger
     * added by "another process", on the second result's packed samples):
     * nothing of the run remains. */
    tu_raw_exec(f->path, tu_pg() ? "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN"
                                " IF NEW.samples || ' ' LIKE '%:666 %' THEN RAISE EXCEPTION 'boom'; END IF;"
                                " RETURN NEW; END$$;"
                                " CREATE TRIGGER boom BEFORE INSERT ON results FOR EACH ROW EXECUTE FUNCTION boom()"
                              : "CREATE TRIGGER boom BEFORE INSERT ON results WHEN NEW.samples || ' ' LIKE '%:666 %'"
                                " BEGIN SELECT RAISE(ABORT, 'boom'); END");
    lvd_run r;
    make_run(&r, eid, "arm", 100);
    r.results[1].ts[2] = 666;
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    assert_non_null(strstr(err.msg, "boom"));
    assert_non_null(strstr(err.msg, f->path));
    assert_int_equal(r.id, 0);
    assert_int_equal(r.results[0].id, 0);
    expect_counts(f->s, 0, 0, 0);

    /* A sample without a finite t/s. */
    r.results[1].ts[2] = NAN;
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    assert_non_null(strstr(err.msg, "tg128 sample 2"));
    expect_counts(f->s, 0, 0, 0);

    /* A bad status, an unknown engine, a missing arm key. */
    r.results[1].ts[2] = 1.0;
    strcpy(r.status, "great");
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    strcpy(r.status, "ok");
    r.engine_id = 999;
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    r.engine_id = eid;
    char *arm = r.arm_key;
    r.arm_key = NULL;
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    assert_non_null(strstr(err.msg, "arm key"));
    r.arm_key = arm;
    expect_counts(f->s, 0, 0, 0);

    /* Inside a caller's transaction, a failed run takes the whole group with it. */
    assert_int_equal(store_begin(f->s, &err), 0);
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    r.results[1].ts[2] = 666;
    assert_int_equal(store_run_put(f->s, &r, &err), -1);
    assert_int_equal(store_commit(f->s, &err), -1); /* rolled back already */
    expect_counts(f->s, 0, 0, 0);

    /* And it works once the fault is gone; nested begin/commit commits once. */
    r.results[1].ts[2] = 1.0;
    assert_int_equal(store_begin(f->s, &err), 0);
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    assert_int_equal(store_commit(f->s, &err), 0);
    expect_counts(f->s, 1, 2, 8);
    /* Rolling back an outer transaction undoes an inner committed put. */
    assert_int_equal(store_begin(f->s, &err), 0);
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    store_rollback(f->s);
    expect_counts(f->s, 1, 2, 8);
    lvd_run_free(&r);
}

/* --- checks, verdicts, pins ------------------------------------------------ */

static void test_checks(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid;
    setup_run_deps(f->s, &eid);
    lvd_check base = {.artifact = SHA_A, .engine_id = eid, .device = "", .host = "h", .ran_at = 100,
                      .status = "base", .mean_kld = NAN, .same_top_p = NAN, .ppl = 51588.79,
                      .ppl_base = NAN, .ppl_ratio = NAN};
    assert_int_equal(store_check_put(f->s, &base, &err), 0);
    lvd_check c1 = {.artifact = SHA_A, .engine_id = eid, .device = "CUDA0", .host = "h", .ran_at = 200,
                    .status = "pass", .mean_kld = 0.000123, .same_top_p = 99.6, .ppl = 51619.52,
                    .ppl_base = 51588.79, .ppl_ratio = 1.000596, .reason = NULL};
    assert_int_equal(store_check_put(f->s, &c1, &err), 0);
    lvd_check c2 = c1;
    c2.ran_at = 300;
    strcpy(c2.status, "fail");
    c2.reason = "ppl ratio 1.2 above 1.01";
    assert_int_equal(store_check_put(f->s, &c2, &err), 0);

    lvd_check got;
    assert_int_equal(store_check_latest(f->s, SHA_A, "h", eid, "CUDA0", &got, &err), 0);
    assert_int_equal(got.id, c2.id);
    assert_string_equal(got.status, "fail");
    assert_string_equal(got.reason, "ppl ratio 1.2 above 1.01");
    assert_near(got.mean_kld, 0.000123);
    assert_near(got.ppl_ratio, 1.000596);
    lvd_check_free(&got);
    assert_int_equal(store_check_latest(f->s, SHA_A, "h", eid, "", &got, &err), 0);
    assert_string_equal(got.status, "base");
    assert_true(isnan(got.mean_kld) && isnan(got.same_top_p) && isnan(got.ppl_base) && isnan(got.ppl_ratio));
    assert_near(got.ppl, 51588.79);
    assert_null(got.reason);
    assert_string_equal(got.device, "");
    lvd_check_free(&got);
    assert_int_equal(store_check_latest(f->s, SHA_A, "h", eid, NULL, &got, &err), 0);
    lvd_check_free(&got);
    assert_int_equal(store_check_latest(f->s, SHA_A, "other", eid, "CUDA0", &got, &err), 1);
    assert_int_equal(store_check_latest(f->s, SHA_A, "h", eid, "Vulkan0", &got, &err), 1);

    lvd_check *v;
    size_t n;
    assert_int_equal(store_check_list(f->s, SHA_A, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].ran_at, 300);
    assert_int_equal(v[2].ran_at, 100);
    store_check_list_free(v, n);
    assert_int_equal(store_check_list(f->s, SHA_B, &v, &n, &err), 0);
    assert_int_equal(n, 0);
    store_check_list_free(v, n);
    lvd_check bad = c1;
    strcpy(bad.status, "meh");
    assert_int_equal(store_check_put(f->s, &bad, &err), -1);
}

static void test_verdicts(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid;
    setup_run_deps(f->s, &eid);
    lvd_verdict v1 = {.artifact = SHA_A, .host = "h", .decided_at = 100, .objective = "tg",
                      .engine_id = eid, .arm_key = "dev=CUDA0 ngl=99", .rule = "win",
                      .explain = "CUDA beats Vulkan by 41 %", .fingerprint = "1:/e/cuda:b9749:5",
                      .stats_json = "{\"ratio\": 1.41}", .depth = 4096};
    lvd_params_init(&v1.params);
    strcpy(v1.params.device, "CUDA0");
    v1.params.ngl = 99;
    v1.params.fa = 0;
    assert_int_equal(store_verdict_put(f->s, &v1, &err), 0);
    /* No winner: engine 0 and NULL texts. */
    lvd_verdict v2 = {.artifact = SHA_A, .host = "h", .decided_at = 200, .objective = "tg",
                      .rule = "no-arms", .depth = -1};
    lvd_params_init(&v2.params);
    assert_int_equal(store_verdict_put(f->s, &v2, &err), 0);
    lvd_verdict v3 = v1;
    v3.decided_at = 300;
    v3.objective = "pp";
    assert_int_equal(store_verdict_put(f->s, &v3, &err), 0);

    lvd_verdict got;
    assert_int_equal(store_verdict_latest(f->s, SHA_A, "h", "tg", &got, &err), 0);
    assert_int_equal(got.id, v2.id);
    assert_int_equal(got.engine_id, 0);
    assert_null(got.arm_key);
    assert_null(got.explain);
    assert_string_equal(got.rule, "no-arms");
    assert_int_equal(got.depth, -1); /* not recorded: NULL, read as -1 */
    assert_memory_equal(&got.params, &v2.params, sizeof v2.params);
    lvd_verdict_free(&got);
    assert_int_equal(store_verdict_latest(f->s, SHA_A, "h", "pp", &got, &err), 0);
    assert_int_equal(got.engine_id, eid);
    assert_string_equal(got.arm_key, v1.arm_key);
    assert_string_equal(got.explain, v1.explain);
    assert_string_equal(got.fingerprint, v1.fingerprint);
    assert_null(got.stats_json); /* the newest verdict comes without its statistics */
    assert_int_equal(got.depth, 4096);
    assert_memory_equal(&got.params, &v1.params, sizeof v1.params);
    lvd_verdict_free(&got);
    assert_int_equal(store_verdict_latest(f->s, SHA_A, "h", "w=0.70", &got, &err), 1);

    lvd_verdict *v;
    size_t n;
    assert_int_equal(store_verdict_list(f->s, SHA_A, "h", 0, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].decided_at, 300);
    assert_string_equal(v[0].stats_json, v1.stats_json); /* v3: the history has the statistics */
    assert_int_equal(v[0].depth, 4096);
    assert_int_equal(v[1].depth, -1);
    store_verdict_list_free(v, n);
    assert_int_equal(store_verdict_list(f->s, SHA_A, "h", 2, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[1].decided_at, 200);
    store_verdict_list_free(v, n);
}

static void test_pins(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_pin_decision d1 = {.decided_at = 100, .pinned_build = "b9749", .candidate_build = "b9800",
                           .decision = "keep", .rule = "regression", .details_json = "{}"};
    lvd_pin_decision d2 = {.decided_at = 200, .pinned_build = "b9749", .decision = "promote",
                           .rule = "two-nights"};
    assert_int_equal(store_pin_decision_put(f->s, &d1, &err), 0);
    assert_int_equal(store_pin_decision_put(f->s, &d2, &err), 0);
    lvd_pin_decision bad = {.pinned_build = "b1", .decision = "maybe", .rule = "x"};
    assert_int_equal(store_pin_decision_put(f->s, &bad, &err), -1);
    lvd_pin_decision *v;
    size_t n;
    assert_int_equal(store_pin_decision_list(f->s, 0, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].id, d2.id);
    assert_string_equal(v[0].decision, "promote");
    assert_null(v[0].candidate_build);
    assert_null(v[0].details_json);
    assert_string_equal(v[1].candidate_build, "b9800");
    assert_string_equal(v[1].details_json, "{}");
    store_pin_decision_list_free(v, n);
    /* nights, not decisions: both were decided on one night */
    assert_int_equal(store_pin_decision_list(f->s, 1, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    store_pin_decision_list_free(v, n);
    lvd_pin_decision d3 = {.decided_at = 3 * 86400 + 5, .pinned_build = "b9800", .decision = "keep", .rule = "x"};
    assert_int_equal(store_pin_decision_put(f->s, &d3, &err), 0);
    assert_int_equal(store_pin_decision_list(f->s, 1, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].id, d3.id);
    store_pin_decision_list_free(v, n);
    assert_int_equal(store_pin_decision_list(f->s, 2, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    store_pin_decision_list_free(v, n);
    assert_int_equal(store_pin_record(f->s, "b9800", "ubuntu-x64", SHA_A, "nightly", &err), 0);
    assert_int_equal(store_pin_record(f->s, "b9801", NULL, NULL, NULL, &err), 0);
    assert_int_equal(store_pin_record(f->s, NULL, NULL, NULL, NULL, &err), -1);
    store_counts c;
    assert_int_equal(store_counts_get(f->s, &c, &err), 0);
    assert_int_equal(c.pin_decisions, 3);
}

static void test_readonly_refuses_writes(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    store *ro;
    assert_int_equal(store_open(f->path, STORE_OPEN_READONLY, &ro, &err), 0);
    store_artifact a = {.sha256 = SHA_A, .size = 1};
    assert_int_equal(store_artifact_put(ro, &a, &err), -1);
    assert_non_null(strstr(err.msg, f->path));
    store_close(ro);
}

/* store_rows, which every list reads through: all rows, in order; a step
 * that fails mid-list frees what was read and names the store and what. */
typedef struct row {
    int64_t v;
    char *text;
} row;

static void read_row(store_stmt *st, void *item)
{
    row *r = item;
    r->v = store_col_i64(st, 0);
    r->text = lvd_xasprintf("row %lld", (long long)r->v);
}

static void free_row(void *item)
{
    free(((row *)item)->text);
}

static void test_rows(void **state)
{
    fx *f = *state;
    lvd_err err = {{0}};
    store_stmt *st;
    /* rows 1..20: past the first growth of the array */
    assert_int_equal(store_prepare(f->s, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c"
                                         " WHERE i < 20) SELECT i FROM c", &st, &err), 0);
    void *v;
    size_t n;
    assert_int_equal(store_rows(f->s, st, sizeof(row), read_row, free_row, "cannot count", &v, &n, &err), 0);
    row *rows = v;
    assert_int_equal(n, 20);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].v, (int64_t)i + 1);
        free_row(&rows[i]);
    }
    free(rows);
    /* none */
    assert_int_equal(store_prepare(f->s, "SELECT 1 WHERE 1 = 0", &st, &err), 0);
    assert_int_equal(store_rows(f->s, st, sizeof(row), read_row, free_row, "cannot count", &v, &n, &err), 0);
    assert_null(v);
    assert_int_equal(n, 0);
    /* row 12 overflows: the eleven read are freed (ASan would see a leak) */
    assert_int_equal(store_prepare(f->s, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c"
                                         " WHERE i < 20) SELECT CASE WHEN i < 12 THEN i"
                                         " ELSE abs(-9223372036854775807 - 1) END FROM c", &st, &err), 0);
    assert_int_equal(store_rows(f->s, st, sizeof(row), read_row, free_row, "cannot count", &v, &n, &err), -1);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_true(lvd_starts_with(err.msg, f->path));
    assert_non_null(strstr(err.msg, ": cannot count: "));
    assert_non_null(strstr(err.msg, tu_pg() ? "out of range" : "overflow"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_migrate_from_zero),
        cmocka_unit_test(test_migrate_probe_env),
        cmocka_unit_test(test_migrate_reported_arrays),
        cmocka_unit_test_setup_teardown(test_refuse_newer, tu_store_setup, tu_store_teardown),
        cmocka_unit_test(test_refuse_not_a_database),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_artifacts, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_path_cache, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_engines, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_probes, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_probes_batch, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_run_roundtrip, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_run_filters, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_run_atomic, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_checks, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_verdicts, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_pins, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_readonly_refuses_writes, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_rows, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
