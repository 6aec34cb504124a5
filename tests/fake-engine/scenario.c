/* scenario.c: loading and validating the scenario file (its format is the
 * contract in fake.h): lookups by key (scn_*), layered keys, the device list,
 * and exit 99 on an unknown key or a malformed value. Not for what the values
 * mean to a persona. */
#include "fake.h"

/* -------------------------------------------------------------- scenario */

/* "fake-engine: SCENARIO[:LINE]: MESSAGE", exit 99. line 0: no line number;
 * line -1: the message names the file and line itself (common/kv.h errors). */
void die_scn(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fake-engine: ", stderr);
    if (line >= 0) {
        fputs(G.scn_path ? G.scn_path : "(built-in scenario)", stderr);
        if (line > 0)
            fprintf(stderr, ":%d", line);
        fputs(": ", stderr);
    }
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    _exit(EXIT_SCENARIO);
}

const lvd_kv *scn_find(const char *key)
{
    return lvd_kv_find(&G.scn, key);
}

const char *scn_str(const char *key, const char *def)
{
    const lvd_kv *e = scn_find(key);
    return e ? e->value : def;
}

double ent_dbl(const lvd_kv *e)
{
    double d;
    if (lvd_parse_double(e->value, &d) != 0 || !isfinite(d))
        die_scn(e->line, "%s: '%s' is not a number", e->key, e->value);
    return d;
}

double scn_dbl(const char *key, double def)
{
    const lvd_kv *e = scn_find(key);
    return e ? ent_dbl(e) : def;
}

long scn_long(const char *key, long def)
{
    const lvd_kv *e = scn_find(key);
    if (!e)
        return def;
    int64_t v;
    if (lvd_parse_i64(e->value, &v) != 0)
        die_scn(e->line, "%s: '%s' is not an integer", e->key, e->value);
    return (long)v;
}

/* TARGET.K.NAME, TARGET.NAME, K.NAME, NAME: the first present wins. */
const lvd_kv *scn_layered(const char *T, const char *K, const char *name)
{
    char *cand[4] = { NULL, NULL, NULL, NULL };
    if (T && K)
        cand[0] = lvd_xasprintf("%s.%s.%s", T, K, name);
    if (T)
        cand[1] = lvd_xasprintf("%s.%s", T, name);
    if (K)
        cand[2] = lvd_xasprintf("%s.%s", K, name);
    cand[3] = lvd_xstrdup(name);
    const lvd_kv *e = NULL;
    for (int i = 0; i < 4 && !e; i++)
        if (cand[i])
            e = scn_find(cand[i]);
    for (int i = 0; i < 4; i++)
        free(cand[i]);
    return e;
}

const fake_dev *dev_by_name(const char *name)
{
    for (size_t i = 0; i < G.ndev; i++)
        if (strcmp(G.dev[i].name, name) == 0)
            return &G.dev[i];
    return NULL;
}

static void scn_parse_devices(void)
{
    for (size_t i = 0; i < G.scn.n; i++) {
        const lvd_kv *e = &G.scn.v[i];
        if (strcmp(e->key, "device") != 0 || streq(e->value, "none") || streq(e->value, "(none)"))
            continue;
        char *copy = lvd_xstrdup(e->value);
        char *f[6] = { 0 };
        int nf = 0;
        char *save = NULL;
        for (char *t = strtok_r(copy, "|", &save); t && nf < 6; t = strtok_r(NULL, "|", &save))
            f[nf++] = trim(t);
        int64_t total, freem;
        if (nf < 4 || nf > 5 || lvd_parse_i64(f[2], &total) != 0 || lvd_parse_i64(f[3], &freem) != 0)
            die_scn(e->line, "device: expected NAME|DESCRIPTION|TOTAL_MIB|FREE_MIB[|EXTRA]");
        size_t nl = strlen(f[0]), bl = nl;
        while (bl > 0 && isdigit((unsigned char)f[0][bl - 1]))
            bl--;
        int ok = bl > 0;
        for (size_t j = 0; j < bl; j++)
            ok = ok && isalpha((unsigned char)f[0][j]);
        if (!ok || dev_by_name(f[0]))
            die_scn(e->line, "device: bad or duplicate name '%s'", f[0]);
        G.dev = lvd_xrealloc(G.dev, (G.ndev + 1) * sizeof *G.dev);
        fake_dev *d = &G.dev[G.ndev++];
        d->name = lvd_xstrdup(f[0]);
        d->desc = lvd_xstrdup(f[1]);
        d->backend = lvd_xstrndup(f[0], bl);
        d->total_mib = (long)total;
        d->free_mib = (long)freem;
        if (nf == 5 && *f[4]) {
            d->extra = lvd_xstrdup(f[4]);
        } else if (strcmp(d->backend, "CUDA") == 0) {
            d->extra = lvd_xstrdup("9.0");
        } else if (strcmp(d->backend, "ROCm") == 0) {
            d->extra = lvd_xstrdup("gfx1100");
        } else {
            size_t w = strcspn(d->desc, " ");
            d->extra = lvd_xstrndup(d->desc, w);
        }
        free(copy);
    }
}

