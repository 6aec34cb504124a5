/* test_discover.c: finding engines (fetch/discover.c): the search order and
 * sources (operands, LVD_ENGINE_*, AIDE_LLAMA_SERVER*, PATH, places, bench
 * dirs), one candidate per real directory, identification by --version,
 * naming with collision suffixes, registration once, dry runs that write
 * nothing, and the exit codes. Engines are copies of tests/fake-engine with
 * their own fake-scenario; PATH, HOME and the places are temporary. */
#include "tests/support/testutil.h"

#include "fetch/discover.h"
#include "engine/probe.h"
#include "common/cli.h"
#include "engine/register.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

typedef tu_storefx fx;

/* Unsets every variable discovery reads, then points HOME, PATH, the places
 * and the bench dirs into the fixture. */
static void clean_env(fx *f)
{
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++) {
            if (!strncmp(*e, "LVD_ENGINE_", 11) || !strncmp(*e, "AIDE_LLAMA_SERVER", 17)) {
                char *name = lvd_xstrndup(*e, strcspn(*e, "="));
                unsetenv(name);
                free(name);
                again = 1;
                break;
            }
        }
    }
    char *home = lvd_xasprintf("%s/home", f->dir);
    char *path = lvd_xasprintf("%s/empty-path", f->dir);
    char *builds = lvd_xasprintf("%s/builds", f->dir);
    setenv("HOME", home, 1);
    setenv("PATH", path, 1);
    setenv("LVD_BUILDS_DIR", builds, 1);
    setenv("LVD_DISCOVER_PLACES", "", 1);
    free(home);
    free(path);
    free(builds);
}

static int setup(void **state)
{
    int rc = tu_store_setup(state);
    if (rc == 0)
        clean_env(*state);
    return rc;
}

/* f->dir/rel holding the fake engine as each of the names (NULL-terminated
 * list; NULL: llama-bench and llama-server) with scenario lines. */
static char *engine_at(fx *f, const char *rel, const char *scenario, const char *const *names)
{
    static const char *const both[] = {"llama-bench", "llama-server", NULL};
    char *dir = lvd_xasprintf("%s/%s", f->dir, rel);
    lvd_err err = {{0}};
    assert_int_equal(lvd_mkdir_p(dir, &err), 0);
    for (const char *const *n = names ? names : both; *n; n++) {
        char *bin = lvd_xasprintf("%s/%s", dir, *n);
        tu_copy(getenv("LVD_FAKE_ENGINE"), bin, 0755);
        free(bin);
    }
    char *scn = lvd_xasprintf("%s/fake-scenario", dir);
    tu_write_str(scn, scenario ? scenario : "");
    free(scn);
    return dir;
}

static char *real(const char *p)
{
    char *r = realpath(p, NULL);
    assert_non_null(r);
    return r;
}

