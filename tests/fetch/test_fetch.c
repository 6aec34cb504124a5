/* test_fetch.c: unit tests of fetch/: release asset names, the pin file
 * (parse errors with line numbers, promotion, atomic rewrite), the
 * verification rules as a decision table, release JSON parsing and --latest,
 * which build a fetch takes (fetch_resolve_build, against a loopback API),
 * the lexical path checks, and safe unpacking of archives this test writes
 * with libarchive (good tar.gz and zip, zip-slip, absolute paths, symlink and
 * hardlink escapes, device files, fifos, size and count limits). The network
 * paths run against a real loopback server in tests/e2e_fetch.sh. */
#include "tests/support/testutil.h"

#include "common/cli.h"
#include "common/util.h"
#include "builds/asset.h"
#include "fetch/download.h"
#include "fetch/fetch.h"
#include "fetch/http.h"
#include "builds/pinfile.h"
#include "fetch/release.h"
#include "fetch/resolve.h"
#include "fetch/unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHA_A "1246c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87"
#define SHA_B "f7f759956db9c6d43087d360431f45ff91e343fa1adf5c86b6e729a500a554d5"

/* --- asset names -------------------------------------------------------- */

static void check_names(const char *build, const char *flavour, const char *first,
                        const char *second)
{
    char *names[BUILDS_MAX_ASSET_NAMES];
    size_t n;
    lvd_err err;
    assert_int_equal(builds_asset_names(build, flavour, names, &n, &err), 0);
    assert_int_equal(n, second ? 2 : 1);
    assert_string_equal(names[0], first);
    if (second)
        assert_string_equal(names[1], second);
    builds_asset_names_free(names, n);
}

static void test_asset_names(void **state)
{
    (void)state;
    check_names("b10715", "bin-ubuntu-vulkan-x64", "llama-b10715-bin-ubuntu-vulkan-x64.tar.gz",
                "llama-b10715-bin-ubuntu-vulkan-x64.zip");
    check_names("b10715", "ubuntu-x64", "llama-b10715-bin-ubuntu-x64.tar.gz",
                "llama-b10715-bin-ubuntu-x64.zip");
    check_names("b4000", "ubuntu-s390x", "llama-b4000-bin-ubuntu-s390x.tar.gz",
                "llama-b4000-bin-ubuntu-s390x.zip");
    check_names("b10715", "macos-arm64", "llama-b10715-bin-macos-arm64.tar.gz",
                "llama-b10715-bin-macos-arm64.zip");
    check_names("b10715", "macos-x64", "llama-b10715-bin-macos-x64.tar.gz",
                "llama-b10715-bin-macos-x64.zip");
    /* Windows archives have only ever been zips */
    check_names("b10715", "win-cuda-12.4-x64", "llama-b10715-bin-win-cuda-12.4-x64.zip", NULL);
    check_names("b10715", "bin-win-cpu-x64", "llama-b10715-bin-win-cpu-x64.zip", NULL);
    check_names("b10715", "win-vulkan-x64", "llama-b10715-bin-win-vulkan-x64.zip", NULL);
    assert_string_equal(builds_flavour_canonical("ubuntu-vulkan-x64"), "bin-ubuntu-vulkan-x64");
    assert_null(builds_flavour_canonical("ubuntu-cuda-x64"));
    assert_null(builds_flavour_canonical("bin-"));
    assert_null(builds_flavour_canonical(""));
}

static void test_asset_errors(void **state)
{
    (void)state;
    char *names[BUILDS_MAX_ASSET_NAMES];
    size_t n;
    lvd_err err;
    /* Linux has no CUDA archive: the error lists what exists */
    assert_int_equal(builds_asset_names("b10715", "ubuntu-cuda-x64", names, &n, &err), -1);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "unknown flavour 'ubuntu-cuda-x64'"));
    assert_non_null(strstr(err.msg, "bin-win-cuda-12.4-x64"));
    assert_non_null(strstr(err.msg, "bin-ubuntu-vulkan-x64"));
    static const char *const bad[] = {"10715", "b", "B10715", "b10715a", "b-1", "b 1",
                                      "b1234567890123", "", "latest"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_false(builds_valid(bad[i]));
        assert_int_equal(builds_asset_names(bad[i], "ubuntu-x64", names, &n, &err), -1);
        assert_non_null(strstr(err.msg, "is not a llama.cpp build"));
    }
    assert_false(builds_valid(NULL));
    assert_true(builds_valid("b1"));
    assert_true(builds_valid("b10715"));
}

/* --- pin file ----------------------------------------------------------- */