static const char *const GLOBAL_KEYS[] = {
    "build_number", "build_commit", "cpu_info", "threads", "built_with", "seed", "noise",
    "run_noise", "drift", "warmup", "ignore_ngl", "fault", "fault_after", "list_devices_fault",
    "server_check", "sleep_ms", "time_scale", "hang_s", "log", "load_log", "sim_clock", "load_ms", "cold",
    "ppl", "test_time", "samples_ns", "device", "cpu_pp", "cpu_tg", "ppl_ratio", "kld", "same_top_p",
    "devices_need_env", "backends", "cuda_archs", "ctx_limit", "depth_half", "split_modes", "offload_tg", "offload_pp",
    "fit", "fitprint", "fitprint_context_x", "host_watts", "help_omit", "version", "family", "means_only", NULL
};
static const char *const LAYERED[] = { "noise", "run_noise", "warmup", "cold", "depth_half", NULL };
static const char *const TARGET_LEAVES[] = {
    "pp", "tg", "fault", "ppl_ratio", "kld", "same_top_p", "noise", "run_noise", "warmup", "cold",
    "ctx_limit", "real_mib", "watts", "energy", "depth_half", NULL
};
static const char *const COND_NAMES[] = {
    "fa", "ngl", "ncmoe", "ub", "b", "ctk", "ctv", "t", "d", "sm", "nkvo", "fitt", "mg", "dev", "fmoe", "rtr",
    "model", NULL
};
static const char *const PERSONA_KEYS[] = { "bench", "server", "ppl", "list_devices", NULL };
static const char *const SERVER_KEYS[] = { "server.ttft_ms", "server.tg", "server.contention", "server.health_ms",
                                           "server.stream", NULL };

/* Returns the part after "cpu." or "dev.NAME." (and the target in *T, malloc'd),
 * or NULL when key names no target. Dies on an undeclared device. */
static const char *split_target(const lvd_kv *e, const char *key, char **T)
{
    *T = NULL;
    if (lvd_starts_with(key, "cpu.")) {
        *T = lvd_xstrdup("cpu");
        return key + 4;
    }
    if (lvd_starts_with(key, "dev.")) {
        const char *n = key + 4, *dot = strchr(n, '.');
        if (!dot)
            return NULL;
        char *name = lvd_xstrndup(n, (size_t)(dot - n));
        if (!dev_by_name(name))
            die_scn(e->line, "%s: no device '%s' is declared", e->key, name);
        *T = lvd_xasprintf("dev.%s", name);
        free(name);
        return dot + 1;
    }
    return NULL;
}

static int cond_valid(const char *c)
{
    const char *eq = strchr(c, '=');
    if (!eq || eq == c)
        return 0;
    char *name = lvd_xstrndup(c, (size_t)(eq - c));
    int ok = in_list(name, COND_NAMES) || (lvd_starts_with(name, "env.") && name[4]);
    free(name);
    return ok;
}

/* K.NAME forms: K in pp tg pg, NAME a layered name or a condition. */
static int kind_rest_valid(const char *s)
{
    if (!(lvd_starts_with(s, "pp.") || lvd_starts_with(s, "tg.") || lvd_starts_with(s, "pg.")))
        return 0;
    const char *r = s + 3;
    return in_list(r, LAYERED) || (strncmp(s, "pg", 2) != 0 && cond_valid(r));
}

static void scn_validate_key(const lvd_kv *e)
{
    const char *k = e->key;
    if (in_list(k, GLOBAL_KEYS) || in_list(k, SERVER_KEYS))
        return;
    if (lvd_starts_with(k, "model.")) {
        if ((lvd_ends_with(k, ".type") || lvd_ends_with(k, ".size") || lvd_ends_with(k, ".n_params")) &&
            strchr(k + 6, '.') && k[6] != '.')
            return;
        die_scn(e->line, "%s: expected model.BASENAME.type|size|n_params", k);
    }
    for (size_t i = 0; PERSONA_KEYS[i]; i++) {
        size_t pl = strlen(PERSONA_KEYS[i]);
        if (strncmp(k, PERSONA_KEYS[i], pl) == 0 && k[pl] == '.') {
            const char *r = k + pl + 1;
            if (streq(r, "fault") || streq(r, "fault_after"))
                return;
            char *T = NULL;
            const char *leaf = split_target(e, r, &T);
            int ok = T && leaf && streq(leaf, "fault") && i < 3;
            free(T);
            if (ok)
                return;
            die_scn(e->line, "%s: unknown key", k);
        }
    }
    char *T = NULL;
    const char *rest = split_target(e, k, &T);
    int ok;
    if (T)
        ok = rest && (in_list(rest, TARGET_LEAVES) || kind_rest_valid(rest));
    else
        ok = kind_rest_valid(k);
    free(T);
    if (!ok)
        die_scn(e->line, "%s: unknown key", k);
}

