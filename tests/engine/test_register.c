/* test_register.c: registering local build directories (engine/register.c):
 * names, build ids, `--version` parsing on the real capture, digests checked
 * against an independent SHA-256, re-registration, clashes, bad directories,
 * a hanging `--version`, and registering then probing (engine/registration.c)
 * with its exit code and JSON.
 * Engine binaries are copies of tests/proc-helper replaying fixture files. */
#include "tests/support/testutil.h"

#include "common/cli.h"
#include "engine/register.h"
#include "engine/registration.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef tu_storefx fx;

/* TMP/rel, created with the named helper copies in it. */
static char *make_dir(fx *f, const char *rel, int server, int bench)
{
    char *dir = lvd_xasprintf("%s/%s", f->dir, rel);
    lvd_err err = {{0}};
    assert_int_equal(lvd_mkdir_p(dir, &err), 0);
    char *helper = lvd_xasprintf("%s/proc-helper", getenv("LVD_TEST_BIN"));
    const char *names[] = {server ? "llama-server" : NULL, bench ? "llama-bench" : NULL};
    for (int i = 0; i < 2; i++) {
        if (!names[i])
            continue;
        char *bin = lvd_xasprintf("%s/%s", dir, names[i]);
        tu_copy(helper, bin, 0755);
        free(bin);
    }
    free(helper);
    return dir;
}

/* Puts a fixture (relative to tests/fixtures/llama.cpp) at DIR/name. */
static void put_fixture(const char *dir, const char *rel, const char *name)
{
    char *rel2 = lvd_xasprintf("llama.cpp/%s", rel);
    char *src = tu_fixture(rel2);
    char *dst = lvd_xasprintf("%s/%s", dir, name);
    tu_copy(src, dst, 0644);
    free(rel2);
    free(src);
    free(dst);
}

static void put_text(const char *dir, const char *name, const char *text)
{
    char *dst = lvd_xasprintf("%s/%s", dir, name);
    tu_write_str(dst, text);
    free(dst);
}

/* SHA-256 of a file, computed here independently of common/sha256.c. */
static void sha256_of(const char *path, char hex[65])
{
    size_t n;
    char *data = tu_read(path, &n);
    unsigned char md[32];
    unsigned int len = 0;
    assert_int_equal(EVP_Digest(data, n, md, &len, EVP_sha256(), NULL), 1);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    free(data);
}

/* The registered digest by its definition (engine/digest.h), computed here:
 * SHA-256 of "HEX  NAME\n" per file, names given in byte order. */
static void set_digest(const char *dir, const char *const *names, size_t n, char hex[65])
{
    lvd_sb text = {0};
    for (size_t i = 0; i < n; i++) {
        char *path = lvd_xasprintf("%s/%s", dir, names[i]);
        char one[65];
        sha256_of(path, one);
        lvd_sb_addf(&text, "%s  %s\n", one, names[i]);
        free(path);
    }
    unsigned char md[32];
    unsigned int len = 0;
    assert_int_equal(EVP_Digest(text.buf, text.len, md, &len, EVP_sha256(), NULL), 1);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    lvd_sb_free(&text);
}

static int do_register(fx *f, const char *dir, const char *build, const char *name, lvd_engine *e,
                       lvd_err *err)
{
    engine_register_opts o = {.dir = dir, .build = build, .name = name, .timeout_ms = 5000};
    int code = -1;
    int rc = engine_register(f->s, &o, e, &code, err);
    assert_int_equal(rc == 0, code == LVD_EXIT_OK);
    return rc == 0 ? 0 : code;
}

static void expect_name(const char *build, const char *dir, const char *want)
{
    char *n = engine_register_default_name(build, dir);
    assert_string_equal(n, want);
    assert_true(engine_register_name_valid(n));
    free(n);
}

static void test_names(void **state)
{
    (void)state;
    expect_name("b9749", "/opt/llama-cuda/build/bin", "b9749-llama-cuda");
    expect_name("b9749", "/opt/llama-cuda/build/bin/", "b9749-llama-cuda");
    expect_name("b9749", "/srv/engines/vulkan", "b9749-vulkan");
    expect_name("b9749", "/home/me/my build (new)!", "b9749-my-build-new");
    expect_name("b1", "/bin", "b1-bin");
    assert_true(engine_register_name_valid("b9749-cuda"));
    assert_true(engine_register_name_valid("cuda_12.4+fa"));
    assert_false(engine_register_name_valid(""));
    assert_false(engine_register_name_valid(NULL));
    assert_false(engine_register_name_valid("123"));
    assert_false(engine_register_name_valid("-x"));
    assert_false(engine_register_name_valid("a b"));
    assert_false(engine_register_name_valid("a/b"));
    char long_name[70];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_false(engine_register_name_valid(long_name));
}