static void names_and_collisions(void **state)
{
    (void)state;
    char *taken[] = {"b9749-cpu", "b9749-cpu-2", "b9749-vulkan"};
    static const struct {
        const char *backend, *backends, *dir;
        size_t n_taken;
        const char *want;
    } cases[] = {
        {"cpu", "cpu", "/x/bin", 0, "b9749-cpu"},
        {"cpu", "cpu", "/x/bin", 3, "b9749-cpu-3"},
        {"vulkan", "cpu,vulkan", "/x/bin", 1, "b9749-vulkan"},
        {"cuda+vulkan", "cpu,cuda,vulkan", "/x", 0, "b9749-cuda+vulkan"},
        /* an unknown backend is no name: the directory says what it is */
        {LVD_BACKEND_UNKNOWN, "cpu,rocm", "/opt/llama-rocm/build/bin", 0, "b9749-llama-rocm"},
        /* a build that listed no device is named by the accelerator backend
         * it carries (the real Vulkan build with no reachable GPU), not "cpu" */
        {"cpu", "cpu,vulkan", "/x/bin", 3, "b9749-vulkan-2"},
        {"cpu", "cpu,cuda,vulkan", "/x/bin", 0, "b9749-cuda+vulkan"},
        {"cpu", NULL, "/x/bin", 0, "b9749-cpu"},
        /* the devices' label wins over what else the files carry */
        {"cuda", "cpu,cuda,vulkan", "/x/bin", 0, "b9749-cuda"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        char *n = fetch_discover_name("b9749", cases[i].backend, cases[i].backends, cases[i].dir,
                                      cases[i].n_taken ? taken : NULL, cases[i].n_taken);
        assert_string_equal(n, cases[i].want);
        free(n);
    }
}

static void places_default_and_override(void **state)
{
    (void)state;
    unsetenv("LVD_DISCOVER_PLACES");
    size_t n;
    char **p = fetch_discover_places(&n);
    assert_int_equal(n, 5);
    assert_string_equal(p[0], "~/llama.cpp/build*/bin");
    assert_string_equal(p[1], "/opt/llama.cpp/*");
    assert_string_equal(p[2], "/opt/llama.cpp/*/bin");
    assert_string_equal(p[3], "/usr/local/bin");
    assert_string_equal(p[4], "/usr/bin");
    lvd_strv_free(p);
    setenv("LVD_DISCOVER_PLACES", "", 1);
    p = fetch_discover_places(&n);
    assert_int_equal(n, 0);
    lvd_strv_free(p);
    setenv("LVD_DISCOVER_PLACES", "/a:~/b*", 1);
    p = fetch_discover_places(&n);
    assert_int_equal(n, 2);
    assert_string_equal(p[1], "~/b*");
    lvd_strv_free(p);
    setenv("LVD_DISCOVER_PLACES", "", 1);
}

static void candidates_in_order_each_directory_once(void **state)
{
    fx *f = *state;
    char *opbin = engine_at(f, "op/build/bin", NULL, NULL);
    char *op = lvd_xasprintf("%s/op", f->dir);
    char *onpath = engine_at(f, "onpath", NULL, NULL);
    char *envd = engine_at(f, "envdir", NULL, NULL);
    const char *server_only[] = {"llama-server", NULL};
    char *aide = engine_at(f, "aide", NULL, server_only);
    char *homeb = engine_at(f, "home/llama.cpp/build-vk/bin", NULL, NULL);
    char *bench = engine_at(f, "builds/b10715-bin-ubuntu-x64/build/bin", NULL, NULL);
    char *nobin = lvd_xasprintf("%s/nobin", f->dir);
    lvd_err err = {{0}};
    assert_int_equal(lvd_mkdir_p(nobin, &err), 0);
    /* the same directory through a symlink, on PATH twice */
    char *link = lvd_xasprintf("%s/link-to-onpath", f->dir);
    assert_int_equal(symlink(onpath, link), 0);
    char *path = lvd_xasprintf("relative:%s:%s:%s:%s/bin-nothing", onpath, link, nobin, f->dir);
    setenv("PATH", path, 1);
    setenv("LVD_ENGINE_X", envd, 1);
    char *aide_bin = lvd_xasprintf("%s/llama-server", aide);
    setenv("AIDE_LLAMA_SERVER_VULKAN", aide_bin, 1);
    char *gone = lvd_xasprintf("%s/gone/llama-server", f->dir);
    setenv("AIDE_LLAMA_SERVER_CUDA", gone, 1);
    setenv("LVD_DISCOVER_PLACES", "~/llama.cpp/build*/bin:/nonexistent/*", 1);
    /* an operand that is a build tree: its engine is found below it */
    const char *dirs[] = {op, onpath};
    fetch_discover_opts o = {.dirs = dirs, .n_dirs = 2};
    fetch_discover_cand *v;
    size_t n;
    assert_int_equal(fetch_discover_candidates(&o, &v, &n, &err), 0);
    const char *want_src[] = {"operand", "operand", "env:LVD_ENGINE_X", "env:AIDE_LLAMA_SERVER_CUDA",
                              "env:AIDE_LLAMA_SERVER_VULKAN", "place", "benchdir"};
    char *want_dir[] = {real(opbin), real(onpath), real(envd), NULL, real(aide), real(homeb), real(bench)};
    assert_int_equal(n, LVD_ARRAY_LEN(want_src));
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(v[i].source, want_src[i]);
        if (want_dir[i]) {
            assert_non_null(v[i].dir);
            assert_string_equal(v[i].dir, want_dir[i]);
            assert_null(v[i].reason);
        } else {
            assert_null(v[i].dir);
            assert_non_null(strstr(v[i].reason, "gone"));
        }
        free(want_dir[i]);
    }
    fetch_discover_cands_free(v, n);

    /* without operands the PATH directory is found on PATH, once */
    o.n_dirs = 0;
    assert_int_equal(fetch_discover_candidates(&o, &v, &n, &err), 0);
    int on_path = 0;
    for (size_t i = 0; i < n; i++)
        on_path += !strcmp(v[i].source, "path");
    assert_int_equal(on_path, 1);
    fetch_discover_cands_free(v, n);

    /* an operand that holds no engine is refused */
    const char *bad[] = {nobin};
    o.dirs = bad;
    o.n_dirs = 1;
    assert_int_equal(fetch_discover_candidates(&o, &v, &n, &err), -1);
    assert_non_null(strstr(err.msg, "holds no executable llama-server or llama-bench"));
    free(op);
    free(opbin);
    free(onpath);
    free(envd);
    free(aide);
    free(aide_bin);
    free(homeb);
    free(bench);
    free(nobin);
    free(link);
    free(path);
    free(gone);
}