static void test_pin_default(void **state)
{
    (void)state;
    char *path = tu_source("share/pin.default");
    builds_pin pin;
    lvd_err err;
    if (builds_pin_load(path, &pin, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(builds_pin_build(&pin), "b10715");
    assert_string_equal(builds_pin_flavour(&pin, 0), "bin-ubuntu-vulkan-x64");
    assert_null(builds_pin_flavour(&pin, 1));
    assert_string_equal(builds_pin_sha256(&pin, "bin-ubuntu-vulkan-x64"), SHA_A);
    assert_string_equal(builds_pin_sha256(&pin, "ubuntu-vulkan-x64"), SHA_A);
    assert_null(builds_pin_sha256(&pin, "ubuntu-x64"));
    /* formatting an unmodified pin reproduces the file byte for byte */
    char *text = builds_pin_format(&pin);
    char *orig = tu_read(path, NULL);
    assert_string_equal(text, orig);
    free(text);
    free(orig);
    builds_pin_free(&pin);
    free(path);
}

static void expect_pin_error(const char *text, const char *want)
{
    builds_pin pin;
    lvd_err err;
    assert_int_equal(builds_pin_parse("repo/pin", text, strlen(text), &pin, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("pin error '%s' does not contain '%s'", err.msg, want);
    assert_null(pin.lines);
}

static void test_pin_errors(void **state)
{
    (void)state;
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha = abc\n",
                     "repo/pin:3: unknown setting 'sha'");
    expect_pin_error("# c\n\nbuild = 10715\n", "repo/pin:3: build '10715' is not a llama.cpp build");
    expect_pin_error("build = b1\nbuild = b2\n", "repo/pin:2: 'build' is set twice");
    expect_pin_error("build = b1\nflavour = ubuntu-cuda-x64\n",
                     "repo/pin:2: unknown flavour 'ubuntu-cuda-x64'; known flavours:");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nflavour = bin-ubuntu-x64\n",
                     "repo/pin:3: flavour bin-ubuntu-x64 is listed twice");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha256.bin-ubuntu-x64 = " SHA_A "0\n",
                     "repo/pin:3: 'sha256.bin-ubuntu-x64' must be 64 lowercase hex characters");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha256.ubuntu-x64 = "
                     "1246C764F630F1CFC7C0921353A9719603C5D9CCFA7CED621BAC216FFD9B2D87\n",
                     "repo/pin:3: 'sha256.bin-ubuntu-x64' must be 64 lowercase hex");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha256.ubuntu-x64 = " SHA_A
                     "\nsha256.bin-ubuntu-x64 = " SHA_A "\n",
                     "repo/pin:4: 'sha256.bin-ubuntu-x64' is set twice");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha256.nope = " SHA_A "\n",
                     "repo/pin:3: 'sha256.nope' names an unknown flavour");
    expect_pin_error("build b1\n", "repo/pin:1: expected 'key = value'");
    /* the rules of common/kv.h: no sections, no control bytes, keys as kv reads them */
    expect_pin_error("[pin]\nbuild = b1\n", "repo/pin:1: expected 'key = value', got a section header");
    expect_pin_error("build = b1\fx\n", "repo/pin:1: control character 0x0c");
    expect_pin_error("bu ild = b1\n", "repo/pin:1: invalid key 'bu ild'");
    expect_pin_error("build = b1\n = x\n", "repo/pin:2: invalid key ''");
    expect_pin_error("build =\n", "repo/pin:1: expected 'key = value' with both sides non-empty");
    expect_pin_error("flavour = ubuntu-x64\n", "repo/pin: no 'build = b<number>' (or 'build = v<x.y.z>') line");
    expect_pin_error("build = b1\n", "repo/pin: no 'flavour = ...' line");
    expect_pin_error("build = b1\nflavour = ubuntu-x64\nsha256.macos-arm64 = " SHA_A "\n",
                     "repo/pin: 'sha256.bin-macos-arm64' is recorded but flavour bin-macos-arm64 "
                     "is not listed");
    /* a file that does not exist names itself; a binary one is refused */
    builds_pin pin;
    lvd_err err;
    assert_int_equal(builds_pin_parse("repo/pin", "build = b1\0\n", 12, &pin, &err), -1);
    assert_non_null(strstr(err.msg, "repo/pin: not a text file"));
    assert_int_equal(builds_pin_load("/nonexistent/pin", &pin, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/pin: "));
}

/* A pin written on Windows, with both comment marks and trailing blanks:
 * it reads, and a rewrite keeps the comments (without CR and trailing blanks). */
static void test_pin_crlf_and_comments(void **state)
{
    (void)state;
    const char *text = "# pin \r\n; old style\r\n\t\r\nbuild\t=\tb7 \r\nflavour=ubuntu-x64\r\n";
    builds_pin pin;
    lvd_err err;
    if (builds_pin_parse("p", text, strlen(text), &pin, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(builds_pin_build(&pin), "b7");
    assert_string_equal(builds_pin_flavour(&pin, 0), "bin-ubuntu-x64");
    char *out = builds_pin_format(&pin);
    assert_string_equal(out, "# pin\n; old style\n\nbuild = b7\nflavour = bin-ubuntu-x64\n");
    free(out);
    builds_pin_free(&pin);
}

static void test_pin_promote(void **state)
{
    (void)state;
    const char *text = "# the pin\r\n"
                       "build = b100\n"
                       "\n"
                       "  # flavours we run\n"
                       "flavour = ubuntu-vulkan-x64\n"
                       "flavour = ubuntu-x64\n"
                       "sha256.ubuntu-vulkan-x64 = " SHA_A "\n"
                       "sha256.ubuntu-x64 = " SHA_B "\n";
    builds_pin pin;
    lvd_err err;
    assert_int_equal(builds_pin_parse("p", text, strlen(text), &pin, &err), 0);
    assert_string_equal(builds_pin_flavour(&pin, 1), "bin-ubuntu-x64");
    assert_string_equal(builds_pin_sha256(&pin, "ubuntu-x64"), SHA_B);

    /* the same build: one digest replaced, the other kept */
    assert_int_equal(builds_pin_promote(&pin, "b100", "ubuntu-x64", SHA_A, &err), 0);
    assert_string_equal(builds_pin_sha256(&pin, "ubuntu-x64"), SHA_A);
    assert_string_equal(builds_pin_sha256(&pin, "ubuntu-vulkan-x64"), SHA_A);

    /* a new build: every old digest goes, the new one is recorded */
    assert_int_equal(builds_pin_promote(&pin, "b200", "bin-ubuntu-vulkan-x64", SHA_B, &err), 0);
    char *out = builds_pin_format(&pin);
    assert_string_equal(out, "# the pin\n"
                             "build = b200\n"
                             "\n"
                             "  # flavours we run\n"
                             "flavour = bin-ubuntu-vulkan-x64\n"
                             "flavour = bin-ubuntu-x64\n"
                             "sha256.bin-ubuntu-vulkan-x64 = " SHA_B "\n");
    free(out);

    /* a flavour not listed yet is listed; its digest follows the others */
    assert_int_equal(builds_pin_promote(&pin, "b200", "macos-arm64", SHA_A, &err), 0);
    assert_string_equal(builds_pin_flavour(&pin, 2), "bin-macos-arm64");
    assert_string_equal(builds_pin_sha256(&pin, "macos-arm64"), SHA_A);

    /* invalid promotions change nothing */
    assert_int_equal(builds_pin_promote(&pin, "200", "ubuntu-x64", SHA_A, &err), -1);
    assert_int_equal(builds_pin_promote(&pin, "b300", "ubuntu-cuda", SHA_A, &err), -1);
    assert_int_equal(builds_pin_promote(&pin, "b300", "ubuntu-x64", "abc", &err), -1);
    assert_string_equal(builds_pin_build(&pin), "b200");

    /* saved atomically, it parses back to the same thing */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/pin", dir);
    assert_int_equal(builds_pin_save(&pin, path, &err), 0);
    builds_pin back;
    if (builds_pin_load(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    char *a = builds_pin_format(&pin), *b = builds_pin_format(&back);
    assert_string_equal(a, b);
    free(a);
    free(b);
    builds_pin_free(&back);
    /* no temporary file is left beside it */
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 1);
    free(path);
    tu_tmpdir_free(dir);
    builds_pin_free(&pin);
}

/* --- the verification rules --------------------------------------------- */

static void test_decide_table(void **state)
{
    (void)state;
    static const struct {
        const char *recorded, *api;
        fetch_api_status st;
        fetch_verdict verdict;
        const char *expect; /* "A", "B" or NULL */
        const char *note;
    } rows[] = {
        {SHA_A, SHA_A, FETCH_API_OK, FETCH_TRUST_BOTH, "A", "agree"},
        {SHA_A, SHA_B, FETCH_API_OK, FETCH_STOP_DISAGREE, NULL, "replaced"},
        {NULL, SHA_B, FETCH_API_OK, FETCH_TRUST_API, "B", "not pinned"},
        {SHA_A, NULL, FETCH_API_OK, FETCH_TRUST_RECORDED, "A", "publishes no digest"},
        {NULL, NULL, FETCH_API_OK, FETCH_STOP_UNVERIFIABLE, NULL, "refusing an unverified"},
        {SHA_A, NULL, FETCH_API_RATE_LIMITED, FETCH_TRUST_RECORDED, "A", "rate-limited"},
        {NULL, NULL, FETCH_API_RATE_LIMITED, FETCH_STOP_UNVERIFIABLE, NULL, "rate-limited"},
        {SHA_A, NULL, FETCH_API_UNAVAILABLE, FETCH_TRUST_RECORDED, "A", "unavailable"},
        {NULL, NULL, FETCH_API_UNAVAILABLE, FETCH_STOP_UNVERIFIABLE, NULL, "unavailable"},
        {SHA_A, NULL, FETCH_API_NOT_FOUND, FETCH_STOP_NOT_FOUND, NULL, "no such release"},
        {NULL, NULL, FETCH_API_NOT_FOUND, FETCH_STOP_NOT_FOUND, NULL, "no such release"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(rows); i++) {
        fetch_decision d = fetch_decide(rows[i].recorded, rows[i].api, rows[i].st);
        if (d.verdict != rows[i].verdict)
            fail_msg("row %zu: verdict %s, want %s", i, fetch_verdict_name(d.verdict),
                     fetch_verdict_name(rows[i].verdict));
        if (!rows[i].expect)
            assert_null(d.expect);
        else
            assert_string_equal(d.expect, rows[i].expect[0] == 'A' ? SHA_A : SHA_B);
        if (!strstr(d.note, rows[i].note))
            fail_msg("row %zu: note '%s' lacks '%s'", i, d.note, rows[i].note);
    }
}

/* --- release JSON ------------------------------------------------------- */

static void test_release_parse(void **state)
{
    (void)state;
    const char *json =
        "{\"tag_name\":\"b10715\",\"draft\":false,\"prerelease\":false,"
        "\"published_at\":\"2026-01-01T00:00:00Z\",\"assets\":["
        "{\"name\":\"llama-b10715-bin-ubuntu-vulkan-x64.tar.gz\",\"size\":12345,"
        "\"digest\":\"sha256:1246C764F630F1CFC7C0921353A9719603C5D9CCFA7CED621BAC216FFD9B2D87\","
        "\"browser_download_url\":\"https://example/a.tar.gz\"},"
        "{\"name\":\"llama-b10715-bin-ubuntu-x64.zip\",\"digest\":null,"
        "\"browser_download_url\":\"https://example/b.zip\"},"
        "{\"name\":\"old\",\"browser_download_url\":\"https://example/old\"},"
        "{\"name\":\"huge\",\"size\":5.5e48,\"browser_download_url\":\"https://example/h\"},"
        "{\"name\":\"no-url\"}]}";
    fetch_release r;
    lvd_err err;
    assert_int_equal(fetch_release_parse(json, strlen(json), &r, &err), 0);
    assert_string_equal(r.tag, "b10715");
    assert_int_equal(r.published_at, 1767225600);
    assert_int_equal(r.n_assets, 4);
    const fetch_asset *a = fetch_release_asset(&r, "llama-b10715-bin-ubuntu-vulkan-x64.tar.gz");
    assert_non_null(a);
    assert_string_equal(a->digest, SHA_A);
    assert_int_equal(a->size, 12345);
    assert_string_equal(a->url, "https://example/a.tar.gz");
    a = fetch_release_asset(&r, "llama-b10715-bin-ubuntu-x64.zip");
    assert_null(a->digest);
    assert_int_equal(a->size, -1);
    assert_null(fetch_release_asset(&r, "old")->digest);
    /* found by fuzz_release: a size beyond int64 was converted (undefined behaviour) */
    assert_int_equal(fetch_release_asset(&r, "huge")->size, -1);
    assert_null(fetch_release_asset(&r, "no-url"));
    fetch_release_free(&r);

    static const char *const bad[] = {
        "not json",
        "[]",
        "{\"name\":\"no tag\"}",
        "{\"tag_name\":\"b1\",\"assets\":[{\"name\":\"x\",\"browser_download_url\":\"u\","
        "\"digest\":\"md5:abcd\"}]}",
        "{\"tag_name\":\"b1\",\"assets\":[{\"name\":\"x\",\"browser_download_url\":\"u\","
        "\"digest\":\"sha256:zz46c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87\"}]}",
        "{\"tag_name\":\"b1\",\"assets\":[{\"name\":\"x\",\"browser_download_url\":\"u\","
        "\"digest\":7}]}",
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(fetch_release_parse(bad[i], strlen(bad[i]), &r, &err), -1);
        assert_non_null(strstr(err.msg, "release API"));
    }
}

static void test_latest_pick(void **state)
{
    (void)state;
    const char *json =
        "[{\"tag_name\":\"b105\",\"draft\":true,\"published_at\":\"2026-01-01T05:00:00Z\"},"
        "{\"tag_name\":\"b104\",\"prerelease\":true,\"published_at\":\"2026-01-01T04:00:00Z\"},"
        "{\"tag_name\":\"b103\",\"published_at\":\"2026-01-01T03:00:00Z\"},"
        "{\"tag_name\":\"nightly\",\"published_at\":\"2026-01-01T03:30:00Z\"},"
        "{\"tag_name\":\"b102\",\"published_at\":null},"
        "{\"tag_name\":\"b101\",\"published_at\":\"2026-01-01T01:00:00Z\"},"
        "{\"tag_name\":\"b100\",\"published_at\":\"2026-01-01T00:00:00Z\"}]";
    const int64_t t0 = 1767225600;
    char *tag;
    lvd_err err;
    assert_int_equal(fetch_latest_pick(json, strlen(json), 0, t0 + 6 * 3600, &tag, &err), 0);
    assert_string_equal(tag, "b103");
    free(tag);
    /* at least 6 h old at 07:00: b101 (01:00) qualifies, b103 (03:00) does not */
    assert_int_equal(fetch_latest_pick(json, strlen(json), 6 * 3600, t0 + 7 * 3600, &tag, &err), 0);
    assert_string_equal(tag, "b101");
    free(tag);
    assert_int_equal(fetch_latest_pick(json, strlen(json), 6 * 3600, t0 + 3600, &tag, &err), -1);
    assert_null(tag);
    assert_non_null(strstr(err.msg, "no published build release at least 21600 s old"));
    assert_int_equal(fetch_latest_pick("{}", 2, 0, t0, &tag, &err), -1);
    assert_non_null(strstr(err.msg, "not a JSON array"));
    /* the SemVer era: every build a prerelease (b10573 on), the stable
     * release a vX.Y.Z naming one of them: the newest build is picked */
    const char *semver =
        "[{\"tag_name\":\"v0.4.1\",\"published_at\":\"2026-01-01T05:00:00Z\"},"
        "{\"tag_name\":\"b10992\",\"prerelease\":true,\"published_at\":\"2026-01-01T04:00:00Z\"},"
        "{\"tag_name\":\"b10991\",\"prerelease\":true,\"published_at\":\"2026-01-01T03:00:00Z\"},"
        "{\"tag_name\":\"b10572\",\"prerelease\":true,\"published_at\":\"2026-01-01T06:00:00Z\"}]";
    assert_int_equal(fetch_latest_pick(semver, strlen(semver), 0, t0 + 7 * 3600, &tag, &err), 0);
    assert_string_equal(tag, "b10992");
    free(tag);
}

/* --- which build (fetch_resolve_build) ------------------------------------ */

/* A loopback stand-in for the release API: a child process that answers one
 * request with status and body and writes the request line to req_log.
 * Returns the API base ("http://127.0.0.1:PORT/api"); wait for *pid after. */
static char *api_serve(int status, const char *body, const char *req_log, pid_t *pid)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        int c = accept(fd, NULL, NULL);
        char req[4096];
        size_t got = 0;
        ssize_t r;
        while (c >= 0 && got < sizeof req - 1 && (r = read(c, req + got, sizeof req - 1 - got)) > 0) {
            req[got += (size_t)r] = '\0';
            if (strstr(req, "\r\n\r\n"))
                break;
        }
        req[got] = '\0';
        req[strcspn(req, "\r\n")] = '\0';
        FILE *log = fopen(req_log, "w");
        if (log) {
            fputs(req, log);
            fclose(log);
        }
        dprintf(c, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n%s", status, strlen(body), body);
        close(c);
        _exit(0);
    }
    close(fd);
    return lvd_xasprintf("http://127.0.0.1:%d/api", ntohs(a.sin_port));
}

static void api_done(pid_t pid)
{
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
}

static void test_resolve_build(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *pin_path = lvd_xasprintf("%s/pin", dir);
    char *req = lvd_xasprintf("%s/request", dir);
    char *empty = lvd_xasprintf("%s/share", dir);
    lvd_err err = {""};
    assert_int_equal(lvd_mkdir_p(empty, &err), 0);
    tu_write_str(pin_path, "build = b10715\nflavour = bin-ubuntu-vulkan-x64\n"
                           "sha256.bin-ubuntu-vulkan-x64 = " SHA_A "\n");
    const int64_t t0 = 1767225600;
    fetch_target t;
    int code = -1;

    /* BUILD as given, the pin loaded beside it */
    fetch_resolve_opts o = {.build = "b100", .pin_file = pin_path, .now = t0};
    assert_int_equal(fetch_resolve_build(&o, &t, &code, &err), 0);
    assert_int_equal(code, LVD_EXIT_OK);
    assert_string_equal(t.build, "b100");
    assert_false(t.from_latest);
    assert_true(t.have_pin);
    assert_string_equal(builds_pin_sha256(&t.pin, "bin-ubuntu-vulkan-x64"), SHA_A);
    fetch_target_free(&t);

    /* no BUILD: the pin's */
    o.build = NULL;
    assert_int_equal(fetch_resolve_build(&o, &t, &code, &err), 0);
    assert_string_equal(t.build, "b10715");
    assert_false(t.from_latest);
    fetch_target_free(&t);

    /* --latest: the newest non-draft, non-prerelease build old enough */
    const char *releases =
        "[{\"tag_name\":\"b105\",\"draft\":true,\"published_at\":\"2026-01-01T05:00:00Z\"},"
        "{\"tag_name\":\"b103\",\"published_at\":\"2026-01-01T03:00:00Z\"},"
        "{\"tag_name\":\"b101\",\"published_at\":\"2026-01-01T01:00:00Z\"}]";
    pid_t pid;
    char *base = api_serve(200, releases, req, &pid);
    fetch_resolve_opts lo = {.latest = 1, .min_age = 6 * 3600, .now = t0 + 7 * 3600,
                             .pin_file = pin_path, .api_base = base};
    assert_int_equal(fetch_resolve_build(&lo, &t, &code, &err), 0);
    api_done(pid);
    assert_int_equal(code, LVD_EXIT_OK);
    assert_string_equal(t.build, "b101");
    assert_true(t.from_latest);
    assert_true(t.have_pin); /* verified against the pin all the same */
    char *line = tu_read(req, NULL);
    assert_true(lvd_starts_with(line, "GET /api/releases?per_page="));
    free(line);
    fetch_target_free(&t);
    free(base);

    /* --latest, the API answers but nothing is old enough: FAIL */
    base = api_serve(200, releases, req, &pid);
    lo.api_base = base;
    lo.now = t0 + 3600;
    assert_int_equal(fetch_resolve_build(&lo, &t, &code, &err), -1);
    api_done(pid);
    assert_int_equal(code, LVD_EXIT_FAIL);
    assert_true(lvd_starts_with(err.msg, "--latest: "));
    assert_non_null(strstr(err.msg, "no published build release at least 21600 s old"));
    assert_null(t.build);
    fetch_target_free(&t);
    free(base);

    /* --latest, the API answers an error, or cannot be reached: NETWORK */
    base = api_serve(500, "{\"message\":\"boom\"}", req, &pid);
    lo.api_base = base;
    lo.now = t0 + 7 * 3600;
    assert_int_equal(fetch_resolve_build(&lo, &t, &code, &err), -1);
    api_done(pid);
    assert_int_equal(code, LVD_EXIT_NETWORK);
    fetch_target_free(&t);
    free(base);
    lo.api_base = "http://127.0.0.1:1/api";
    assert_int_equal(fetch_resolve_build(&lo, &t, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_NETWORK);
    assert_non_null(strstr(err.msg, "--latest: release API: cannot reach 127.0.0.1:1"));
    fetch_target_free(&t);

    /* a bad pin file: INPUT, even with a BUILD or --latest (nothing asked) */
    char *bad = lvd_xasprintf("%s/bad-pin", dir);
    tu_write_str(bad, "[section]\n");
    o.pin_file = bad;
    o.build = "b100";
    assert_int_equal(fetch_resolve_build(&o, &t, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "bad-pin:1:"));
    fetch_target_free(&t);
    lo.pin_file = bad;
    lo.api_base = "http://127.0.0.1:1/api";
    assert_int_equal(fetch_resolve_build(&lo, &t, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_INPUT);
    fetch_target_free(&t);

    /* no BUILD and no pin file at all: USAGE */
    unsetenv("LVD_PIN_FILE");
    setenv("LVD_DATADIR", empty, 1); /* no pin.default there */
    fetch_resolve_opts none = {.now = t0};
    assert_int_equal(fetch_resolve_build(&none, &t, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_USAGE);
    assert_string_equal(err.msg, "no BUILD given and no pin file (--pin-file, $LVD_PIN_FILE)");
    assert_false(t.have_pin);
    fetch_target_free(&t);
    unsetenv("LVD_DATADIR");

    free(bad);
    free(empty);
    free(req);
    free(pin_path);
    tu_tmpdir_free(dir);
}

/* --- small helpers ------------------------------------------------------ */

static void test_scrub_and_host(void **state)
{
    (void)state;
    setenv("GITHUB_TOKEN", "ghp_s3cret", 1);
    lvd_err err;
    fetch_errf(&err, "server said: Bearer ghp_s3cret and ghp_s3cret again");
    assert_string_equal(err.msg, "server said: Bearer *** and *** again");
    setenv("GITHUB_TOKEN", "ab", 1);
    char s[] = "abcab";
    fetch_scrub_token(s);
    assert_string_equal(s, "**c**");
    unsetenv("GITHUB_TOKEN");
    fetch_errf(&err, "untouched ghp_s3cret");
    assert_string_equal(err.msg, "untouched ghp_s3cret");
    assert_string_equal(fetch_http_host("https://user:pw@api.github.com/repos/x"), "api.github.com");
    assert_string_equal(fetch_http_host("http://127.0.0.1:8080/api?x=1"), "127.0.0.1:8080");
    char buf[32];
    assert_string_equal(fetch_human_bytes(512, buf, sizeof buf), "512 B");
    assert_string_equal(fetch_human_bytes(1536, buf, sizeof buf), "1.5 KiB");
    assert_string_equal(fetch_human_bytes(200.0 * 1024 * 1024, buf, sizeof buf), "200.0 MiB");
}

static void test_lexical_checks(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int ok;
    } names[] = {
        {"llama-b1/llama-server", 1}, {"./build/bin/x", 1}, {"a..b/c", 1}, {"a/./b", 1},
        {"../evil", 0}, {"a/../../evil", 0}, {"a/..", 0}, {"/etc/passwd", 0}, {"", 0},
        {"./", 0}, {".", 0},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(names); i++)
        if (fetch_entry_name_safe(names[i].name) != names[i].ok)
            fail_msg("entry name '%s': want %d", names[i].name, names[i].ok);
    static const struct {
        const char *entry, *target;
        int ok;
    } links[] = {
        {"lib/libllama.so", "libllama.so.0", 1},
        {"a/b", "../c", 1},
        {"a/b/c", "../../x", 1},
        {"a/b", "./././c", 1},
        {"a/b", "../../x", 0},
        {"a", "../x", 0},
        {"x", "/etc", 0},
        {"a", "", 0},
        {"a/b", "c/../../..", 0},
        {"a/b", "c/../../d/../..", 0},
        {"a/b/", "../c", 1},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(links); i++)
        if (fetch_link_target_safe(links[i].entry, links[i].target) != links[i].ok)
            fail_msg("link %s -> %s: want %d", links[i].entry, links[i].target, links[i].ok);
}

/* --- unpacking ---------------------------------------------------------- */

typedef struct entry {
    const char *name;
    char type;             /* 'f' file, 'd' dir, 'l' symlink, 'h' hardlink, 'c' char dev, 'p' fifo */
    const char *data;      /* file data, or the link target */
    size_t repeat;         /* file data repeated this many times (0 = once) */
} entry;

#define END {NULL, 0, NULL, 0}

static const char ENGINE[] = "#!/bin/sh\necho fake\n";

/* Writes entries as a tar.gz (zip = 0) or zip (zip = 1) archive at path. */
static void write_archive(const char *path, int zip, const entry *entries)
{
    struct archive *a = archive_write_new();
    if (zip) {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_gnutar(a);
        archive_write_add_filter_gzip(a);
    }
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (const entry *e = entries; e->name; e++) {
        struct archive_entry *ae = archive_entry_new();
        archive_entry_set_pathname(ae, e->name);
        archive_entry_set_mtime(ae, 1767225600, 0);
        size_t reps = e->repeat ? e->repeat : 1;
        size_t len = e->type == 'f' ? strlen(e->data) * reps : 0;
        switch (e->type) {
        case 'f':
            archive_entry_set_filetype(ae, AE_IFREG);
            archive_entry_set_perm(ae, 0755);
            archive_entry_set_size(ae, (la_int64_t)len);
            break;
        case 'd':
            archive_entry_set_filetype(ae, AE_IFDIR);
            archive_entry_set_perm(ae, 0755);
            break;
        case 'l':
            archive_entry_set_filetype(ae, AE_IFLNK);
            archive_entry_set_perm(ae, 0777);
            archive_entry_set_symlink(ae, e->data);
            break;
        case 'h':
            archive_entry_set_filetype(ae, AE_IFREG);
            archive_entry_set_perm(ae, 0644);
            archive_entry_set_hardlink(ae, e->data);
            break;
        case 'c':
            archive_entry_set_filetype(ae, AE_IFCHR);
            archive_entry_set_perm(ae, 0666);
            archive_entry_set_rdevmajor(ae, 1);
            archive_entry_set_rdevminor(ae, 3);
            break;
        case 'p':
            archive_entry_set_filetype(ae, AE_IFIFO);
            archive_entry_set_perm(ae, 0644);
            break;
        }
        assert_true(archive_write_header(a, ae) >= ARCHIVE_WARN);
        for (size_t r = 0; r < reps && e->type == 'f'; r++)
            archive_write_data(a, e->data, strlen(e->data));
        archive_entry_free(ae);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

/* Nothing but the named entries (dot-files included) remains in dir. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Unpacks entries as an archive; 0 or -1, with err. */
static int unpack_entries(const char *dir, int zip, const entry *entries, const fetch_limits *lim,
                          char **rel, lvd_err *err)
{
    char *archive = lvd_xasprintf("%s/in.%s", dir, zip ? "zip" : "tar.gz");
    char *target = lvd_xasprintf("%s/builds/b1-bin-ubuntu-x64", dir);
    write_archive(archive, zip, entries);
    int rc = fetch_unpack(archive, "ASSET", target, lim, FETCH_MANIFEST, "{}\n", rel, err);
    struct stat st;
    if (rc != 0) {
        /* complete or absent: no target, no temporary directory */
        assert_int_not_equal(lstat(target, &st), 0);
        char *builds = lvd_xasprintf("%s/builds", dir);
        assert_int_equal(count_entries(builds), 0);
        free(builds);
    } else {
        assert_int_equal(lstat(target, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0755);
    }
    unlink(archive);
    free(archive);
    free(target);
    return rc;
}

static void expect_refused(int zip, const entry *entries, const fetch_limits *lim, const char *want)
{
    char *dir = tu_tmpdir();
    char *rel = NULL;
    lvd_err err;
    assert_int_equal(unpack_entries(dir, zip, entries, lim, &rel, &err), -1);
    assert_null(rel);
    if (!strstr(err.msg, want))
        fail_msg("unpack error '%s' does not contain '%s'", err.msg, want);
    assert_true(lvd_starts_with(err.msg, "ASSET: "));
    /* nothing escaped next to the root either */
    assert_int_equal(count_entries(dir), 1);
    tu_tmpdir_free(dir);
}

static void test_unpack_good(void **state)
{
    (void)state;
    const entry tar_new[] = {
        {"llama-b1", 'd', NULL, 0},
        {"llama-b1/llama-server", 'f', ENGINE, 0},
        {"llama-b1/llama-bench", 'f', ENGINE, 0},
        {"llama-b1/libllama.so.0", 'f', "ELF", 100},
        {"llama-b1/libllama.so", 'l', "libllama.so.0", 0},
        {"llama-b1/libggml.so", 'h', "llama-b1/libllama.so.0", 0},
        END,
    };
    const entry zip_old[] = {
        {"build/bin/llama-server", 'f', ENGINE, 0},
        {"build/bin/llama-bench", 'f', ENGINE, 0},
        {"LICENSE", 'f', "MIT", 0},
        END,
    };
    const entry flat[] = {{"llama-bench", 'f', ENGINE, 0}, END};
    char *dir = tu_tmpdir();
    char *rel = NULL;
    lvd_err err;
    if (unpack_entries(dir, 0, tar_new, NULL, &rel, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(rel, "llama-b1");
    free(rel);
    char *p = lvd_xasprintf("%s/builds/b1-bin-ubuntu-x64/llama-b1/libllama.so", dir);
    char buf[64];
    ssize_t n = readlink(p, buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, "libllama.so.0");
    free(p);
    p = lvd_xasprintf("%s/builds/b1-bin-ubuntu-x64/llama-b1/llama-server", dir);
    assert_int_equal(access(p, X_OK), 0);
    free(p);
    p = lvd_xasprintf("%s/builds/b1-bin-ubuntu-x64/" FETCH_MANIFEST, dir);
    char *m = tu_read(p, NULL);
    assert_string_equal(m, "{}\n");
    free(m);
    free(p);
    /* the target exists now: a second unpack refuses and leaves it alone */
    char *target = lvd_xasprintf("%s/builds/b1-bin-ubuntu-x64", dir);
    char *archive = lvd_xasprintf("%s/again.tar.gz", dir);
    write_archive(archive, 0, tar_new);
    assert_int_equal(fetch_unpack(archive, NULL, target, NULL, NULL, NULL, &rel, &err), -1);
    assert_non_null(strstr(err.msg, "already exists"));
    free(archive);
    free(target);
    tu_tmpdir_free(dir);

    dir = tu_tmpdir();
    if (unpack_entries(dir, 1, zip_old, NULL, &rel, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(rel, "build/bin");
    free(rel);
    tu_tmpdir_free(dir);

    dir = tu_tmpdir();
    if (unpack_entries(dir, 0, flat, NULL, &rel, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(rel, "");
    free(rel);
    tu_tmpdir_free(dir);
}

static void test_unpack_hostile(void **state)
{
    (void)state;
    const entry slip_zip[] = {{"llama-server", 'f', ENGINE, 0}, {"../evil", 'f', "x", 0}, END};
    expect_refused(1, slip_zip, NULL, "refusing entry ../evil: escapes the archive root");
    const entry slip_tar[] = {{"a/llama-server", 'f', ENGINE, 0}, {"a/../../evil", 'f', "x", 0},
                              END};
    expect_refused(0, slip_tar, NULL, "refusing entry a/../../evil: escapes the archive root");
    const entry abs[] = {{"llama-server", 'f', ENGINE, 0}, {"/tmp/lvd-test-evil", 'f', "x", 0},
                         END};
    expect_refused(0, abs, NULL, "refusing entry /tmp/lvd-test-evil: absolute path");
    const entry sym[] = {{"llama-server", 'f', ENGINE, 0}, {"etc", 'l', "../../etc", 0}, END};
    expect_refused(0, sym, NULL, "refusing entry etc: symlink to ../../etc points outside");
    const entry sym_abs[] = {{"llama-server", 'f', ENGINE, 0}, {"etc", 'l', "/etc", 0}, END};
    expect_refused(0, sym_abs, NULL, "refusing entry etc: symlink to /etc points outside");
    /* a symlink inside, then a file written through it */
    const entry through[] = {{"llama-server", 'f', ENGINE, 0}, {"d", 'd', NULL, 0},
                             {"l", 'l', "d", 0}, {"l/x", 'f', "x", 0}, END};
    expect_refused(0, through, NULL, "ASSET: entry l/x:");
    const entry hard[] = {{"llama-server", 'f', ENGINE, 0}, {"passwd", 'h', "../../etc/passwd", 0},
                          END};
    expect_refused(0, hard, NULL, "refusing entry passwd: hardlink to ../../etc/passwd points outside");
    /* a hardlink moves a relative symlink to where it escapes */
    const entry moved[] = {{"llama-server", 'f', ENGINE, 0}, {"d/e", 'd', NULL, 0},
                           {"d/e/s", 'l', "../../LICENSE", 0}, {"d/moved", 'h', "d/e/s", 0}, END};
    expect_refused(0, moved, NULL, "refusing entry d/moved: symlink to ../../LICENSE points outside");
    const entry dev[] = {{"llama-server", 'f', ENGINE, 0}, {"null", 'c', NULL, 0}, END};
    expect_refused(0, dev, NULL, "refusing entry null: device file");
    const entry fifo[] = {{"llama-server", 'f', ENGINE, 0}, {"pipe", 'p', NULL, 0}, END};
    expect_refused(0, fifo, NULL, "refusing entry pipe: fifo");
    const entry none[] = {{"docs/README", 'f', "no binaries", 0}, END};
    expect_refused(0, none, NULL, "ASSET: holds no llama-server or llama-bench");
    const entry empty[] = {END};
    expect_refused(0, empty, NULL, "ASSET: the archive is empty");
}

static void test_unpack_limits(void **state)
{
    (void)state;
    fetch_limits lim;
    fetch_limits_default(&lim);
    assert_true(lim.max_entry_bytes >= ((uint64_t)1 << 30));
    lim.max_entry_bytes = 1000;
    lim.max_total_bytes = 1500;
    lim.max_entries = 4;
    const entry big[] = {{"llama-server", 'f', ENGINE, 0}, {"blob", 'f', "0123456789", 101}, END};
    expect_refused(0, big, &lim, "refusing entry blob: declares 1010 bytes (limit 1000)");
    expect_refused(1, big, &lim, "refusing entry blob: declares 1010 bytes (limit 1000)");
    const entry total[] = {{"llama-server", 'f', ENGINE, 0}, {"a", 'f', "0123456789", 80},
                           {"b", 'f', "0123456789", 80}, END};
    expect_refused(0, total, &lim, "refusing entry b: the archive declares more than 1500 bytes");
    const entry many[] = {{"llama-server", 'f', ENGINE, 0}, {"1", 'f', "1", 0}, {"2", 'f', "2", 0},
                          {"3", 'f', "3", 0}, {"4", 'f', "4", 0}, END};
    expect_refused(0, many, &lim, "refusing archive: more than 4 entries");
    /* within the limits it unpacks */
    const entry fits[] = {{"llama-server", 'f', ENGINE, 0}, {"a", 'f', "0123456789", 80}, END};
    char *dir = tu_tmpdir();
    char *rel = NULL;
    lvd_err err;
    if (unpack_entries(dir, 0, fits, &lim, &rel, &err) != 0)
        fail_msg("%s", err.msg);
    free(rel);
    tu_tmpdir_free(dir);
}

static void test_unpack_not_an_archive(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *archive = lvd_xasprintf("%s/garbage.tar.gz", dir);
    tu_write_str(archive, "this is not an archive at all, just text\n");
    char *target = lvd_xasprintf("%s/out", dir);
    char *rel = NULL;
    lvd_err err;
    assert_int_equal(fetch_unpack(archive, "ASSET", target, NULL, NULL, NULL, &rel, &err), -1);
    assert_non_null(strstr(err.msg, "ASSET: "));
    assert_int_equal(count_entries(dir), 1);
    /* a truncated tar.gz: the first half of a good one */
    const entry good[] = {{"llama-server", 'f', ENGINE, 0}, {"blob", 'f', "0123456789abcdef", 4000},
                          END};
    write_archive(archive, 0, good);
    size_t n;
    char *bytes = tu_read(archive, &n);
    tu_write(archive, bytes, n / 2);
    free(bytes);
    assert_int_equal(fetch_unpack(archive, "ASSET", target, NULL, NULL, NULL, &rel, &err), -1);
    assert_int_equal(count_entries(dir), 1);
    free(archive);
    free(target);
    tu_tmpdir_free(dir);
}

static void test_find_engine_dir(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *rel;
    assert_int_equal(fetch_find_engine_dir(dir, &rel), 1);
    char *p = lvd_xasprintf("%s/a/b/c", dir);
    lvd_err err;
    assert_int_equal(lvd_mkdir_p(p, &err), 0);
    char *f = lvd_xasprintf("%s/llama-server", p);
    /* a directory called llama-server does not count */
    char *d = lvd_xasprintf("%s/a/llama-bench", dir);
    assert_int_equal(lvd_mkdir_p(d, &err), 0);
    tu_write_str(f, ENGINE);
    assert_int_equal(fetch_find_engine_dir(dir, &rel), 0);
    assert_string_equal(rel, "a/b/c");
    free(rel);
    free(f);
    free(d);
    free(p);
    tu_tmpdir_free(dir);
}

static void test_builds_dir_default(void **state)
{
    (void)state;
    setenv("LVD_BUILDS_DIR", "/x/builds", 1);
    char *p = fetch_builds_dir_default();
    assert_string_equal(p, "/x/builds");
    free(p);
    unsetenv("LVD_BUILDS_DIR");
    setenv("XDG_DATA_HOME", "/xdg", 1);
    p = fetch_builds_dir_default();
    assert_string_equal(p, "/xdg/llama-verdict/builds");
    free(p);
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/u", 1);
    p = fetch_builds_dir_default();
    assert_string_equal(p, "/home/u/.local/share/llama-verdict/builds");
    free(p);
    setenv("LVD_RELEASES_API", "http://mirror/api///", 1);
    p = fetch_api_base();
    assert_string_equal(p, "http://mirror/api");
    free(p);
    unsetenv("LVD_RELEASES_API");
    p = fetch_api_base();
    assert_string_equal(p, "https://api.github.com/repos/ggml-org/llama.cpp");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asset_names),
        cmocka_unit_test(test_asset_errors),
        cmocka_unit_test(test_pin_default),
        cmocka_unit_test(test_pin_errors),
        cmocka_unit_test(test_pin_crlf_and_comments),
        cmocka_unit_test(test_pin_promote),
        cmocka_unit_test(test_decide_table),
        cmocka_unit_test(test_release_parse),
        cmocka_unit_test(test_latest_pick),
        cmocka_unit_test(test_resolve_build),
        cmocka_unit_test(test_scrub_and_host),
        cmocka_unit_test(test_lexical_checks),
        cmocka_unit_test(test_unpack_good),
        cmocka_unit_test(test_unpack_hostile),
        cmocka_unit_test(test_unpack_limits),
        cmocka_unit_test(test_unpack_not_an_archive),
        cmocka_unit_test(test_find_engine_dir),
        cmocka_unit_test(test_builds_dir_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
