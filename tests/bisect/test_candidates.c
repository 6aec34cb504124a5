/* test_candidates.c: bisect_candidates (bisect/candidates.c) against the
 * loopback release API (tests/support/httpd.py) with small pages: the listing
 * is read page after page until it reaches past good, and no further; drafts
 * and releases without the flavour's asset are left out; good and bad must
 * both be there. The page size is the library's parameter: lvd bisect asks
 * BISECT_PER_PAGE, this test 10 so that 32 releases take four pages. */
#include "tests/support/testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "common/cli.h"
#include "common/util.h"

#define FLAVOUR "bin-ubuntu-vulkan-x64"

typedef struct api {
    char *dir, *log, *base;
    pid_t pid;
} api;

/* Writes DIR/releases.json: b131 .. b100, newest first; b125 a draft, b110
 * with another flavour's asset only. */
static void releases(const char *dir)
{
    char *path = lvd_xasprintf("%s/releases.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[", f);
    for (int b = 131; b >= 100; b--)
        fprintf(f, "%s{\"tag_name\": \"b%d\", \"draft\": %s, \"prerelease\": false, "
                   "\"published_at\": \"2026-11-01T00:00:00Z\", \"assets\": [{\"name\": \"llama-b%d-%s.tar.gz\", "
                   "\"browser_download_url\": \"{base}/download/b%d/x\"}]}\n",
                b == 131 ? "" : ",", b, b == 125 ? "true" : "false", b, b == 110 ? "bin-ubuntu-x64" : FLAVOUR, b);
    fputs("]\n", f);
    assert_int_equal(fclose(f), 0);
    free(path);
}

/* Starts httpd.py on a fresh folder of releases, its requests logged. */
static void api_start(api *a)
{
    a->dir = tu_tmpdir();
    a->log = lvd_xasprintf("%s.log", a->dir);
    releases(a->dir);
    char *script = tu_source("tests/support/httpd.py");
    int out[2];
    assert_int_equal(pipe(out), 0);
    a->pid = fork();
    assert_true(a->pid >= 0);
    if (a->pid == 0) {
        FILE *log = freopen(a->log, "a", stderr); /* appended: pages_asked empties it */
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        setenv("LVD_HTTPD_LOG", "1", 1);
        if (log)
            execlp("python3", "python3", script, "--dir", a->dir, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char port[16] = {0};
    size_t got = 0;
    ssize_t r;
    while (got < sizeof port - 1 && !strchr(port, '\n') && (r = read(out[0], port + got, sizeof port - 1 - got)) > 0)
        got += (size_t)r;
    close(out[0]);
    assert_non_null(strchr(port, '\n'));
    a->base = lvd_xasprintf("http://127.0.0.1:%d/api", atoi(port));
    free(script);
}

static void api_stop(api *a)
{
    kill(a->pid, SIGTERM);
    int st;
    assert_int_equal(waitpid(a->pid, &st, 0), a->pid);
    unlink(a->log);
    free(a->log);
    free(a->base);
    tu_tmpdir_free(a->dir);
}

/* The release list pages the server was asked for since the last call. */
static int pages_asked(const api *a)
{
    char *log = tu_read(a->log, NULL);
    int n = 0;
    for (const char *p = log; (p = strstr(p, "GET /api/releases?per_page=10&page=")); p++)
        n++;
    free(log);
    FILE *f = fopen(a->log, "w"); /* the child appends after this point */
    if (f)
        fclose(f);
    return n;
}

static void test_every_page_to_good(void **state)
{
    (void)state;
    api a;
    api_start(&a);
    char **tags;
    size_t n;
    int code = 0;
    lvd_err err = {0};

    /* good is the oldest release: on the fourth page of ten */
    assert_int_equal(bisect_candidates(a.base, "b100", "b131", FLAVOUR, 10, &tags, &n, &code, &err), 0);
    assert_int_equal(n, 30); /* 32 less the draft and the release without the asset */
    assert_string_equal(tags[0], "b100");
    assert_string_equal(tags[n - 1], "b131");
    for (size_t i = 0; i < n; i++) {
        assert_string_not_equal(tags[i], "b125");
        assert_string_not_equal(tags[i], "b110");
        if (i)
            assert_true(atoi(tags[i - 1] + 1) < atoi(tags[i] + 1)); /* oldest first */
    }
    lvd_strv_free(tags);
    assert_int_equal(pages_asked(&a), 4);

    /* good on the second page, with older releases after it there: no third page */
    assert_int_equal(bisect_candidates(a.base, "b120", "b129", FLAVOUR, 10, &tags, &n, &code, &err), 0);
    assert_int_equal(n, 9); /* b120 .. b129 less the draft */
    assert_string_equal(tags[0], "b120");
    assert_string_equal(tags[n - 1], "b129");
    lvd_strv_free(tags);
    assert_int_equal(pages_asked(&a), 2);

    /* good is not a release with the asset: a usage error naming both */
    assert_int_equal(bisect_candidates(a.base, "b110", "b131", FLAVOUR, 10, &tags, &n, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "b110 and b131 must both be published releases"));
    assert_null(tags);
    api_stop(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_page_to_good),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