static void version_from_the_engine_itself(void **state)
{
    fx *f = *state;
    char *d = engine_at(f, "v", "build_number = 10715\nbuild_commit = 0123abcd\n", NULL);
    engine_version v;
    lvd_err err = {{0}};
    assert_int_equal(engine_ask_version(d, 5000, &v, &err), 0);
    assert_int_equal(v.number, 10715);
    assert_string_equal(v.commit, "0123abcd");
    assert_string_equal(v.semver, "");
    char *u = engine_at(f, "u", "build_number = 0\nbuild_commit = unknown\n", NULL);
    assert_int_equal(engine_ask_version(u, 5000, &v, &err), 0);
    assert_int_equal(v.number, 0);
    assert_string_equal(v.commit, "");
    /* the SemVer era's line */
    char *sv = engine_at(f, "sv", "build_number = 10991\nbuild_commit = 930e2fa59\nversion = 0.4.1-dev\n", NULL);
    assert_int_equal(engine_ask_version(sv, 5000, &v, &err), 0);
    assert_int_equal(v.number, 10991);
    assert_string_equal(v.commit, "930e2fa59");
    assert_string_equal(v.semver, "0.4.1-dev");
    /* llama-bench alone has no --version */
    const char *bench_only[] = {"llama-bench", NULL};
    char *b = engine_at(f, "b", NULL, bench_only);
    assert_int_equal(engine_ask_version(b, 5000, &v, &err), -1);
    assert_non_null(strstr(err.msg, "llama-bench has none"));
    free(d);
    free(u);
    free(sv);
    free(b);
}

static size_t engines_in(store *s)
{
    lvd_engine *v;
    size_t n;
    lvd_err err = {{0}};
    assert_int_equal(store_engine_list(s, &v, &n, &err), 0);
    store_engine_list_free(v, n);
    return n;
}

static void registers_once_named_by_build_and_backend(void **state)
{
    fx *f = *state;
    char *cpu1 = engine_at(f, "cpu1", NULL, NULL);
    char *cpu2 = engine_at(f, "cpu2", "build_number = 9749\n", NULL);
    char *vk = engine_at(f, "vk", "device = Vulkan0|AMD Radeon RX 7900|24560|24000\n", NULL);
    const char *bench_only[] = {"llama-bench", NULL};
    char *anon = engine_at(f, "anon", NULL, bench_only);
    char *path = lvd_xasprintf("%s:%s", cpu1, anon);
    setenv("PATH", path, 1);
    setenv("LVD_ENGINE_VK", vk, 1);
    setenv("LVD_ENGINE_ZZ", cpu2, 1);

    /* a dry run names them and writes nothing */
    fetch_discover_opts o = {.dry_run = 1, .timeout_ms = 5000};
    fetch_discover_result r;
    int code;
    lvd_err err = {{0}};
    assert_int_equal(fetch_discover_run(f->s, &o, &r, &code, &err), 0);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.n_new, 3);
    assert_int_equal(r.n_unidentified, 1);
    assert_int_equal(fetch_discover_exit_code(&r), LVD_EXIT_PARTIAL);
    assert_int_equal(engines_in(f->s), 0);
    fetch_discover_result_free(&r);

    o.dry_run = 0;
    assert_int_equal(fetch_discover_run(f->s, &o, &r, &code, &err), 0);
    /* env first (sorted), then PATH */
    assert_string_equal(r.v[0].source, "env:LVD_ENGINE_VK");
    assert_string_equal(r.v[0].name, "b9749-vulkan");
    assert_string_equal(r.v[0].probe.backend, "vulkan");
    assert_string_equal(r.v[1].name, "b9749-cpu");
    assert_string_equal(r.v[1].source, "env:LVD_ENGINE_ZZ");
    assert_string_equal(r.v[2].name, "b9749-cpu-2");
    assert_string_equal(r.v[2].source, "path");
    assert_string_equal(r.v[2].commit, "d32676d77");
    assert_string_equal(r.v[3].status, "unidentified");
    assert_int_equal(engines_in(f->s), 3);
    lvd_engine e;
    assert_int_equal(store_engine_by_name(f->s, "b9749-vulkan", &e, &err), 0);
    char *vk_real = real(vk);
    assert_string_equal(e.dir, vk_real);
    assert_string_equal(e.build, "b9749");
    assert_string_equal(e.commit, "d32676d77");
    assert_string_equal(e.origin, "registered");
    /* its probe was recorded: the cache answers */
    lvd_probe p;
    int cached = 0;
    assert_int_equal(engine_probe_engine_ex(f->s, &e, 0, 5000, &p, &cached, &err), 0);
    assert_int_equal(cached, 1);
    assert_int_equal(p.n_devices, 1);
    lvd_probe_free(&p);
    lvd_engine_free(&e);
    cJSON *j = fetch_discover_json(&r);
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "found"), 0);
    assert_string_equal(cJSON_GetObjectItem(first, "status")->valuestring, "new");
    assert_string_equal(cJSON_GetObjectItem(first, "backend")->valuestring, "vulkan");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(first, "devices"), 0)->valuestring, "Vulkan0");
    cJSON_Delete(j);
    fetch_discover_result_free(&r);

    /* again: nothing new */
    assert_int_equal(fetch_discover_run(f->s, &o, &r, &code, &err), 0);
    assert_int_equal(r.n_new, 0);
    assert_int_equal(r.n_known, 3);
    assert_string_equal(r.v[0].status, "known");
    assert_string_equal(r.v[0].name, "b9749-vulkan");
    char *sum = fetch_discover_summary(&r);
    assert_non_null(strstr(sum, "nothing new: 4 engines found, 3 already registered"));
    free(sum);
    assert_int_equal(engines_in(f->s), 3);
    fetch_discover_result_free(&r);
    free(vk_real);
    free(cpu1);
    free(cpu2);
    free(vk);
    free(anon);
    free(path);
}