static void test_register_full_dir(void **state)
{
    fx *f = *state;
    char *dir = make_dir(f, "llama-b9749/build/bin", 1, 1);
    put_fixture(dir, "cpu-build-b9749/server-version.stderr", "version.stderr");
    /* A relative path is recorded as the absolute one. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    lvd_engine e;
    lvd_err err = {{0}};
    int rc = do_register(f, "llama-b9749/build/../build/bin", "b9749", NULL, &e, &err);
    assert_int_equal(chdir(cwd), 0);
    if (rc)
        fail_msg("%s", err.msg);
    char *real = realpath(dir, NULL);
    assert_string_equal(e.dir, real);
    assert_string_equal(e.name, "b9749-llama-b9749");
    assert_string_equal(e.build, "b9749");
    assert_string_equal(e.commit, "d32676d77");
    assert_string_equal(e.flavour, "local");
    assert_string_equal(e.origin, "registered");
    char *server = lvd_xasprintf("%s/llama-server", dir);
    char hex[65];
    static const char *const both[] = {"llama-bench", "llama-server"};
    set_digest(dir, both, 2, hex);
    assert_string_equal(e.digest, hex);
    assert_true(e.id > 0);

    lvd_engine got;
    assert_int_equal(store_engine_by_name(f->s, "b9749-llama-b9749", &got, &err), 0);
    assert_int_equal(got.id, e.id);
    assert_string_equal(got.commit, "d32676d77");
    lvd_engine_free(&got);

    /* Again, with a new build id: the same engine, updated; created_at kept. */
    lvd_engine again;
    assert_int_equal(do_register(f, dir, "b9750", NULL, &again, &err), 0);
    assert_int_equal(again.id, e.id);
    assert_string_equal(again.name, e.name);
    assert_string_equal(again.build, "b9750");
    assert_int_equal(again.created_at, e.created_at);
    lvd_engine *v;
    size_t n;
    assert_int_equal(store_engine_list(f->s, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    store_engine_list_free(v, n);
    lvd_engine_free(&again);

    /* The same name given explicitly is fine; another is refused. */
    assert_int_equal(do_register(f, dir, "b9750", e.name, &again, &err), 0);
    lvd_engine_free(&again);
    assert_int_equal(do_register(f, dir, "b9750", "renamed", &again, &err), LVD_EXIT_FAIL);
    assert_non_null(strstr(err.msg, "already registered as engine 'b9749-llama-b9749'"));

    /* Another directory may not take a name in use. */
    char *other = make_dir(f, "other", 0, 1);
    assert_int_equal(do_register(f, other, "b9749", e.name, &again, &err), LVD_EXIT_FAIL);
    assert_non_null(strstr(err.msg, "already taken by"));

    free(other);
    free(server);
    free(real);
    free(dir);
    lvd_engine_free(&e);
}

static void test_register_bench_only(void **state)
{
    fx *f = *state;
    char *dir = make_dir(f, "bench-only", 0, 1);
    lvd_engine e;
    lvd_err err = {{0}};
    if (do_register(f, dir, "b9749", "cuda-local", &e, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(e.name, "cuda-local");
    assert_null(e.commit); /* llama-bench has no --version */
    char *bench = lvd_xasprintf("%s/llama-bench", dir);
    char hex[65];
    static const char *const one[] = {"llama-bench"};
    set_digest(dir, one, 1, hex);
    assert_string_equal(e.digest, hex);
    char *log = lvd_xasprintf("%s/calls.log", dir);
    /* llama-bench has no --version: only its --help is read, for the family */
    char *calls = access(log, F_OK) == 0 ? tu_read(log, NULL) : lvd_xstrdup("");
    assert_null(strstr(calls, "--version"));
    assert_string_equal(e.family, LVD_FAMILY_MAINLINE); /* no words of a family: --build b9749 says it */
    free(calls);
    free(log);
    free(bench);
    free(dir);
    lvd_engine_free(&e);
}

static void test_version_hangs_or_fails(void **state)
{
    fx *f = *state;
    char *dir = make_dir(f, "hangs", 1, 0);
    put_text(dir, "version.exit", "hang");
    lvd_engine e;
    lvd_err err = {{0}};
    engine_register_opts o = {.dir = dir, .build = "b9749", .timeout_ms = 300};
    int code;
    assert_int_equal(engine_register(f->s, &o, &e, &code, &err), 0);
    assert_null(e.commit);
    lvd_engine_free(&e);
    /* Non-zero exit with a version line: not believed. */
    put_fixture(dir, "cpu-build-b9749/server-version.stderr", "version.stderr");
    put_text(dir, "version.exit", "1");
    assert_int_equal(engine_register(f->s, &o, &e, &code, &err), 0);
    assert_null(e.commit);
    lvd_engine_free(&e);
    free(dir);
}

static void test_bad_input(void **state)
{
    fx *f = *state;
    lvd_engine e;
    lvd_err err = {{0}};
    char *empty = make_dir(f, "empty", 0, 0);
    assert_int_equal(do_register(f, empty, "b9749", NULL, &e, &err), LVD_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "holds neither an executable llama-server nor llama-bench"));

    char *missing = lvd_xasprintf("%s/nope", f->dir);
    assert_int_equal(do_register(f, missing, "b9749", NULL, &e, &err), LVD_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "No such file or directory"));

    char *file = lvd_xasprintf("%s/file", f->dir);
    tu_write_str(file, "x");
    assert_int_equal(do_register(f, file, "b9749", NULL, &e, &err), LVD_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "not a directory"));

    char *noexec = make_dir(f, "noexec", 1, 0);
    char *server = lvd_xasprintf("%s/llama-server", noexec);
    assert_int_equal(chmod(server, 0644), 0);
    assert_int_equal(do_register(f, noexec, "b9749", NULL, &e, &err), LVD_EXIT_INPUT);

    char *ok = make_dir(f, "ok", 0, 1);
    assert_int_equal(do_register(f, ok, "b 9749", NULL, &e, &err), LVD_EXIT_USAGE);
    assert_int_equal(do_register(f, ok, "", NULL, &e, &err), LVD_EXIT_USAGE);
    assert_int_equal(do_register(f, ok, "b9749", "12", &e, &err), LVD_EXIT_USAGE);

    lvd_engine *v;
    size_t n;
    assert_int_equal(store_engine_list(f->s, &v, &n, &err), 0);
    assert_int_equal(n, 0); /* nothing was recorded */
    store_engine_list_free(v, n);
    free(empty);
    free(missing);
    free(file);
    free(server);
    free(noexec);
    free(ok);
}

/* Registers and probes dir (engine_register_probe, what `lvd fetch --register`
 * runs) and checks its exit code; returns its JSON (engine_registration_json),
 * printed and parsed back as a reader of --json gets it. */
static cJSON *command_json(fx *f, const char *dir, int timeout_ms, int want_code)
{
    engine_register_opts o = {.dir = dir, .build = "b9749", .timeout_ms = timeout_ms};
    engine_registration r;
    assert_int_equal(engine_register_probe(f->s, &o, 0, NULL, &r), want_code);
    assert_int_equal(r.exit_code, want_code);
    assert_true(r.registered);
    assert_true(r.probed);
    cJSON *built = engine_registration_json(&r);
    char *text = cJSON_PrintUnformatted(built);
    cJSON_Delete(built);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    free(text);
    engine_registration_free(&r);
    return j;
}

static void test_command_probes(void **state)
{
    fx *f = *state;
    char *gpu = make_dir(f, "gpu", 1, 1);
    put_fixture(gpu, "gpu-h200/cuda-list-devices.stdout", "list-devices.stdout");
    put_fixture(gpu, "gpu-h200/cuda-list-devices.stderr", "list-devices.stderr");
    cJSON *j = command_json(f, gpu, 5000, LVD_EXIT_OK);
    cJSON *probe = cJSON_GetObjectItem(j, "probe");
    assert_string_equal(cJSON_GetObjectItem(probe, "backend")->valuestring, "cuda");
    cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItem(probe, "devices"), 0);
    assert_string_equal(cJSON_GetObjectItem(dev, "selector")->valuestring, "CUDA0");
    assert_string_equal(cJSON_GetObjectItem(dev, "compute_cap")->valuestring, "9.0");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "engine"), "name")->valuestring, "b9749-gpu");
    cJSON_Delete(j);

    char *hung = make_dir(f, "hung", 0, 1);
    put_text(hung, "list-devices.exit", "hang");
    j = command_json(f, hung, 300, LVD_EXIT_PARTIAL);
    probe = cJSON_GetObjectItem(j, "probe");
    assert_string_equal(cJSON_GetObjectItem(probe, "backend")->valuestring, "unknown");
    assert_non_null(strstr(cJSON_GetObjectItem(probe, "reason")->valuestring, "timed out"));
    cJSON_Delete(j);
    free(gpu);
    free(hung);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test_setup_teardown(test_register_full_dir, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_register_bench_only, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_version_hangs_or_fails, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_command_probes, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
