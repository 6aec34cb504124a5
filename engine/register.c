/* register.c: `lvd fetch --register DIR --build ID` (see register.h): a local
 * build directory becomes an engine in the store (probing it afterwards is
 * engine/registration.c). Not for downloads (fetch.c). */
#include "engine/register.h"

#include "engine/digest.h"
#include "engine/family.h"
#include "engine/help.h"
#include "engine/probe.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/proc.h"
#include "common/sha256.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_LEN 64

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '+' || c == '-';
}

int engine_register_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > NAME_MAX_LEN || !isalnum((unsigned char)s[0]))
        return 0;
    int digits = 1;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(s[i]))
            return 0;
        digits &= isdigit((unsigned char)s[i]) != 0;
    }
    return !digits;
}

char *engine_register_default_name(const char *build, const char *dir)
{
    char *copy = lvd_xstrdup(dir);
    const char *part = NULL;
    for (;;) { /* the last component that is not "bin" or "build" */
        size_t len = strlen(copy);
        while (len > 1 && copy[len - 1] == '/')
            copy[--len] = '\0';
        char *slash = strrchr(copy, '/');
        const char *base = slash ? slash + 1 : copy;
        if (!part)
            part = base; /* fallback: the basename itself */
        if (*base && strcmp(base, "bin") && strcmp(base, "build")) {
            part = base;
            break;
        }
        if (!slash || slash == copy)
            break;
        *slash = '\0';
    }
    lvd_sb sb = {0};
    lvd_sb_addf(&sb, "%s-%s", build, part);
    free(copy);
    /* sanitise: one '-' for every run of other characters, none at the ends */
    lvd_sb out = {0};
    for (size_t i = 0; i < sb.len; i++) {
        char c = name_char(sb.buf[i]) ? sb.buf[i] : '-';
        if (c == '-' && (out.len == 0 || out.buf[out.len - 1] == '-'))
            continue;
        lvd_sb_addc(&out, c);
    }
    while (out.len && (out.buf[out.len - 1] == '-' || out.buf[out.len - 1] == '.'))
        out.buf[--out.len] = '\0';
    if (out.len > NAME_MAX_LEN)
        out.buf[out.len = NAME_MAX_LEN] = '\0';
    lvd_sb_free(&sb);
    if (!out.len)
        lvd_sb_adds(&out, "engine");
    return lvd_sb_detach(&out);
}

/* DIR/name when it is an executable regular file; malloc'd, else NULL. */
static char *executable(const char *dir, const char *name)
{
    char *path = lvd_xasprintf("%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
        return path;
    free(path);
    return NULL;
}

/* One tool's `--version`: 0 with *v, else -1 with why (its failure or the
 * parser's) appended to *why. */
static int ask_one(const char *dir, const char *tool, int timeout_ms, engine_version *v, lvd_sb *why)
{
    char *bin = executable(dir, tool);
    if (!bin)
        return -1;
    const char *argv[] = {bin, "--version", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = timeout_ms, .max_capture = 64 << 10};
    proc_result res;
    lvd_err perr = {{0}};
    int rc = -1;
    if (proc_run(&spec, &res, &perr) != 0) {
        lvd_sb_addf(why, "%s%s --version: %s", why->len ? "; " : "", tool, perr.msg);
    } else {
        char *both = lvd_xasprintf("%s\n%s", lvd_sb_str(&res.err), lvd_sb_str(&res.out)); /* it prints on stderr */
        int parsed = proc_ok(&res) ? engine_version_parse(both, v, &perr) : -1;
        if (parsed == 0) {
            rc = 0;
        } else {
            char how[200];
            char *tail = proc_tail(lvd_sb_str(&res.err), 1);
            tail[strcspn(tail, "\r\n")] = '\0';
            int quoted = parsed == ENGINE_VERSION_UNRECOGNISED; /* the line itself, quoted */
            lvd_sb_addf(why, "%s%s --version: %s%s%s", why->len ? "; " : "", tool,
                        proc_ok(&res) ? perr.msg : proc_describe(&res, how, sizeof how),
                        *tail && !quoted ? ": " : "", quoted ? "" : tail);
            free(tail);
        }
        free(both);
        proc_result_free(&res);
    }
    free(bin);
    return rc;
}

int engine_ask_version(const char *dir, int timeout_ms, engine_version *v, lvd_err *err)
{
    static const char *const askers[] = {"llama-server", "llama-perplexity", "llama-cli"};
    memset(v, 0, sizeof *v);
    if (timeout_ms <= 0)
        timeout_ms = ENGINE_PROBE_TIMEOUT_MS;
    lvd_sb why = {0};
    int rc = -1;
    for (size_t i = 0; i < LVD_ARRAY_LEN(askers) && rc != 0; i++)
        rc = ask_one(dir, askers[i], timeout_ms, v, &why);
    if (rc == 0)
        v->family = engine_ask_family(dir, v);
    if (rc != 0) {
        if (why.len)
            lvd_errf(err, "cannot tell its build: %s", lvd_sb_str(&why));
        else
            lvd_errf(err, "cannot tell its build: no llama-server, llama-perplexity or llama-cli "
                          "to ask --version (llama-bench has none)");
    }
    lvd_sb_free(&why);
    return rc;
}

const char *engine_ask_family(const char *dir, const engine_version *v)
{
    engine_help h;
    engine_help_read(dir, &h);
    const char *family = engine_family_detect(&h, v);
    engine_help_free(&h);
    return family;
}

/* 1 when build is a tag of mainline's form, "b" and digits ("b9749"). */
static int mainline_tag(const char *build)
{
    return build[0] == 'b' && build[1] && strspn(build + 1, "0123456789") == strlen(build + 1);
}

static int fail(int *exit_code, int code)
{
    *exit_code = code;
    return -1;
}

/* The engine in v whose name (by_name) or else dir is key; NULL when none. */
static const lvd_engine *find(const lvd_engine *v, size_t n, int by_name, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(by_name ? v[i].name : v[i].dir, key))
            return &v[i];
    return NULL;
}

