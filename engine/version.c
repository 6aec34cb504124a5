/* version.c: the version-line parser of version.h. Line by line with PCRE2
 * (as engine/devices.c), against the real lines captured in
 * tests/fixtures/llama.cpp/ (*-version.stderr of every era, the -lv logs of
 * alloc-b9749/) and the formats in llama.cpp's history (common/arg.cpp's
 * --version, common/build-info.cpp.in's llama_print_build_info, common.cpp's
 * common_init and print_build_info, llama-bench's markdown printer). Not for
 * running anything. */
#include "engine/version.h"

#include "engine/family.h"
#include "engine/rx.h"

#include <stdio.h>
#include <string.h>

#define NUM "(\\d{1,18})"
#define COMMIT "([^()\\s,]{1,64})"

/* One form per entry, the most authoritative first. Groups: the number and
 * the commit (their order per form), and the SemVer version (0: none). */
typedef struct form {
    const char *name;
    const char *pattern;
    int g_number, g_commit, g_semver;
} form;

static const form forms[] = {
    {"semver", "^version: (\\d{1,6}\\.\\d{1,6}\\.\\d{1,6}(?:-[0-9A-Za-z.-]{1,24})?) \\(build " NUM ", commit " COMMIT
               "\\)\\s*$", 2, 3, 1},
    {"version", "^version: " NUM " \\(" COMMIT "\\)\\s*$", 1, 2, 0},
    {"build-log", "(?:^|\\s)build:? " NUM " \\(" COMMIT "\\) with .* for ", 1, 2, 0},
    {"build-info", "(?:^|\\s)\\w+: build = " NUM " \\(" COMMIT "\\)\\s*$", 1, 2, 0},
    {"bench-footer", "^build: ([0-9a-f]{7,40}|unknown) \\(" NUM "\\)\\s*$", 2, 1, 0},
};
#define N_FORMS (sizeof forms / sizeof forms[0])

/* A line that claims to be a version line, whether or not a form reads it. */
static const char RX_CLAIM[] = "^version:";

typedef struct ctx {
    engine_rx rx[N_FORMS], claim;
    size_t best;          /* index of the best form seen, N_FORMS when none */
    engine_version *v;
    char claimed[128];    /* the first `version:` line no form read */
} ctx;

static void fill(ctx *c, size_t f, const char *line)
{
    engine_rx *r = &c->rx[f];
    engine_version *v = c->v;
    char num[24];
    v->number = 0;
    if (engine_rx_group(r, line, forms[f].g_number, num, sizeof num) == 0)
        lvd_parse_i64(num, &v->number);
    if (engine_rx_group(r, line, forms[f].g_commit, v->commit, sizeof v->commit) != 0 ||
        !strcmp(v->commit, "unknown"))
        v->commit[0] = '\0';
    v->semver[0] = '\0';
    if (forms[f].g_semver)
        engine_rx_group(r, line, forms[f].g_semver, v->semver, sizeof v->semver);
    v->form = forms[f].name;
    c->best = f;
}

static int on_line(void *arg, const char *line, size_t len)
{
    ctx *c = arg;
    for (size_t f = 0; f < c->best; f++)
        if (engine_rx_match(&c->rx[f], line, len)) {
            fill(c, f, line);
            return 0;
        }
    if (!c->claimed[0] && c->best == N_FORMS && engine_rx_match(&c->claim, line, len))
        snprintf(c->claimed, sizeof c->claimed, "%.*s", (int)(len > 120 ? 120 : len), line);
    return 0;
}

int engine_version_parse(const char *text, engine_version *v, lvd_err *err)
{
    memset(v, 0, sizeof *v);
    ctx c;
    memset(&c, 0, sizeof c);
    c.best = N_FORMS;
    c.v = v;
    int rc = -1;
    size_t compiled = 0;
    for (; compiled < N_FORMS; compiled++)
        if (engine_rx_compile(&c.rx[compiled], forms[compiled].pattern, 0, "version", err))
            goto out;
    if (engine_rx_compile(&c.claim, RX_CLAIM, 0, "version", err))
        goto out;
    engine_rx_each_line(text ? text : "", on_line, &c);
    if (c.best < N_FORMS)
        rc = 0;
    else if (c.claimed[0]) {
        lvd_errf(err, "unrecognised version line '%s'", c.claimed);
        rc = ENGINE_VERSION_UNRECOGNISED;
    } else
        lvd_errf(err, "no version line");
    engine_rx_free(&c.claim);
out:
    for (size_t i = 0; i < compiled; i++)
        engine_rx_free(&c.rx[i]);
    if (rc != 0)
        memset(v, 0, sizeof *v);
    return rc;
}

void engine_version_build(const engine_version *v, char *buf, size_t len)
{
    engine_family_tag(v->family ? v->family : LVD_FAMILY_MAINLINE, v->number, buf, len);
}
