/* test_probe.c: engine_probe_engine against engine directories whose
 * llama-bench / llama-server is tests/proc-helper replaying the real captures
 * of tests/fixtures/llama.cpp/: cpu vs cuda vs unknown (missing, hung,
 * crashing, failing, garbage), the cache (24 h TTL, mtime and size
 * invalidation, --refresh, unknown never served, a newer failure beats an
 * older success) and the records left in the store. calls.log in each engine
 * directory counts how often the binary was really run. */
#include "tests/support/testutil.h"

#include "engine/help.h"
#include "engine/probe.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef tu_storefx fx;

static char *fixture(const char *rel)
{
    char *path = lvd_xasprintf("llama.cpp/%s", rel);
    char *full = tu_fixture(path);
    free(path);
    return full;
}

/* DIR/name: a copy of proc-helper that answers --list-devices with the given
 * fixture files (NULL = none) and exit ("0", "1", "hang", "segv"). */
static void make_binary(const char *dir, const char *name, const char *out_rel, const char *err_rel,
                        const char *exit_how)
{
    char *helper = lvd_xasprintf("%s/proc-helper", getenv("LVD_TEST_BIN"));
    char *bin = lvd_xasprintf("%s/%s", dir, name);
    tu_copy(helper, bin, 0755);
    const char *rels[] = {out_rel, err_rel};
    const char *suffix[] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        if (!rels[i])
            continue;
        char *src = fixture(rels[i]);
        char *dst = lvd_xasprintf("%s/list-devices.%s", dir, suffix[i]);
        tu_copy(src, dst, 0644);
        free(src);
        free(dst);
    }
    char *ex = lvd_xasprintf("%s/list-devices.exit", dir);
    tu_write_str(ex, exit_how);
    free(ex);
    free(helper);
    free(bin);
}

/* A registered engine at TMP/name (the directory is created, empty). */
static void make_engine(fx *f, const char *name, lvd_engine *e)
{
    memset(e, 0, sizeof *e);
    e->name = lvd_xstrdup(name);
    e->dir = lvd_xasprintf("%s/%s", f->dir, name);
    e->build = lvd_xstrdup("b9749");
    e->origin = lvd_xstrdup("registered");
    e->flavour = lvd_xstrdup("local");
    assert_int_equal(mkdir(e->dir, 0755), 0);
    lvd_err err = {{0}};
    if (store_engine_put(f->s, e, &err) != 0)
        fail_msg("%s", err.msg);
}

/* How often e's binaries were run with --NAME (calls.log has one NAME a line). */
static int runs_of(const lvd_engine *e, const char *name)
{
    char *path = lvd_xasprintf("%s/calls.log", e->dir);
    int n = 0;
    FILE *fp = fopen(path, "r");
    char line[256];
    while (fp && fgets(line, sizeof line, fp))
        n += strlen(line) == strlen(name) + 1 && !strncmp(line, name, strlen(name));
    if (fp)
        fclose(fp);
    free(path);
    return n;
}

/* How often the devices were really asked for. */
static int calls(const lvd_engine *e)
{
    return runs_of(e, "list-devices");
}

/* How often llama-bench's --help was read (once per identity of the files). */
static int helps(const lvd_engine *e)
{
    return runs_of(e, "help");
}