/* The options' names and build checked and the directory resolved: *dir
 * (the caller frees it) is its real path. */
static int check_request(const engine_register_opts *o, char **dir, int *exit_code, lvd_err *err)
{
    *dir = NULL;
    if (!o->dir || !*o->dir)
        return lvd_errf(err, "--register needs a directory"), fail(exit_code, LVD_EXIT_USAGE);
    if (o->build && !engine_register_name_valid(o->build))
        return lvd_errf(err, "'%s' is not a usable build id (letters, digits, . _ + -; e.g. b9749)", o->build),
               fail(exit_code, LVD_EXIT_USAGE);
    if (o->name && !engine_register_name_valid(o->name))
        return lvd_errf(err, "'%s' is not a usable engine name (1-64 of letters, digits, . _ + -; not only digits)",
                        o->name),
               fail(exit_code, LVD_EXIT_USAGE);
    char *real = realpath(o->dir, NULL);
    if (!real)
        return lvd_errf(err, "%s: %s", o->dir, strerror(errno)), fail(exit_code, LVD_EXIT_INPUT);
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        lvd_errf(err, "%s: not a directory", o->dir);
        free(real);
        return fail(exit_code, LVD_EXIT_INPUT);
    }
    *dir = real;
    return 0;
}

/* The engine's build id into build: --build, else what its --version told
 * (*told 1, ver filled); refused when neither gives one. */
static int tell_build(const engine_register_opts *o, const char *dir, engine_version *ver, int *told,
                      char *build, size_t len, int *exit_code, lvd_err *err)
{
    int timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : ENGINE_PROBE_TIMEOUT_MS;
    lvd_err verr = {{0}};
    *told = o->commit ? 0 : engine_ask_version(dir, timeout_ms, ver, &verr) == 0;
    snprintf(build, len, "%s", o->build ? o->build : "");
    if (!o->build && (!*told || ver->number <= 0)) {
        if (*told)
            lvd_errf(err, "%s: its --version says build %lld (made without git history); give --build ID", dir,
                     (long long)ver->number);
        else
            lvd_errf(err, "%s: %s; give --build ID", dir, o->commit ? "no build given" : verr.msg);
        return fail(exit_code, LVD_EXIT_INPUT);
    }
    if (!o->build)
        engine_version_build(ver, build, len);
    return 0;
}

/* The engine's name among the registered ones (v, n): the one dir already
 * has (*at_dir), else --name, else the default; refused when dir has
 * another or the name is another directory's. */