/* Checks a value by the kind of key it belongs to (numbers, lists, faults). */
static void scn_validate_value(const lvd_kv *e)
{
    static const char *const text_keys[] = { "build_commit", "cpu_info", "built_with", "seed", "ignore_ngl",
                                             "log", "load_log", "sim_clock", "test_time", "samples_ns",
                                             "device", "devices_need_env", "backends",
                                             "cuda_archs", "split_modes", "help_omit", "version", "family", NULL };
    const char *k = e->key, *leaf = strrchr(k, '.');
    leaf = leaf && !strchr(leaf, '=') ? leaf + 1 : k;
    if (in_list(k, text_keys) || lvd_ends_with(k, ".type") || lvd_ends_with(k, ".energy"))
        return;
    if (streq(k, "server.stream")) {
        if (!streq(e->value, "ok") && !streq(e->value, "garbage"))
            die_scn(e->line, "%s: expected ok or garbage", k);
        return;
    }
    if (strcmp(leaf, "fault") == 0 || strcmp(k, "list_devices_fault") == 0) {
        (void)parse_fault(e);
        return;
    }
    if (strcmp(leaf, "warmup") == 0 || strcmp(k, "ppl") == 0) {
        double tmp[1];
        (void)dbl_list(e, tmp, 1);
        return;
    }
    (void)ent_dbl(e);
}

/* Finds the engine dir (argv[0] as invoked, PATH searched when it has no '/')
 * and loads the scenario. */
void scn_load(const char *argv0)
{
    if (strchr(argv0, '/')) {
        G.engine_dir = dir_name(argv0);
    } else {
        const char *path = getenv("PATH");
        char **dirs = lvd_split(path ? path : "", ':', NULL);
        for (size_t i = 0; dirs[i] && !G.engine_dir; i++) {
            char *cand = lvd_xasprintf("%s/%s", dirs[i], argv0);
            if (access(cand, X_OK) == 0)
                G.engine_dir = lvd_xstrdup(dirs[i]);
            free(cand);
        }
        lvd_strv_free(dirs);
        if (!G.engine_dir)
            G.engine_dir = lvd_xstrdup(".");
    }
    const char *env = getenv("FAKE_SCENARIO");
    char *path = env && *env ? lvd_xstrdup(env) : lvd_xasprintf("%s/fake-scenario", G.engine_dir);
    if (!(env && *env) && access(path, F_OK) != 0) {
        free(path);
        G.state_dir = lvd_xstrdup(G.engine_dir);
        return;
    }
    G.scn_path = path;
    G.state_dir = dir_name(path);
    lvd_sb sb = { 0 };
    lvd_err err;
    if (lvd_read_file(path, 1 << 20, &sb, &err) != 0) {
        lvd_sb_free(&sb);
        die_scn(0, "cannot read: %s", err.msg);
    }
    int rc = lvd_kv_parse_cond(lvd_sb_str(&sb), sb.len, path, &G.scn, &err);
    lvd_sb_free(&sb);
    if (rc != 0)
        die_scn(-1, "%s", err.msg);
    scn_parse_devices();
    for (size_t i = 0; i < G.scn.n; i++) {
        scn_validate_key(&G.scn.v[i]);
        scn_validate_value(&G.scn.v[i]);
    }
    const char *ign = scn_str("ignore_ngl", "0");
    if (!streq(ign, "0") && !streq(ign, "1") && !streq(ign, "speed"))
        die_scn(scn_find("ignore_ngl")->line, "ignore_ngl: expected 0, 1 or speed");
    const char *need = scn_str("devices_need_env", NULL);
    if (need && *need && !getenv(need)) { /* declared (dev.NAME keys were checked), none seen */
        for (size_t i = 0; i < G.ndev; i++) {
            free(G.dev[i].name);
            free(G.dev[i].desc);
            free(G.dev[i].backend);
            free(G.dev[i].extra);
        }
        G.ndev = 0;
    }
}