static void probe(fx *f, const lvd_engine *e, int refresh, int timeout_ms, lvd_probe *p, int want_cached)
{
    lvd_err err = {{0}};
    int cached = -1;
    if (engine_probe_engine_ex(f->s, e, refresh, timeout_ms, p, &cached, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cached, want_cached);
    assert_int_equal(p->engine_id, e->id);
    assert_true(p->id > 0);
}

static void assert_reason(const lvd_probe *p, const char *part)
{
    assert_string_equal(p->backend, LVD_BACKEND_UNKNOWN);
    assert_non_null(p->reason);
    if (!strstr(p->reason, part))
        fail_msg("reason '%s' lacks '%s'", p->reason, part);
}

static void test_cpu_and_cache(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "cpu", &e);
    make_binary(e.dir, "llama-bench", "cpu-build-b9749/list-devices.stdout",
                "cpu-build-b9749/list-devices.stderr", "0");
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_string_equal(p.backend, LVD_BACKEND_CPU);
    assert_int_equal(p.n_devices, 0);
    assert_null(p.reason);
    char *bin = lvd_xasprintf("%s/llama-bench", e.dir);
    assert_string_equal(p.binary, bin);
    struct stat st;
    assert_int_equal(stat(bin, &st), 0);
    assert_int_equal(p.bin_size, st.st_size);
    assert_int_equal(p.bin_mtime_ns, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
    int64_t first_id = p.id;
    assert_true(engine_help_current(p.flags)); /* its tools' flags, read with it */
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 1);
    assert_int_equal(helps(&e), 1);

    /* Second probe: the store answers, nothing runs. */
    probe(f, &e, 0, 0, &p, 1);
    assert_int_equal(p.id, first_id);
    assert_string_equal(p.backend, LVD_BACKEND_CPU);
    assert_true(engine_help_current(p.flags));
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 1);

    /* --refresh runs it again; the same files: their flags are carried, not read again. */
    probe(f, &e, 1, 0, &p, 0);
    assert_true(p.id > first_id);
    assert_true(engine_help_current(p.flags));
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 2);
    assert_int_equal(helps(&e), 1);

    /* A new mtime invalidates at once. */
    struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = st.st_mtim.tv_sec - 100, .tv_nsec = 5}};
    assert_int_equal(utimensat(AT_FDCWD, bin, ts, 0), 0);
    probe(f, &e, 0, 0, &p, 0);
    assert_int_equal(p.bin_mtime_ns, (int64_t)(st.st_mtim.tv_sec - 100) * 1000000000 + 5);
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 3);
    assert_int_equal(helps(&e), 2); /* another identity: read again */
    probe(f, &e, 0, 0, &p, 1);
    lvd_probe_free(&p);

    /* So does a new size with the same mtime. */
    int fd = open(bin, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "\0", 1), 1);
    close(fd);
    assert_int_equal(utimensat(AT_FDCWD, bin, ts, 0), 0);
    probe(f, &e, 0, 0, &p, 0);
    assert_int_equal(p.bin_size, st.st_size + 1);
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 4);
    free(bin);
    lvd_engine_free(&e);
}

static void test_ttl_expiry(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "old", &e);
    make_binary(e.dir, "llama-bench", "cpu-build-b9749/list-devices.stdout", NULL, "0");
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    /* The same answer, recorded 25 h ago, is the only one left valid... */
    lvd_probe old = p;
    old.id = 0;
    old.probed_at = lvd_now() - ENGINE_PROBE_TTL_S - 3600;
    old.binary = lvd_xstrdup(p.binary);
    old.reason = NULL;
    old.env = p.env ? lvd_xstrdup(p.env) : NULL;
    old.devices = NULL;
    old.files = lvd_xstrdup(p.files);
    old.flags = lvd_xstrdup(p.flags);
    old.no_device = old.changed = NULL;
    lvd_probe_free(&p);
    /* ...once the binary's mtime matches that old record only. */
    struct stat st;
    assert_int_equal(stat(old.binary, &st), 0);
    struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = st.st_mtim.tv_sec - 7200}};
    assert_int_equal(utimensat(AT_FDCWD, old.binary, ts, 0), 0);
    old.bin_mtime_ns = (int64_t)(st.st_mtim.tv_sec - 7200) * 1000000000;
    lvd_err err = {{0}};
    assert_int_equal(store_probe_put(f->s, &old, &err), 0);
    probe(f, &e, 0, 0, &p, 0); /* too old: probed again */
    assert_int_equal(calls(&e), 2);
    lvd_probe_free(&p);
    probe(f, &e, 0, 0, &p, 1);
    lvd_probe_free(&p);
    lvd_probe_free(&old);
    lvd_engine_free(&e);
}

static void test_cuda(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "cuda", &e);
    make_binary(e.dir, "llama-bench", "gpu-h200/cuda-list-devices.stdout",
                "gpu-h200/cuda-list-devices.stderr", "0");
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_string_equal(p.backend, "cuda");
    assert_int_equal(p.n_devices, 1);
    assert_string_equal(p.devices[0].selector, "CUDA0");
    assert_string_equal(p.devices[0].name, "NVIDIA H200");
    assert_int_equal(p.devices[0].total_mib, 143155);
    assert_int_equal(p.devices[0].free_mib, 142629);
    assert_string_equal(p.devices[0].compute_cap, "9.0");
    lvd_probe_free(&p);
    /* From the cache, with the devices and the capability. */
    probe(f, &e, 0, 0, &p, 1);
    assert_int_equal(p.n_devices, 1);
    assert_string_equal(p.devices[0].compute_cap, "9.0");
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 1);
    lvd_engine_free(&e);
}