static int pick_name(const engine_register_opts *o, const char *dir, const char *build, const lvd_engine *v,
                     size_t n, const lvd_engine **at_dir, char **name, int *exit_code, lvd_err *err)
{
    *at_dir = find(v, n, 0, dir);
    if (*at_dir && o->name && strcmp((*at_dir)->name, o->name)) {
        lvd_errf(err, "%s: already registered as engine '%s'; register it without --name to update it",
                 dir, (*at_dir)->name);
        return fail(exit_code, LVD_EXIT_FAIL);
    }
    *name = *at_dir ? lvd_xstrdup((*at_dir)->name)
            : o->name ? lvd_xstrdup(o->name)
                      : engine_register_default_name(build, dir);
    const lvd_engine *named = *at_dir ? NULL : find(v, n, 1, *name);
    if (named) {
        lvd_errf(err, "engine name '%s' is already taken by %s; choose another with --name", *name,
                 named->dir);
        return fail(exit_code, LVD_EXIT_FAIL);
    }
    return 0;
}

int engine_register(store *s, const engine_register_opts *o, lvd_engine *out, int *exit_code,
                   lvd_err *err)
{
    memset(out, 0, sizeof *out);
    *exit_code = LVD_EXIT_OK;
    char *dir;
    if (check_request(o, &dir, exit_code, err))
        return -1;
    char *server = executable(dir, "llama-server");
    char *bench = executable(dir, "llama-bench");
    int rc = -1;
    lvd_engine *v = NULL;
    size_t n = 0;
    char *name = NULL;
    if (!server && !bench) {
        lvd_errf(err, "%s: holds neither an executable llama-server nor llama-bench", dir);
        *exit_code = LVD_EXIT_INPUT;
        goto out;
    }
    engine_version ver = {0};
    int told;
    char build[32];
    if (tell_build(o, dir, &ver, &told, build, sizeof build, exit_code, err))
        goto out;
    const char *family = o->commit ? (o->family ? o->family : LVD_FAMILY_MAINLINE)
                         : told ? ver.family : engine_ask_family(dir, NULL);
    if (!strcmp(family, LVD_FAMILY_UNKNOWN) && o->build && mainline_tag(o->build))
        family = LVD_FAMILY_MAINLINE; /* the user's word, where the engine's say nothing */
    if (store_engine_list(s, &v, &n, err) != 0) {
        *exit_code = LVD_EXIT_STORE;
        goto out;
    }
    const lvd_engine *at_dir;
    if (pick_name(o, dir, build, v, n, &at_dir, &name, exit_code, err))
        goto out;
    char hex[LVD_SHA256_HEX_LEN + 1];
    if (engine_digest(s, dir, hex, NULL, err) != 0) {
        *exit_code = LVD_EXIT_INPUT;
        goto out;
    }
    out->name = name;
    name = NULL;
    out->dir = dir;
    dir = NULL;
    out->build = lvd_xstrdup(build);
    const char *commit = o->commit ? o->commit : told ? ver.commit : "";
    const char *semver = o->commit ? o->semver : told ? ver.semver : NULL;
    out->commit = commit && *commit ? lvd_xstrdup(commit) : NULL;
    out->semver = semver && *semver ? lvd_xstrdup(semver) : NULL;
    out->family = lvd_xstrdup(family);
    out->flavour = lvd_xstrdup("local");
    out->digest = lvd_xstrdup(hex);
    out->origin = lvd_xstrdup("registered");
    out->created_at = at_dir ? at_dir->created_at : 0;
    if (store_engine_put(s, out, err) != 0) {
        lvd_engine_free(out);
        *exit_code = LVD_EXIT_STORE;
        goto out;
    }
    rc = 0;
out:
    store_engine_list_free(v, n);
    free(name);
    free(dir);
    free(server);
    free(bench);
    return rc;
}

cJSON *engine_json(const lvd_engine *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)e->id);
    cJSON_AddStringToObject(o, "name", e->name);
    cJSON_AddStringToObject(o, "dir", e->dir);
    cJSON_AddStringToObject(o, "build", e->build);
    cJSON_AddStringToObject(o, "family", lvd_engine_family(e));
    const char *opt[][2] = {{"commit", e->commit}, {"semver", e->semver}, {"release", e->release},
                            {"flavour", e->flavour}, {"digest", e->digest}, {"origin", e->origin}};
    for (size_t i = 0; i < LVD_ARRAY_LEN(opt); i++)
        cJSON_AddItemToObject(o, opt[i][0], lvd_json_str(opt[i][1]));
    cJSON_AddNumberToObject(o, "created_at", (double)e->created_at);
    return o;
}