static void known_by_path_when_registered_by_hand(void **state)
{
    fx *f = *state;
    char *d = engine_at(f, "mine/build/bin", NULL, NULL);
    engine_register_opts ro = {.dir = d, .build = "b9749", .name = "my-cuda", .timeout_ms = 5000};
    lvd_engine e;
    int code;
    lvd_err err = {{0}};
    assert_int_equal(engine_register(f->s, &ro, &e, &code, &err), 0);
    lvd_engine_free(&e);
    char *link = lvd_xasprintf("%s/mine-link", f->dir);
    assert_int_equal(symlink(d, link), 0);
    setenv("PATH", link, 1);
    fetch_discover_opts o = {.timeout_ms = 5000};
    fetch_discover_result r;
    assert_int_equal(fetch_discover_run(f->s, &o, &r, &code, &err), 0);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.v[0].status, "known");
    assert_string_equal(r.v[0].name, "my-cuda");
    assert_int_equal(fetch_discover_exit_code(&r), LVD_EXIT_OK);
    assert_int_equal(engines_in(f->s), 1);
    fetch_discover_result_free(&r);
    free(d);
    free(link);
}

static void nothing_found_is_exit_1(void **state)
{
    fx *f = *state;
    fetch_discover_opts o = {.timeout_ms = 5000};
    fetch_discover_result r;
    int code;
    lvd_err err = {{0}};
    assert_int_equal(fetch_discover_run(f->s, &o, &r, &code, &err), 0);
    assert_int_equal(r.n, 0);
    assert_int_equal(fetch_discover_exit_code(&r), LVD_EXIT_FAIL);
    char *sum = fetch_discover_summary(&r);
    assert_non_null(strstr(sum, "no llama.cpp engine found"));
    free(sum);
    fetch_discover_result_free(&r);
    /* a dry run needs no store at all */
    char *d = engine_at(f, "e", NULL, NULL);
    setenv("PATH", d, 1);
    o.dry_run = 1;
    assert_int_equal(fetch_discover_run(NULL, &o, &r, &code, &err), 0);
    assert_int_equal(r.n_new, 1);
    assert_int_equal(fetch_discover_exit_code(&r), LVD_EXIT_OK);
    fetch_discover_result_free(&r);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_collisions),
        cmocka_unit_test_setup_teardown(places_default_and_override, setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(candidates_in_order_each_directory_once, setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(version_from_the_engine_itself, setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(registers_once_named_by_build_and_backend, setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(known_by_path_when_registered_by_hand, setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(nothing_found_is_exit_1, setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