static void test_server_fallback(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "server-only", &e);
    make_binary(e.dir, "llama-server", "gpu-h200/vulkan-list-devices.stdout",
                "gpu-h200/vulkan-list-devices.stderr", "0");
    char *bin = engine_probe_binary(&e);
    char *want = lvd_xasprintf("%s/llama-server", e.dir);
    assert_string_equal(bin, want);
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_string_equal(p.binary, want);
    assert_string_equal(p.backend, "vulkan");
    assert_string_equal(p.devices[0].selector, "Vulkan0");
    lvd_probe_free(&p);
    free(bin);
    free(want);
    lvd_engine_free(&e);
}

/* An engine whose probe is unknown: recorded, never served from the cache. */
static void expect_unknown(fx *f, const char *name, const char *exit_how, const char *out_rel,
                           int timeout_ms, const char *reason)
{
    lvd_engine e;
    make_engine(f, name, &e);
    make_binary(e.dir, "llama-bench", out_rel, NULL, exit_how);
    lvd_probe p;
    probe(f, &e, 0, timeout_ms, &p, 0);
    assert_reason(&p, reason);
    assert_int_equal(p.n_devices, 0);
    lvd_probe_free(&p);
    probe(f, &e, 0, timeout_ms, &p, 0);
    assert_reason(&p, reason);
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 2);
    lvd_err err = {{0}};
    assert_int_equal(store_probe_latest(f->s, e.id, &p, &err), 0);
    assert_reason(&p, reason);
    lvd_probe_free(&p);
    lvd_engine_free(&e);
}

static void test_unknown_outcomes(void **state)
{
    fx *f = *state;
    expect_unknown(f, "hung", "hang", "gpu-h200/cuda-list-devices.stdout", 300,
                   "llama-bench --list-devices timed out after 0.3 s");
    expect_unknown(f, "crash", "segv", NULL, 0, "killed by signal 11 (Segmentation fault)");
    expect_unknown(f, "fails", "1", "cpu-build-b9749/list-devices.stdout", 0, "llama-bench --list-devices: exit 1");
    expect_unknown(f, "garbage", "0", "cpu-build-b9749/bench-help.stdout", 0,
                   "llama-bench --list-devices: no device list in the output");
}

static void test_failure_detail_from_stderr(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "old-build", &e);
    make_binary(e.dir, "llama-bench", "cpu-build-b9749/bench-bad-flag.stdout",
                "cpu-build-b9749/bench-bad-flag.stderr", "1");
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_reason(&p, "exit 1: error: invalid parameter for argument: --no-such-flag");
    lvd_probe_free(&p);
    lvd_engine_free(&e);
}

static void test_missing_and_not_executable(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "empty", &e);
    assert_null(engine_probe_binary(&e));
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_reason(&p, "no llama-bench or llama-server in ");
    assert_int_equal(p.bin_size, 0);
    lvd_probe_free(&p);
    probe(f, &e, 0, 0, &p, 0);
    lvd_probe_free(&p);
    lvd_engine_free(&e);

    make_engine(f, "noexec", &e);
    char *bin = lvd_xasprintf("%s/llama-bench", e.dir);
    tu_write_str(bin, "\x7f" "ELF not really\n");
    chmod(bin, 0644);
    probe(f, &e, 0, 0, &p, 0);
    assert_reason(&p, "cannot execute ");
    assert_reason(&p, "Permission denied");
    lvd_probe_free(&p);
    free(bin);
    lvd_engine_free(&e);
}

static void test_newer_failure_beats_cache(void **state)
{
    fx *f = *state;
    lvd_engine e;
    make_engine(f, "flaky", &e);
    make_binary(e.dir, "llama-bench", "gpu-h200/cuda-list-devices.stdout", NULL, "0");
    lvd_probe p;
    probe(f, &e, 0, 0, &p, 0);
    assert_string_equal(p.backend, "cuda");
    lvd_probe_free(&p);
    /* The driver hangs now; --refresh records the failure... */
    char *ex = lvd_xasprintf("%s/list-devices.exit", e.dir);
    tu_write_str(ex, "hang");
    probe(f, &e, 1, 200, &p, 0);
    assert_reason(&p, "timed out");
    lvd_probe_free(&p);
    /* ...and the older success is no longer served: the engine is asked again. */
    tu_write_str(ex, "0");
    probe(f, &e, 0, 0, &p, 0);
    assert_string_equal(p.backend, "cuda");
    lvd_probe_free(&p);
    probe(f, &e, 0, 0, &p, 1);
    lvd_probe_free(&p);
    assert_int_equal(calls(&e), 3);
    free(ex);
    lvd_engine_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cpu_and_cache, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_ttl_expiry, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_cuda, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_server_fallback, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_outcomes, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_failure_detail_from_stderr, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_not_executable, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_newer_failure_beats_cache, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
