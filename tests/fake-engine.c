/* fake-engine.c: the fake llama.cpp engine every end-to-end test drives. One
 * binary answers as llama-bench, llama-server or llama-perplexity (chosen by
 * the basename of argv[0]; `fake-engine llama-bench ARGS` works too), with the
 * output formats of the real captures in tests/fixtures/llama.cpp/, and with
 * speeds, devices, correctness and faults taken from a scenario file so that
 * tests know the truth. Not a model runner: it computes nothing, and it never
 * opens a socket (llama-server validates its argv, logs and exits).
 *
 * ======================= SCENARIO FORMAT (the contract) =======================
 * File: `fake-scenario` in the directory of argv[0] as invoked (a symlink is not
 * resolved, so one engine dir = one scenario), or the path in $FAKE_SCENARIO.
 * No file: built-in defaults (a CPU-only build, build 9749). Lines are
 * `KEY = VALUE` (common/kv.h, lvd_kv_parse_cond): with blanks, KEY is the
 * first word; without, the last '=' separates (so a VALUE holding '=' needs
 * the blanks). `#` or `;` starts a comment line, a `[PREFIX]` line prefixes
 * the keys that follow; a key given twice: the last one wins. Unknown keys,
 * malformed numbers and `dev.NAME` of an undeclared device make every
 * invocation fail with exit status 99 and one line naming file:line.
 *
 * Build and host
 *   build_number = 9749              build_commit = d32676d77 (CUDA local: 0 / unknown)
 *   built_with = GNU 12.2.0 for Linux x86_64     (the --version second line)
 *   cpu_info = AMD EPYC              threads = 2  (llama-bench's default -t)
 *   device = NAME|DESCRIPTION|TOTAL_MIB|FREE_MIB[|EXTRA]      (repeatable, in order)
 *       NAME is a ggml device name: CUDA0, ROCm0, Vulkan1, SYCL0, Metal ... The
 *       backend is NAME without its trailing digits. EXTRA: CUDA compute
 *       capability (default 9.0), ROCm gfx arch (default gfx1100), Vulkan driver
 *       shown in parentheses (default: first word of DESCRIPTION).
 *       `device = none` or no device line: a CPU-only build ("  (none)").
 *   ignore_ngl = 0|1|speed
 *       1: GPU flags have no effect, as a build whose GPU backend cannot load:
 *          devices still listed, but bench reports backends "CPU", gpu_info "",
 *          CPU speed; server and perplexity print the "no usable GPU" warnings.
 *       speed: backends/gpu_info as usual but every run goes at CPU speed.
 *
 * Throughput (llama-bench), true means in tokens/s
 *   cpu.pp = 400   cpu.tg = 50           (aliases cpu_pp, cpu_tg; these defaults)
 *   dev.NAME.pp, dev.NAME.tg             (default 20x / 10x the CPU values)
 *   A run goes on the CPU when there are no devices, ignore_ngl is set, -ngl 0
 *   or -dev none; else on the first device of -dev, or the first device.
 *   Multipliers: [TARGET.]K.COND = FACTOR, K in pp|tg, TARGET in cpu|dev.NAME;
 *   every matching COND multiplies; a TARGET.K.COND hides the same K.COND.
 *   COND is NAME=VALUE with NAME one of fa ngl ncmoe ub b ctk ctv t d sm nkvo
 *   fitt mg dev model (values as llama-bench reports them: fa=1, fa=0, fa=-1,
 *   ctk=q8_0, dev=CUDA0/CUDA1, model=BASENAME; -fa auto reports -1 and so
 *   matches fa=-1 only), or env.VAR=VALUE (the process environment; unset
 *   counts as ""). Examples:
 *     dev.CUDA0.tg.fa=1 = 1.23
 *     tg.env.GGML_VK_PREFER_HOST_MEMORY=1 = 0.044
 *     dev.CUDA0.tg.ncmoe=4 = 0.49
 *   pp+tg tests (-pg) combine the pp and tg speeds by time.
 *
 * Sample noise (looked up as TARGET.K.NAME, TARGET.NAME, K.NAME, NAME; K in pp tg pg)
 *   noise = 0.02       relative sd of each repetition (normal, deterministic)
 *   run_noise = 0      relative sd of a level drawn once per test per invocation
 *   warmup = 0.4       factor on the first repetition; a list (0.24,0.3,0.35)
 *                      for the first N (a ramp, as the Vulkan capture shows)
 *   drift = 0          speed x (1 + drift * invocation index)
 *   seed = 0           mixed with $FAKE_SEED (wins), the invocation index and argv
 *   Determinism: same scenario + argv + FAKE_SEED + invocation index -> same bytes.
 *   The index is a per-scenario counter (file `fake-counter` beside the scenario,
 *   one byte appended per invocation, O_APPEND; $TMPDIR/fake-counter-HASH when
 *   that dir is read-only), or $FAKE_INDEX when set (then the counter is not
 *   touched). Every invocation of any persona counts, from 0.
 *   Replay (for byte-exact fixture comparisons):
 *     samples_ns = 16546110,16441314,21873874 ; 98125555,71613975,37981040
 *        (';' separates tests in output order; the last list repeats; -r ignored)
 *     test_time = 2026-11-30T14:38:55Z ; 2026-11-30T14:38:56Z   (else: now, UTC)
 *
 * Models (-m must be a readable file starting with "GGUF", else load fails)
 *   model.BASENAME.type = llama ?B Q8_0    default: "llama ?B " + type from the name
 *   model.BASENAME.size = 20550656         default: the file size
 *   model.BASENAME.n_params = 19335424     default: size * 8 / bits per weight
 *
 * Correctness (llama-perplexity)
 *   ppl = 32813.2123            final PPL on the CPU; or one value per chunk
 *                               (32495.6345,32498.5601,32688.6083,32813.2123)
 *   TARGET.ppl_ratio = 1.0006   this target's PPL = ppl x ratio (default 1)
 *   TARGET.kld = 0.0001         mean KLD printed against a base (cpu 0, dev 0.0001)
 *   TARGET.same_top_p = 99.5    percent (cpu 100, dev 99.5)
 *   The --kl-divergence-base file starts with llama.cpp's "_logits_" header and
 *   holds the base run's chunk PPLs as text.
 *
 * Faults: crash | hang | garbage | exit1 | truncated | none
 *   fault = F                 every work run (bench, server launch, perplexity)
 *   bench.fault, server.fault, ppl.fault            one persona
 *   TARGET.fault, bench.TARGET.fault ...            runs on one device / the CPU
 *   fault_after = N, bench.fault_after = N          only from invocation index N on
 *   list_devices_fault = F    (alias list_devices.fault) --list-devices only;
 *                             the plain `fault` never touches --list-devices.
 *   crash: prints half a result line, then dies by SIGSEGV (no core file).
 *   hang: sleeps (hang_s, default 600 s) until killed; it has no children.
 *   garbage: non-JSON noise, exit 0. exit1: an engine error line, exit 1.
 *   truncated: the first half of the first result line, no newline, exit 0.
 *
 * Misc
 *   server_check = 1   llama-server exits 0 right after "model loaded" (also
 *                      $FAKE_SERVER_CHECK=1); else it logs "listening" and exits 0
 *   sleep_ms = 0       sleep this long in every work run
 *   time_scale = 0     also sleep (sum of simulated sample times) x time_scale
 *   log = PATH         append one line per invocation (relative: to the scenario
 *                      dir): "#INDEX [VAR=VALUE ...] PERSONA ARGS...", words
 *                      shell-quoted; VARs are GGML_*, LLAMA_*, VK_*,
 *                      *_VISIBLE_DEVICES and every env.VAR a key names.
 * ==============================================================================
 *
 * Output: llama-bench prints the ggml_cuda_init / ggml_vulkan device lines on
 * stderr (as the captures do); llama-server and llama-perplexity do not (the
 * perplexity captures of the CUDA build show none). Log lines of those two
 * carry a fake, deterministic clock.
 *
 * Fidelity notes: llama-bench has no --version (it is an invalid parameter, as
 * in the real tool); llama-perplexity --kl-divergence with a missing base file
 * logs an error and exits 0 without statistics, as the real tool does; the
 * statistics block needs at least 100 scored tokens. stddev values that the
 * real formula would make negative (or wrap) are printed as 0.
 */
#include "common/kv.h"
#include "common/util.h"
#include "select/launch.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { EXIT_SCENARIO = 99 };

typedef struct fake_dev {
    char *name;      /* CUDA0 */
    char *desc;      /* NVIDIA H200 */
    char *backend;   /* CUDA */
    char *extra;     /* compute capability / gfx arch / vulkan driver */
    long total_mib;
    long free_mib;
} fake_dev;

typedef struct strv {
    char **v;
    size_t n;
} strv;

/* Everything the invocation allocates for its whole life hangs off G, so it
 * stays reachable (and is freed in fake_free on normal exits). */
static struct {
    const char *persona;  /* "bench", "server", "ppl" */
    const char *prog;     /* the name printed in usage lines */
    char *engine_dir;
    char *scn_path;       /* NULL: built-in defaults */
    char *state_dir;
    lvd_kvfile scn;       /* the scenario's entries (none: built-in defaults) */
    fake_dev *dev;
    size_t ndev;
    long idx;
    uint64_t rng;
    int64_t log_us;
} G;

/* ------------------------------------------------------------------ helpers */

static char *dir_name(const char *p)
{
    const char *s = strrchr(p, '/');
    if (!s)
        return lvd_xstrdup(".");
    if (s == p)
        return lvd_xstrdup("/");
    return lvd_xstrndup(p, (size_t)(s - p));
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static void strv_push(strv *s, const char *x)
{
    lvd_strv_push(&s->v, &s->n, lvd_xstrdup(x));
}

static void strv_clear(strv *s)
{
    lvd_strv_free(s->v);
    s->v = NULL;
    s->n = 0;
}

static int streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

static void fake_free(void)
{
    lvd_kv_free(&G.scn);
    for (size_t i = 0; i < G.ndev; i++) {
        free(G.dev[i].name);
        free(G.dev[i].desc);
        free(G.dev[i].backend);
        free(G.dev[i].extra);
    }
    free(G.dev);
    free(G.engine_dir);
    free(G.scn_path);
    free(G.state_dir);
    memset(&G, 0, sizeof G);
}

static void flush_all(void)
{
    fflush(stdout);
    fflush(stderr);
}

static void sleep_ms(double ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* -------------------------------------------------------------- scenario */

/* "fake-engine: SCENARIO[:LINE]: MESSAGE", exit 99. line 0: no line number;
 * line -1: the message names the file and line itself (common/kv.h errors). */
static void die_scn(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die_scn(int line, const char *fmt, ...)
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

static const lvd_kv *scn_find(const char *key)
{
    return lvd_kv_find(&G.scn, key);
}

static const char *scn_str(const char *key, const char *def)
{
    const lvd_kv *e = scn_find(key);
    return e ? e->value : def;
}

static double ent_dbl(const lvd_kv *e)
{
    double d;
    if (lvd_parse_double(e->value, &d) != 0 || !isfinite(d))
        die_scn(e->line, "%s: '%s' is not a number", e->key, e->value);
    return d;
}

static double scn_dbl(const char *key, double def)
{
    const lvd_kv *e = scn_find(key);
    return e ? ent_dbl(e) : def;
}

static long scn_long(const char *key, long def)
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
static const lvd_kv *scn_layered(const char *T, const char *K, const char *name)
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

static const fake_dev *dev_by_name(const char *name)
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
    "server_check", "sleep_ms", "time_scale", "hang_s", "log", "ppl", "test_time", "samples_ns",
    "device", "cpu_pp", "cpu_tg", "ppl_ratio", "kld", "same_top_p", NULL
};
static const char *const LAYERED[] = { "noise", "run_noise", "warmup", NULL };
static const char *const TARGET_LEAVES[] = {
    "pp", "tg", "fault", "ppl_ratio", "kld", "same_top_p", "noise", "run_noise", "warmup", NULL
};
static const char *const COND_NAMES[] = {
    "fa", "ngl", "ncmoe", "ub", "b", "ctk", "ctv", "t", "d", "sm", "nkvo", "fitt", "mg", "dev",
    "model", NULL
};
static const char *const PERSONA_KEYS[] = { "bench", "server", "ppl", "list_devices", NULL };

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
    if (in_list(k, GLOBAL_KEYS))
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

typedef enum { F_NONE, F_CRASH, F_HANG, F_GARBAGE, F_EXIT1, F_TRUNCATED } fault_t;
static fault_t parse_fault(const lvd_kv *e);
static size_t dbl_list(const lvd_kv *e, double *out, size_t max);

/* Checks a value by the kind of key it belongs to (numbers, lists, faults). */
static void scn_validate_value(const lvd_kv *e)
{
    static const char *const text_keys[] = { "build_commit", "cpu_info", "built_with", "seed", "ignore_ngl",
                                             "log", "test_time", "samples_ns", "device", NULL };
    const char *k = e->key, *leaf = strrchr(k, '.');
    leaf = leaf && !strchr(leaf, '=') ? leaf + 1 : k;
    if (in_list(k, text_keys) || lvd_ends_with(k, ".type"))
        return;
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
static void scn_load(const char *argv0)
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
}

/* ------------------------------------------------- invocation, rng, log */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t rng_next(void)
{
    uint64_t z = (G.rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
    double u1 = rng_unit(), u2 = rng_unit();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int env_logged(const char *name)
{
    static const char *const prefixes[] = { "GGML_", "LLAMA_", "VK_", NULL };
    for (size_t i = 0; prefixes[i]; i++)
        if (lvd_starts_with(name, prefixes[i]))
            return 1;
    if (lvd_ends_with(name, "_VISIBLE_DEVICES"))
        return 1;
    for (size_t i = 0; i < G.scn.n; i++) {
        const char *p = strstr(G.scn.v[i].key, "env.");
        if (!p)
            continue;
        p += 4;
        size_t n = strcspn(p, "=");
        if (strlen(name) == n && strncmp(p, name, n) == 0)
            return 1;
    }
    return 0;
}

/* A log word: shell-quoted as select/launch.h quotes launch lines, but a word
 * with control bytes goes in $'...' so that the log keeps one line per call. */
static void log_quote(lvd_sb *sb, const char *w)
{
    int ctrl = 0;
    for (const unsigned char *c = (const unsigned char *)w; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            ctrl = 1;
    if (!ctrl) {
        lvd_shell_quote(sb, w);
        return;
    }
    lvd_sb_adds(sb, "$'");
    for (const unsigned char *c = (const unsigned char *)w; *c; c++) {
        if (*c == '\n')
            lvd_sb_adds(sb, "\\n");
        else if (*c == '\t')
            lvd_sb_adds(sb, "\\t");
        else if (*c == '\\' || *c == '\'')
            lvd_sb_addf(sb, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            lvd_sb_addf(sb, "\\x%02x", *c);
        else
            lvd_sb_addc(sb, (char)*c);
    }
    lvd_sb_addc(sb, '\'');
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Assigns the invocation index, seeds the generator, appends to the log. */
static void inv_start(int argc, char **argv, const char *persona_name)
{
    const char *fi = getenv("FAKE_INDEX");
    int64_t v;
    if (fi && *fi && lvd_parse_i64(fi, &v) == 0 && v >= 0) {
        G.idx = (long)v;
    } else {
        char *cpath = lvd_xasprintf("%s/fake-counter", G.state_dir);
        int fd = open(cpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) { /* a read-only engine dir: count in $TMPDIR instead */
            const char *tmp = getenv("TMPDIR");
            uint64_t h = fnv1a(1469598103934665603ULL, G.state_dir, strlen(G.state_dir));
            free(cpath);
            cpath = lvd_xasprintf("%s/fake-counter-%016" PRIx64, tmp && *tmp ? tmp : "/tmp", h);
            fd = open(cpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        }
        G.idx = 0;
        if (fd >= 0) {
            if (write(fd, ".", 1) == 1) {
                off_t off = lseek(fd, 0, SEEK_CUR);
                G.idx = off > 0 ? (long)(off - 1) : 0;
            }
            close(fd);
        }
        free(cpath);
    }
    const char *seed = getenv("FAKE_SEED");
    if (!seed || !*seed)
        seed = scn_str("seed", "0");
    uint64_t h = fnv1a(1469598103934665603ULL, seed, strlen(seed) + 1);
    h = fnv1a(h, &G.idx, sizeof G.idx);
    for (int i = 1; i < argc; i++)
        h = fnv1a(h, argv[i], strlen(argv[i]) + 1);
    G.rng = h;

    const lvd_kv *le = scn_find("log");
    if (!le || !*le->value)
        return;
    char *lpath = le->value[0] == '/' ? lvd_xstrdup(le->value) : lvd_xasprintf("%s/%s", G.state_dir, le->value);
    lvd_sb line = { 0 };
    lvd_sb_addf(&line, "#%ld", G.idx);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char *name = lvd_xstrndup(*e, (size_t)(eq - *e));
        if (env_logged(name)) {
            lvd_sb_addf(&line, " %s=", name);
            log_quote(&line, eq + 1);
        }
        free(name);
    }
    lvd_sb_adds(&line, " ");
    lvd_sb_adds(&line, persona_name);
    for (int i = 1; i < argc; i++) {
        lvd_sb_addc(&line, ' ');
        log_quote(&line, argv[i]);
    }
    lvd_sb_addc(&line, '\n');
    int fd = open(lpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        write_all(fd, line.buf, line.len);
        close(fd);
    }
    lvd_sb_free(&line);
    free(lpath);
}

/* ------------------------------------------------------ build and devices */

static int ignore_ngl(void)
{
    const char *v = scn_str("ignore_ngl", "0");
    return streq(v, "1") ? 1 : streq(v, "speed") ? 2 : 0;
}

/* 1 when llama_supports_gpu_offload() would be true. */
static int gpu_build(void)
{
    return G.ndev > 0 && ignore_ngl() != 1;
}

static const char *build_commit(void)
{
    return scn_str("build_commit", "d32676d77");
}

static long build_number(void)
{
    return scn_long("build_number", 9749);
}

static void print_devices(void)
{
    fputs("Available devices:\n", stdout);
    if (G.ndev == 0)
        fputs("  (none)\n", stdout);
    for (size_t i = 0; i < G.ndev; i++)
        printf("  %s: %s (%ld MiB, %ld MiB free)\n", G.dev[i].name, G.dev[i].desc,
               G.dev[i].total_mib, G.dev[i].free_mib);
}

/* What ggml's backends print on stderr when they load (before any logging is
 * configured), per backend, as in gpu-h200/{cuda,vulkan}-list-devices.stderr. */
static void print_backend_init(void)
{
    static const char *const bks[] = { "CUDA", "ROCm", "Vulkan", NULL };
    for (size_t b = 0; bks[b]; b++) {
        int n = 0;
        long total = 0;
        for (size_t i = 0; i < G.ndev; i++)
            if (strcmp(G.dev[i].backend, bks[b]) == 0) {
                n++;
                total += G.dev[i].total_mib;
            }
        if (!n)
            continue;
        if (b == 2)
            fprintf(stderr, "ggml_vulkan: Found %d Vulkan devices:\n", n);
        else
            fprintf(stderr, "ggml_cuda_init: found %d %s devices (Total VRAM: %ld MiB):\n", n, bks[b], total);
        int k = 0;
        for (size_t i = 0; i < G.ndev; i++) {
            const fake_dev *d = &G.dev[i];
            if (strcmp(d->backend, bks[b]) != 0)
                continue;
            if (b == 0)
                fprintf(stderr, "  Device %d: %s, compute capability %s, VMM: yes, VRAM: %ld MiB\n", k, d->desc,
                        d->extra, d->total_mib);
            else if (b == 1)
                fprintf(stderr, "  Device %d: %s, %s (0x%s), VMM: no, Wave Size: 32, VRAM: %ld MiB\n", k, d->desc,
                        d->extra, lvd_starts_with(d->extra, "gfx") ? d->extra + 3 : d->extra, d->total_mib);
            else
                fprintf(stderr,
                        "ggml_vulkan: %d = %s (%s) | uma: 0 | fp16: 1 | bf16: 0 | fp4: 0 | warp size: 32 | "
                        "shared memory: 49152 | int dot: 0 | matrix cores: none\n",
                        k, d->desc, d->extra);
            k++;
        }
    }
}

static void backends_str(lvd_sb *sb)
{
    if (!G.ndev || ignore_ngl() == 1) {
        lvd_sb_adds(sb, "CPU");
        return;
    }
    for (size_t i = 0; i < G.ndev; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(G.dev[j].backend, G.dev[i].backend) == 0;
        if (seen)
            continue;
        if (sb->len)
            lvd_sb_addc(sb, ',');
        lvd_sb_adds(sb, G.dev[i].backend);
    }
}

static void gpu_info_str(lvd_sb *sb)
{
    if (ignore_ngl() == 1)
        return;
    for (size_t i = 0; i < G.ndev; i++) {
        if (i)
            lvd_sb_adds(sb, ", ");
        lvd_sb_adds(sb, G.dev[i].desc);
    }
}

/* The run's target: "cpu" or "dev.NAME". devs: NULL/"auto", "none", or a list
 * of names separated by sep; ngl_zero: the run asked for no offload. */
static char *pick_target(const char *devs, char sep, int ngl_zero)
{
    if (!G.ndev || ignore_ngl() || ngl_zero || streq(devs, "none"))
        return lvd_xstrdup("cpu");
    if (!devs || streq(devs, "auto"))
        return lvd_xasprintf("dev.%s", G.dev[0].name);
    size_t n = strcspn(devs, (char[]){ sep, '\0' });
    char *first = lvd_xstrndup(devs, n);
    char *t = lvd_xasprintf("dev.%s", trim(first));
    free(first);
    return t;
}

static void version_lines(void)
{
    fprintf(stderr, "version: %ld (%s)\n", build_number(), build_commit());
    fprintf(stderr, "built with %s\n", scn_str("built_with", "GNU 12.2.0 for Linux x86_64"));
}

static void no_gpu_warning(void)
{
    fputs("warning: no usable GPU found, --gpu-layers option will be ignored\n"
          "warning: one possible reason is that llama.cpp was compiled without GPU support\n"
          "warning: consult docs/build.md for compilation instructions\n",
          stderr);
}

/* common/log.cpp's prefix: minutes.seconds.millis.micros LEVEL. The clock is
 * fake and deterministic. */
static void log_line(char level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(char level, const char *fmt, ...)
{
    G.log_us += 431;
    int64_t t = G.log_us;
    fprintf(stderr, "%d.%02d.%03d.%03d %c ", (int)(t / 60000000), (int)(t / 1000000 % 60),
            (int)(t / 1000 % 1000), (int)(t % 1000), level);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ faults */

static fault_t parse_fault(const lvd_kv *e)
{
    static const char *const names[] = { "none", "crash", "hang", "garbage", "exit1", "truncated", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp(e->value, names[i]) == 0)
            return (fault_t)i;
    die_scn(e->line, "%s: expected none, crash, hang, garbage, exit1 or truncated", e->key);
}

/* The fault for persona key P ("bench", "server", "ppl", "list_devices") on
 * target T (may be NULL), honouring fault_after. */
static fault_t fault_for(const char *P, const char *T)
{
    const lvd_kv *e = NULL;
    char *k;
    if (strcmp(P, "list_devices") == 0) {
        e = scn_find("list_devices.fault");
        if (!e)
            e = scn_find("list_devices_fault");
    } else {
        if (T) {
            k = lvd_xasprintf("%s.%s.fault", P, T);
            e = scn_find(k);
            free(k);
            if (!e) {
                k = lvd_xasprintf("%s.fault", T);
                e = scn_find(k);
                free(k);
            }
        }
        if (!e) {
            k = lvd_xasprintf("%s.fault", P);
            e = scn_find(k);
            free(k);
        }
        if (!e)
            e = scn_find("fault");
    }
    if (!e)
        return F_NONE;
    fault_t f = parse_fault(e);
    k = lvd_xasprintf("%s.fault_after", P);
    long after = scn_find(k) ? scn_long(k, 0) : scn_long("fault_after", 0);
    free(k);
    return G.idx < after ? F_NONE : f;
}

static void __attribute__((noreturn)) crash_now(void)
{
    flush_all();
    struct rlimit rl = { 0, 0 };
    setrlimit(RLIMIT_CORE, &rl);
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    _exit(139);
}

static void __attribute__((noreturn)) hang_now(void)
{
    flush_all();
    long s = scn_long("hang_s", 600);
    time_t end = time(NULL) + s;
    while (time(NULL) < end)
        sleep(1);
    _exit(124);
}

static void __attribute__((noreturn)) garbage_now(FILE *f)
{
    fputs("@@@ fake-engine garbage @@@ {\"build_commit\": [[[ <<<\n"
          "%%%% 0xDEADBEEF not json at all\n"
          "}}} ~~~ ggml_abort?? \n",
          f);
    flush_all();
    _exit(0);
}

/* Crash or truncate after writing the first half of the first line of text to f. */
static void __attribute__((noreturn)) partial_now(FILE *f, const char *text, fault_t fault)
{
    size_t line = strcspn(text, "\n");
    fwrite(text, 1, line / 2, f);
    if (fault == F_CRASH)
        crash_now();
    flush_all();
    _exit(0);
}

static void do_work_sleep(double sim_ns)
{
    double ms = scn_dbl("sleep_ms", 0) + sim_ns / 1e6 * scn_dbl("time_scale", 0);
    flush_all();
    sleep_ms(ms);
}

/* ------------------------------------------------------------ models */

typedef struct model_meta {
    char *type;
    uint64_t size;
    uint64_t n_params;
} model_meta;

/* 0 when path opens as a GGUF file (magic only); fills m (caller frees type). */
static int model_load(const char *path, model_meta *m)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char magic[4];
    struct stat st;
    int ok = read(fd, magic, 4) == 4 && memcmp(magic, "GGUF", 4) == 0 && fstat(fd, &st) == 0 &&
             S_ISREG(st.st_mode);
    close(fd);
    if (!ok)
        return -1;
    static const struct {
        const char *tag, *name;
        double bpw;
    } types[] = {
        { "q4_k_m", "Q4_K - Medium", 4.85 }, { "q4_k_s", "Q4_K - Small", 4.58 },
        { "q5_k_m", "Q5_K - Medium", 5.69 }, { "q6_k", "Q6_K", 6.56 },
        { "q8_0", "Q8_0", 8.5 },            { "q4_0", "Q4_0", 4.5 },
        { "q4_1", "Q4_1", 5.0 },            { "q5_0", "Q5_0", 5.5 },
        { "q5_1", "Q5_1", 6.0 },            { "bf16", "BF16", 16 },
        { "f16", "F16", 16 },               { "f32", "all F32", 32 },
    };
    const char *bn = lvd_base_name(path);
    char *lower = lvd_xstrdup(bn);
    for (char *c = lower; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    const char *tname = "?";
    double bpw = 8;
    for (size_t i = 0; i < LVD_ARRAY_LEN(types); i++)
        if (strstr(lower, types[i].tag)) {
            tname = types[i].name;
            bpw = types[i].bpw;
            break;
        }
    free(lower);
    char *k = lvd_xasprintf("model.%s.type", bn);
    const char *t = scn_str(k, NULL);
    m->type = t ? lvd_xstrdup(t) : lvd_xasprintf("llama ?B %s", tname);
    free(k);
    k = lvd_xasprintf("model.%s.size", bn);
    m->size = (uint64_t)scn_long(k, (long)st.st_size);
    free(k);
    k = lvd_xasprintf("model.%s.n_params", bn);
    m->n_params = (uint64_t)scn_long(k, (long)((double)m->size * 8 / bpw));
    free(k);
    return 0;
}

/* ------------------------------------------------------------ speeds */

typedef const char *(*param_fn)(const char *name, void *ctx);

static int cond_match(const char *cond, param_fn fn, void *ctx)
{
    const char *eq = strchr(cond, '=');
    char *name = lvd_xstrndup(cond, (size_t)(eq - cond));
    const char *have;
    if (lvd_starts_with(name, "env.")) {
        have = getenv(name + 4);
        if (!have)
            have = "";
    } else {
        have = fn(name, ctx);
    }
    int m = have && strcmp(have, eq + 1) == 0;
    free(name);
    return m;
}

/* The product of the K multipliers that apply to target T. */
static double speed_mult(const char *T, const char *K, param_fn fn, void *ctx)
{
    double m = 1;
    size_t tl = strlen(T), kl = strlen(K);
    for (size_t i = 0; i < G.scn.n; i++) {
        const char *key = G.scn.v[i].key, *cond = NULL;
        int specific = 0;
        if (strncmp(key, T, tl) == 0 && key[tl] == '.' && strncmp(key + tl + 1, K, kl) == 0 &&
            key[tl + 1 + kl] == '.') {
            cond = key + tl + kl + 2;
            specific = 1;
        } else if (strncmp(key, K, kl) == 0 && key[kl] == '.') {
            cond = key + kl + 1;
        }
        if (!cond || !strchr(cond, '=') || scn_find(key) != &G.scn.v[i])
            continue;
        if (!specific) {
            char *sk = lvd_xasprintf("%s.%s.%s", T, K, cond);
            int hidden = scn_find(sk) != NULL;
            free(sk);
            if (hidden)
                continue;
        }
        if (cond_match(cond, fn, ctx))
            m *= ent_dbl(&G.scn.v[i]);
    }
    return m;
}

/* The true mean t/s of kind K ("pp" or "tg") on T before multipliers. */
static double base_speed(const char *T, const char *K)
{
    char *k = lvd_xasprintf("cpu.%s", K), *alias = lvd_xasprintf("cpu_%s", K);
    double cpu = scn_find(k) ? scn_dbl(k, 0) : scn_dbl(alias, strcmp(K, "pp") == 0 ? 400 : 50);
    free(k);
    free(alias);
    if (strcmp(T, "cpu") == 0)
        return cpu;
    k = lvd_xasprintf("%s.%s", T, K);
    const lvd_kv *e = scn_find(k);
    free(k);
    double v = e ? ent_dbl(e) : cpu * (strcmp(K, "pp") == 0 ? 20 : 10);
    if (v <= 0 || cpu <= 0)
        die_scn(e ? e->line : 0, "speeds must be positive");
    return v;
}

/* Parses a list like "0.4" or "0.24,0.3" into out (at most max). */
static size_t dbl_list(const lvd_kv *e, double *out, size_t max)
{
    size_t n = 0;
    char **items = lvd_split(e->value, ',', NULL);
    for (size_t i = 0; items[i]; i++) {
        double d;
        if (lvd_parse_double(trim(items[i]), &d) != 0 || d <= 0) {
            lvd_strv_free(items);
            die_scn(e->line, "%s: expected positive numbers separated by ','", e->key);
        }
        if (n < max)
            out[n++] = d;
    }
    lvd_strv_free(items);
    return n;
}

/* ----------------------------------------------------------- llama-bench */

enum bdim {
    D_MODEL, D_FITT, D_FITC, D_NGL, D_NCMOE, D_SM, D_LM, D_MG, D_DEV, D_TS, D_OT, D_NOH, D_EMBD,
    D_NOPO, D_NB, D_NUB, D_TK, D_TV, D_NKVO, D_FA, D_NT, D_CM, D_CS, D_ND, D_POLL, D_COUNT
};

enum { FMT_NONE, FMT_CSV, FMT_JSON, FMT_JSONL, FMT_MD, FMT_SQL };

typedef struct bench_opts {
    strv dim[D_COUNT];
    strv n_prompt, n_gen, pg;
    int reps, fmt, fmt_err, progress, no_warmup, delay, hf;
} bench_opts;

static const char *bench_default(int d)
{
    static char threads[32];
    switch (d) {
    case D_MODEL: return "models/7B/ggml-model-q4_0.gguf";
    case D_NGL: return "-1";
    case D_SM: return "layer";
    case D_LM: return "mmap";
    case D_DEV: return "auto";
    case D_TS: return "0.00";
    case D_OT: return "none";
    case D_NB: return "2048";
    case D_NUB: return "512";
    case D_TK: case D_TV: return "f16";
    case D_FA: return "-1";
    case D_NT:
        snprintf(threads, sizeof threads, "%ld", scn_long("threads", 2));
        return threads;
    case D_CM: return "0x0";
    case D_POLL: return "50";
    default: return "0";
    }
}

static void bench_usage(void)
{
    printf("usage: %s [options]\n"
           "\n"
           "options:\n"
           "  -h, --help\n"
           "  --numa <distribute|isolate|numactl>         numa mode (default: disabled)\n"
           "  -r, --repetitions <n>                       number of times to repeat each test (default: 5)\n"
           "  --prio <-1|0|1|2|3>                         process/thread priority (default: 0)\n"
           "  --delay <0...N> (seconds)                   delay between each test (default: 0)\n"
           "  -o, --output <csv|json|jsonl|md|sql>        output format printed to stdout (default: md)\n"
           "  -oe, --output-err <csv|json|jsonl|md|sql>   output format printed to stderr (default: none)\n"
           "  --list-devices                              list available devices and exit\n"
           "  -v, --verbose                               verbose output\n"
           "  --progress                                  print test progress indicators\n"
           "  --no-warmup                                 skip warmup runs before benchmarking\n"
           "  -fitt, --fit-target <MiB>                   fit model to device memory with this margin per "
           "device in MiB (default: off)\n"
           "  -fitc, --fit-ctx <n>                        minimum ctx size for --fit-target (default: 4096)\n"
           "\n"
           "test parameters:\n"
           "  -m, --model <filename>                            (default: models/7B/ggml-model-q4_0.gguf)\n"
           "  -hf, -hfr, --hf-repo <user>/<model>[:quant]       Hugging Face model repository; quant is "
           "optional, case-insensitive\n"
           "                                                    default to Q4_K_M, or falls back to the first "
           "file in the repo if Q4_K_M doesn't exist.\n"
           "                                                    example: ggml-org/GLM-4.7-Flash-GGUF:Q4_K_M\n"
           "                                                    (default: unused)\n"
           "  -hff, --hf-file <file>                            Hugging Face model file. If specified, it will "
           "override the quant in --hf-repo\n"
           "                                                    (default: unused)\n"
           "  -hft, --hf-token <token>                          Hugging Face access token\n"
           "                                                    (default: value from HF_TOKEN environment "
           "variable)\n"
           "  --offline                                         Offline mode: forces use of cache, prevents "
           "network access\n"
           "                                                    (default: disabled)\n"
           "  -p, --n-prompt <n>                                (default: 512)\n"
           "  -n, --n-gen <n>                                   (default: 128)\n"
           "  -pg <pp,tg>                                       (default: )\n"
           "  -d, --n-depth <n>                                 (default: 0)\n"
           "  -b, --batch-size <n>                              (default: 2048)\n"
           "  -ub, --ubatch-size <n>                            (default: 512)\n"
           "  -ctk, --cache-type-k <t>                          (default: f16)\n"
           "  -ctv, --cache-type-v <t>                          (default: f16)\n"
           "  -t, --threads <n>                                 (default: %s)\n"
           "  -C, --cpu-mask <hex,hex>                          (default: 0x0)\n"
           "  --cpu-strict <0|1>                                (default: 0)\n"
           "  --poll <0...100>                                  (default: 50)\n"
           "  -ngl, --n-gpu-layers <n>                          (default: -1)\n"
           "  -ncmoe, --n-cpu-moe <n>                           (default: 0)\n"
           "  -sm, --split-mode <none|layer|row|tensor>         (default: layer)\n"
           "  -mg, --main-gpu <i>                               (default: 0)\n"
           "  -nkvo, --no-kv-offload <0|1>                      (default: 0)\n"
           "  -fa, --flash-attn <on|off|auto>                   (default: auto)\n"
           "  -dev, --device <dev0/dev1/...>                    (default: auto)\n"
           "  -lm, --load-mode <none|mmap|mlock|mmap+mlock|dio> (default: mmap)\n"
           "  -mmp, --mmap <0|1>                                (DEPRECATED IN FAVOUR OF --load-mode)\n"
           "  -dio, --direct-io <0|1>                           (DEPRECATED IN FAVOUR OF --load-mode)\n"
           "  -embd, --embeddings <0|1>                         (default: 0)\n"
           "  -ts, --tensor-split <ts0/ts1/..>                  (default: 0)\n"
           "  -ot --override-tensor <tensor name pattern>=<buffer type>;...\n"
           "                                                    (default: disabled)\n"
           "  -nopo, --no-op-offload <0|1>                      (default: 0)\n"
           "  --no-host <0|1>                                   (default: 0)\n"
           "\n"
           "Multiple values can be given for each parameter by separating them with ','\n"
           "or by specifying the parameter multiple times. Ranges can be given as\n"
           "'first-last' or 'first-last+step' or 'first-last*mult'.\n",
           G.prog, bench_default(D_NT));
}

/* llama-bench's parse_int_range: first[-last[(+|*)step]] items separated by ','.
 * Returns NULL or the exception text. */
static const char *int_range(const char *s, int allow_neg, strv *out)
{
    const char *p = s;
    while (*p) {
        const char *q = p;
        if (allow_neg && *q == '-')
            q++;
        if (!isdigit((unsigned char)*q))
            return "invalid range format";
        char *end;
        long first = strtol(p, &end, 10), last = first, step = 1;
        char op = '+';
        p = end;
        if (*p == '-' && isdigit((unsigned char)p[1])) {
            last = strtol(p + 1, &end, 10);
            p = end;
            if ((*p == '+' || *p == '*' || *p == '|') && isdigit((unsigned char)p[1])) {
                op = *p;
                step = strtol(p + 1, &end, 10);
                p = end;
            }
        }
        if (*p == ',')
            p++;
        else if (*p)
            return "invalid range format";
        for (long i = first; i <= last;) {
            char buf[32];
            snprintf(buf, sizeof buf, "%ld", i);
            strv_push(out, buf);
            long prev = i;
            if (op == '+')
                i += step;
            else if (op == '*')
                i *= step;
            else
                return "invalid range format";
            if (i <= prev)
                return "invalid range";
        }
    }
    return NULL;
}

static int split_push(const char *val, strv *out, const char *const *allowed)
{
    char **items = lvd_split(val, ',', NULL);
    int ok = 1;
    for (size_t i = 0; items[i] && ok; i++) {
        if (allowed && !in_list(items[i], allowed))
            ok = 0;
        else
            strv_push(out, items[i]);
    }
    lvd_strv_free(items);
    return ok;
}

static void bool_push(const char *val, strv *out)
{
    char **items = lvd_split(val, ',', NULL);
    for (size_t i = 0; items[i]; i++)
        strv_push(out, atoi(items[i]) ? "1" : "0");
    lvd_strv_free(items);
}

static const char *fa_value(const char *v)
{
    static const char *const t[] = { "on", "enabled", "true", "1", NULL };
    static const char *const f[] = { "off", "disabled", "false", "0", NULL };
    static const char *const a[] = { "auto", "-1", NULL };
    return in_list(v, t) ? "1" : in_list(v, f) ? "0" : in_list(v, a) ? "-1" : NULL;
}

/* -dev value: combos separated by ',', names by '/'. NULL or the error. */
static char *bench_devices(const char *val, strv *out)
{
    char **combos = lvd_split(val, ',', NULL);
    char *errmsg = combos[0] ? NULL : lvd_xstrdup("no devices specified");
    for (size_t i = 0; combos[i] && !errmsg; i++) {
        char *c = trim(combos[i]);
        if (!*c) {
            errmsg = lvd_xstrdup("no devices specified");
        } else if (strcmp(c, "auto") == 0 || strcmp(c, "none") == 0) {
            strv_push(out, c);
        } else {
            lvd_sb joined = { 0 };
            const char *p = c;
            while (!errmsg) {
                size_t n = strcspn(p, "/");
                char *name = lvd_xstrndup(p, n);
                char *t = trim(name);
                if (!*t)
                    errmsg = lvd_xstrdup("invalid device specification");
                else if (!dev_by_name(t))
                    errmsg = lvd_xasprintf("invalid device: %s", t);
                else
                    lvd_sb_addf(&joined, "%s%s", joined.len ? "/" : "", t);
                free(name);
                if (!p[n])
                    break;
                p += n + 1;
            }
            if (!errmsg)
                strv_push(out, lvd_sb_str(&joined));
            lvd_sb_free(&joined);
        }
    }
    lvd_strv_free(combos);
    return errmsg;
}

static void bench_tensor_split(const char *val, strv *out)
{
    char **items = lvd_split(val, ',', NULL);
    for (size_t i = 0; items[i]; i++) {
        double ts[16] = { 0 };
        int n = 0, maxnz = 0;
        char *save = NULL;
        for (char *t = strtok_r(items[i], ";/", &save); t && n < 16; t = strtok_r(NULL, ";/", &save))
            ts[n++] = atof(t);
        for (int j = 0; j < n; j++)
            if (ts[j] > 0)
                maxnz = j;
        lvd_sb sb = { 0 };
        for (int j = 0; j <= maxnz; j++)
            lvd_sb_addf(&sb, "%s%.2f", j ? "/" : "", ts[j]);
        strv_push(out, lvd_sb_str(&sb));
        lvd_sb_free(&sb);
    }
    lvd_strv_free(items);
}

/* -ot groups: "pat=buft;pat=buft" separated by ','; an empty group is "none".
 * Returns 0, or -1 after printing the real tool's unknown-buffer message. */
static int bench_overrides(const char *val, strv *out)
{
    const char *p = val;
    for (;;) {
        size_t n = strcspn(p, ",");
        char *group = lvd_xstrndup(p, n);
        if (!*group) {
            strv_push(out, "none");
        } else {
            lvd_sb sb = { 0 };
            char *save = NULL;
            for (char *o = strtok_r(group, ";", &save); o; o = strtok_r(NULL, ";", &save)) {
                char *eq = strchr(o, '=');
                if (!eq) {
                    lvd_sb_free(&sb);
                    free(group);
                    return -1;
                }
                if (strcmp(eq + 1, "CPU") != 0 && !dev_by_name(eq + 1)) {
                    printf("error: unrecognized buffer type '%s'\n", eq + 1);
                    printf("Available buffer types:\n");
                    printf("  CPU\n");
                    for (size_t d = 0; d < G.ndev; d++)
                        printf("  %s\n", G.dev[d].name);
                    lvd_sb_free(&sb);
                    free(group);
                    return -1;
                }
                lvd_sb_addf(&sb, "%s%s", sb.len ? ";" : "", o);
            }
            strv_push(out, lvd_sb_str(&sb));
            lvd_sb_free(&sb);
        }
        free(group);
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}

static int out_format(const char *s)
{
    static const char *const names[] = { "none", "csv", "json", "jsonl", "md", "sql", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int is_int(const char *s, int allow_neg)
{
    if (allow_neg && *s == '-')
        s++;
    return all_digits(s);
}

static void bench_list_devices(void)
{
    fault_t f = fault_for("list_devices", NULL);
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stdout);
    if (f == F_EXIT1) {
        fputs("ggml_backend_load_all: failed to initialize the backends (fake exit1)\n", stderr);
        flush_all();
        _exit(1);
    }
    if (f == F_CRASH || f == F_TRUNCATED) {
        fputs("Available devices:\n", stdout);
        partial_now(stdout, G.ndev ? G.dev[0].desc : "  (none)", f);
    }
    print_devices();
}

static int is_arg(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

/* Parses llama-bench's argv into o. Returns -1 (exit 1), 0 (run), 1 (exit 0). */
static int bench_parse(int argc, char **argv, bench_opts *o)
{
    static const char *const types[] = { "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl", NULL };
    static const char *const sms[] = { "none", "layer", "row", "tensor", NULL };
    static const char *const lms[] = { "none", "mmap", "mlock", "mmap+mlock", "dio", NULL };
    static const char *const numa[] = { "distribute", "", "isolate", "numactl", NULL };
    memset(o, 0, sizeof *o);
    o->reps = 5;
    o->fmt = FMT_MD;
    o->fmt_err = FMT_NONE;
    int invalid = 0;
    char *arg = NULL;
    for (int i = 1; i < argc && !invalid; i++) {
        free(arg);
        arg = lvd_xstrdup(argv[i]);
        if (lvd_starts_with(arg, "--"))
            for (char *c = arg; *c; c++)
                if (*c == '_')
                    *c = '-';
        const char *a = arg;
        const char *err = NULL;
        int takes_value = !(is_arg(a, "-h", "--help") || is_arg(a, "--list-devices", NULL) ||
                            is_arg(a, "--offline", NULL) || is_arg(a, "-v", "--verbose") ||
                            is_arg(a, "--progress", NULL) || is_arg(a, "--no-warmup", NULL));
        if (takes_value && ++i >= argc) {
            invalid = 1;
            break;
        }
        const char *v = takes_value ? argv[i] : NULL;
        if (is_arg(a, "-h", "--help")) {
            bench_usage();
            free(arg);
            return 1;
        } else if (is_arg(a, "--list-devices", NULL)) {
            bench_list_devices();
            free(arg);
            return 1;
        } else if (is_arg(a, "--offline", NULL) || is_arg(a, "-v", "--verbose")) {
        } else if (is_arg(a, "--progress", NULL)) {
            o->progress = 1;
        } else if (is_arg(a, "--no-warmup", NULL)) {
            o->no_warmup = 1;
        } else if (is_arg(a, "-m", "--model")) {
            split_push(v, &o->dim[D_MODEL], NULL);
        } else if (is_arg(a, "-hf", "-hfr") || is_arg(a, "--hf-repo", NULL) || is_arg(a, "-hff", "--hf-file")) {
            o->hf = 1;
        } else if (is_arg(a, "-hft", "--hf-token")) {
        } else if (is_arg(a, "-p", "--n-prompt")) {
            err = int_range(v, 0, &o->n_prompt);
        } else if (is_arg(a, "-n", "--n-gen")) {
            err = int_range(v, 0, &o->n_gen);
        } else if (is_arg(a, "-pg", NULL)) {
            char **p = lvd_split(v, ',', NULL);
            size_t n = 0;
            while (p[n])
                n++;
            if (n != 2 || !is_int(p[0], 1) || !is_int(p[1], 1)) {
                invalid = 1;
            } else {
                char *pair = lvd_xasprintf("%d,%d", atoi(p[0]), atoi(p[1]));
                strv_push(&o->pg, pair);
                free(pair);
            }
            lvd_strv_free(p);
        } else if (is_arg(a, "-d", "--n-depth")) {
            err = int_range(v, 0, &o->dim[D_ND]);
        } else if (is_arg(a, "-b", "--batch-size")) {
            err = int_range(v, 0, &o->dim[D_NB]);
        } else if (is_arg(a, "-ub", "--ubatch-size")) {
            err = int_range(v, 0, &o->dim[D_NUB]);
        } else if (is_arg(a, "-ctk", "--cache-type-k")) {
            invalid = !split_push(v, &o->dim[D_TK], types);
        } else if (is_arg(a, "-ctv", "--cache-type-v")) {
            invalid = !split_push(v, &o->dim[D_TV], types);
        } else if (is_arg(a, "-dev", "--device")) {
            char *e = bench_devices(v, &o->dim[D_DEV]);
            if (e) {
                fprintf(stderr, "error: %s\n", e);
                free(e);
                invalid = 1;
            }
        } else if (is_arg(a, "-t", "--threads")) {
            err = int_range(v, 0, &o->dim[D_NT]);
        } else if (is_arg(a, "-C", "--cpu-mask")) {
            split_push(v, &o->dim[D_CM], NULL);
        } else if (is_arg(a, "--cpu-strict", NULL)) {
            bool_push(v, &o->dim[D_CS]);
        } else if (is_arg(a, "--poll", NULL)) {
            err = int_range(v, 0, &o->dim[D_POLL]);
        } else if (is_arg(a, "-ngl", "--n-gpu-layers")) {
            err = int_range(v, 1, &o->dim[D_NGL]);
        } else if (is_arg(a, "-ncmoe", "--n-cpu-moe")) {
            err = int_range(v, 0, &o->dim[D_NCMOE]);
        } else if (is_arg(a, "-sm", "--split-mode")) {
            invalid = !split_push(v, &o->dim[D_SM], sms);
        } else if (is_arg(a, "-lm", "--load-mode")) {
            invalid = !split_push(v, &o->dim[D_LM], lms);
        } else if (is_arg(a, "-mg", "--main-gpu")) {
            strv_clear(&o->dim[D_MG]);
            err = int_range(v, 0, &o->dim[D_MG]);
        } else if (is_arg(a, "-nkvo", "--no-kv-offload")) {
            bool_push(v, &o->dim[D_NKVO]);
        } else if (is_arg(a, "--numa", NULL)) {
            invalid = !in_list(v, numa);
        } else if (is_arg(a, "-fa", "--flash-attn")) {
            char **p = lvd_split(v, ',', NULL);
            for (size_t j = 0; p[j] && !invalid; j++) {
                const char *fv = fa_value(p[j]);
                if (fv)
                    strv_push(&o->dim[D_FA], fv);
                else
                    invalid = 1;
            }
            lvd_strv_free(p);
        } else if (is_arg(a, "-mmp", "--mmap") || is_arg(a, "-dio", "--direct-io")) {
            int dio = is_arg(a, "-dio", "--direct-io");
            fprintf(stderr, "DEPRECATED: %s are deprecated in favour of --load-mode. Please use --load-mode %s "
                            "instead.\n",
                    dio ? "-dio and --direct-io" : "-mmp and --mmap", dio ? "dio" : "mmap");
            char **p = lvd_split(v, ',', NULL);
            for (size_t j = 0; p[j]; j++)
                strv_push(&o->dim[D_LM], atoi(p[j]) ? (dio ? "dio" : "mmap") : "none");
            lvd_strv_free(p);
        } else if (is_arg(a, "-embd", "--embeddings")) {
            bool_push(v, &o->dim[D_EMBD]);
        } else if (is_arg(a, "-nopo", "--no-op-offload")) {
            bool_push(v, &o->dim[D_NOPO]);
        } else if (is_arg(a, "--no-host", NULL)) {
            bool_push(v, &o->dim[D_NOH]);
        } else if (is_arg(a, "-ts", "--tensor-split")) {
            bench_tensor_split(v, &o->dim[D_TS]);
        } else if (is_arg(a, "-ot", "--override-tensor")) {
            invalid = bench_overrides(v, &o->dim[D_OT]) != 0;
        } else if (is_arg(a, "-r", "--repetitions") || is_arg(a, "--prio", NULL) || is_arg(a, "--delay", NULL)) {
            if (!is_int(v, 1))
                err = "stoi";
            else if (is_arg(a, "-r", "--repetitions"))
                o->reps = atoi(v);
            else if (is_arg(a, "--delay", NULL))
                o->delay = atoi(v);
        } else if (is_arg(a, "-o", "--output") || is_arg(a, "-oe", "--output-err")) {
            int f = out_format(v);
            if (f < 0)
                invalid = 1;
            else if (is_arg(a, "-o", "--output"))
                o->fmt = f;
            else
                o->fmt_err = f;
        } else if (is_arg(a, "-fitt", "--fit-target") || is_arg(a, "-fitc", "--fit-ctx")) {
            int fitt = is_arg(a, "-fitt", "--fit-target");
            char **p = lvd_split(v, ',', NULL);
            for (size_t j = 0; p[j] && !err; j++) {
                if (!isdigit((unsigned char)p[j][0])) {
                    err = fitt ? "stoull" : "stoul";
                } else {
                    char buf[32];
                    snprintf(buf, sizeof buf, "%llu", strtoull(p[j], NULL, 10));
                    strv_push(&o->dim[fitt ? D_FITT : D_FITC], buf);
                }
            }
            lvd_strv_free(p);
        } else {
            invalid = 1;
        }
        if (err) {
            fprintf(stderr, "error: %s\n", err);
            invalid = 1;
        }
    }
    if (invalid) {
        fprintf(stderr, "error: invalid parameter for argument: %s\n", arg ? arg : "");
        free(arg);
        bench_usage();
        return -1;
    }
    free(arg);
    if (o->hf) {
        fprintf(stderr, "error: failed to download model from HuggingFace\n");
        return -1;
    }
    for (int d = 0; d < D_COUNT; d++)
        if (!o->dim[d].n)
            strv_push(&o->dim[d], bench_default(d));
    if (!o->n_prompt.n)
        strv_push(&o->n_prompt, "512");
    if (!o->n_gen.n)
        strv_push(&o->n_gen, "128");
    return 0;
}

static void bench_opts_free(bench_opts *o)
{
    for (int d = 0; d < D_COUNT; d++)
        strv_clear(&o->dim[d]);
    strv_clear(&o->n_prompt);
    strv_clear(&o->n_gen);
    strv_clear(&o->pg);
}

/* One test instance: an index into every dimension plus the test shape. */
typedef struct binst {
    size_t ix[D_COUNT];
    int n_prompt, n_gen;
} binst;

typedef struct binst_list {
    binst *v;
    size_t n;
} binst_list;

static void inst_push(binst_list *l, const size_t *ix, int np, int ng)
{
    l->v = lvd_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    memcpy(l->v[l->n].ix, ix, sizeof l->v[l->n].ix);
    l->v[l->n].n_prompt = np;
    l->v[l->n].n_gen = ng;
    l->n++;
}

/* llama-bench's get_cmd_params_instances: the cross product with the model
 * outermost and poll innermost, then pp tests, tg tests, pg tests. */
static void bench_instances(const bench_opts *o, binst_list *out)
{
    size_t ix[D_COUNT] = { 0 };
    for (;;) {
        for (size_t j = 0; j < o->n_prompt.n; j++)
            if (atoi(o->n_prompt.v[j]) != 0)
                inst_push(out, ix, atoi(o->n_prompt.v[j]), 0);
        for (size_t j = 0; j < o->n_gen.n; j++)
            if (atoi(o->n_gen.v[j]) != 0)
                inst_push(out, ix, 0, atoi(o->n_gen.v[j]));
        for (size_t j = 0; j < o->pg.n; j++) {
            int a = atoi(o->pg.v[j]), b = atoi(strchr(o->pg.v[j], ',') + 1);
            if (a || b)
                inst_push(out, ix, a, b);
        }
        int d = D_COUNT - 1;
        while (d >= 0 && ++ix[d] == o->dim[d].n)
            ix[d--] = 0;
        if (d < 0)
            break;
    }
}

enum bfield {
    F_BUILD_COMMIT, F_BUILD_NUMBER, F_CPU_INFO, F_GPU_INFO, F_BACKENDS, F_MODEL_FILENAME, F_MODEL_TYPE,
    F_MODEL_SIZE, F_MODEL_N_PARAMS, F_N_BATCH, F_N_UBATCH, F_N_THREADS, F_CPU_MASK, F_CPU_STRICT, F_POLL,
    F_TYPE_K, F_TYPE_V, F_N_GPU_LAYERS, F_N_CPU_MOE, F_SPLIT_MODE, F_MAIN_GPU, F_NO_KV_OFFLOAD, F_FLASH_ATTN,
    F_DEVICES, F_TENSOR_SPLIT, F_TENSOR_BUFT_OVERRIDES, F_LOAD_MODE, F_EMBEDDINGS, F_NO_OP_OFFLOAD,
    F_NO_HOST, F_FIT_TARGET, F_FIT_MIN_CTX, F_N_PROMPT, F_N_GEN, F_N_DEPTH, F_TEST_TIME, F_AVG_NS,
    F_STDDEV_NS, F_AVG_TS, F_STDDEV_TS, F_COUNT
};

enum ftype { T_STRING, T_BOOL, T_INT, T_FLOAT };

static const struct {
    const char *name;
    enum ftype type;
    int dim; /* the bench dimension it echoes, or -1 */
} FIELDS[F_COUNT] = {
    { "build_commit", T_STRING, -1 },      { "build_number", T_INT, -1 },
    { "cpu_info", T_STRING, -1 },          { "gpu_info", T_STRING, -1 },
    { "backends", T_STRING, -1 },          { "model_filename", T_STRING, D_MODEL },
    { "model_type", T_STRING, -1 },        { "model_size", T_INT, -1 },
    { "model_n_params", T_INT, -1 },       { "n_batch", T_INT, D_NB },
    { "n_ubatch", T_INT, D_NUB },          { "n_threads", T_INT, D_NT },
    { "cpu_mask", T_STRING, D_CM },        { "cpu_strict", T_BOOL, D_CS },
    { "poll", T_INT, D_POLL },             { "type_k", T_STRING, D_TK },
    { "type_v", T_STRING, D_TV },          { "n_gpu_layers", T_INT, D_NGL },
    { "n_cpu_moe", T_INT, D_NCMOE },       { "split_mode", T_STRING, D_SM },
    { "main_gpu", T_INT, D_MG },           { "no_kv_offload", T_BOOL, D_NKVO },
    { "flash_attn", T_INT, D_FA },         { "devices", T_STRING, D_DEV },
    { "tensor_split", T_STRING, D_TS },    { "tensor_buft_overrides", T_STRING, D_OT },
    { "load_mode", T_STRING, D_LM },       { "embeddings", T_BOOL, D_EMBD },
    { "no_op_offload", T_INT, D_NOPO },    { "no_host", T_BOOL, D_NOH },
    { "fit_target", T_INT, D_FITT },       { "fit_min_ctx", T_INT, D_FITC },
    { "n_prompt", T_INT, -1 },             { "n_gen", T_INT, -1 },
    { "n_depth", T_INT, D_ND },            { "test_time", T_STRING, -1 },
    { "avg_ns", T_INT, -1 },               { "stddev_ns", T_INT, -1 },
    { "avg_ts", T_FLOAT, -1 },             { "stddev_ts", T_FLOAT, -1 },
};

/* One printed test: every field as llama-bench's get_values() renders it. */
typedef struct bres {
    char *val[F_COUNT];
    uint64_t *ns;
    size_t n;
    int n_prompt, n_gen, n_depth;
    uint64_t model_size, model_n_params;
    double avg_ts, stdev_ts;
} bres;

static void bres_free(bres *r)
{
    for (int f = 0; f < F_COUNT; f++)
        free(r->val[f]);
    free(r->ns);
    memset(r, 0, sizeof *r);
}

static double ts_of(const bres *r, size_t i)
{
    return 1e9 * (r->n_prompt + r->n_gen) / (double)r->ns[i];
}

/* llama-bench's avg/stdev over uint64 ns (integer arithmetic) and over t/s. */
static void bres_stats(bres *r)
{
    uint64_t sum = 0, sq = 0;
    for (size_t i = 0; i < r->n; i++) {
        sum += r->ns[i];
        sq += r->ns[i] * r->ns[i];
    }
    uint64_t avg = r->n ? sum / r->n : 0, sd = 0;
    if (r->n > 1) {
        uint64_t a = sq / (r->n - 1), b = avg * avg * r->n / (r->n - 1);
        sd = a > b ? (uint64_t)sqrt((double)(a - b)) : 0;
    }
    double tsum = 0, tsq = 0;
    for (size_t i = 0; i < r->n; i++) {
        double t = ts_of(r, i);
        tsum += t;
        tsq += t * t;
    }
    double tavg = r->n ? tsum / (double)r->n : 0, tsd = 0;
    if (r->n > 1) {
        double v = tsq / (double)(r->n - 1) - tavg * tavg * (double)r->n / (double)(r->n - 1);
        tsd = v > 0 ? sqrt(v) : 0;
    }
    r->avg_ts = tavg;
    r->stdev_ts = tsd;
    r->val[F_AVG_NS] = lvd_xasprintf("%" PRIu64, avg);
    r->val[F_STDDEV_NS] = lvd_xasprintf("%" PRIu64, sd);
    r->val[F_AVG_TS] = lvd_xasprintf("%f", tavg);
    r->val[F_STDDEV_TS] = lvd_xasprintf("%f", tsd);
}

typedef struct cond_ctx {
    const bench_opts *o;
    const binst *in;
} cond_ctx;

static const char *bench_param(const char *name, void *vctx)
{
    const cond_ctx *c = vctx;
    static const struct {
        const char *n;
        int d;
    } map[] = { { "fa", D_FA },   { "ngl", D_NGL }, { "ncmoe", D_NCMOE }, { "ub", D_NUB },   { "b", D_NB },
                { "ctk", D_TK },  { "ctv", D_TV },  { "t", D_NT },         { "d", D_ND },     { "sm", D_SM },
                { "nkvo", D_NKVO }, { "fitt", D_FITT }, { "mg", D_MG },    { "dev", D_DEV },  { "model", D_MODEL } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(map); i++)
        if (strcmp(name, map[i].n) == 0) {
            const char *v = c->o->dim[map[i].d].v[c->in->ix[map[i].d]];
            return map[i].d == D_MODEL ? lvd_base_name(v) : v;
        }
    return NULL;
}

/* The j-th ';'-separated item of a scenario value (the last repeats), or NULL. */
static char *nth_item(const char *key, size_t j, int *line)
{
    const lvd_kv *e = scn_find(key);
    if (!e)
        return NULL;
    *line = e->line;
    char **items = lvd_split(e->value, ';', NULL);
    size_t n = 0;
    while (items[n])
        n++;
    char *r = n ? lvd_xstrdup(trim(items[j < n ? j : n - 1])) : NULL;
    lvd_strv_free(items);
    return r;
}

/* Fills r->ns for instance j on target T. Returns the simulated time in ns. */
static double bench_samples(const bench_opts *o, const binst *in, size_t j, const char *T, bres *r)
{
    int line = 0;
    char *replay = nth_item("samples_ns", j, &line);
    double total = 0;
    if (replay) {
        char **items = lvd_split(replay, ',', NULL);
        for (size_t i = 0; items[i]; i++) {
            int64_t v;
            if (lvd_parse_i64(trim(items[i]), &v) != 0 || v <= 0)
                die_scn(line, "samples_ns: expected positive integers");
            r->ns = lvd_xrealloc(r->ns, (r->n + 1) * sizeof *r->ns);
            r->ns[r->n++] = (uint64_t)v;
            total += (double)v;
        }
        lvd_strv_free(items);
        free(replay);
        return total;
    }
    cond_ctx cc = { o, in };
    const char *K = in->n_prompt && in->n_gen ? "pg" : in->n_prompt ? "pp" : "tg";
    double mean;
    if (strcmp(K, "pg") == 0) {
        double pp = base_speed(T, "pp") * speed_mult(T, "pp", bench_param, &cc);
        double tg = base_speed(T, "tg") * speed_mult(T, "tg", bench_param, &cc);
        mean = (in->n_prompt + in->n_gen) / (in->n_prompt / pp + in->n_gen / tg);
    } else {
        mean = base_speed(T, K) * speed_mult(T, K, bench_param, &cc);
    }
    const lvd_kv *e = scn_layered(T, K, "noise");
    double noise = e ? ent_dbl(e) : 0.02;
    e = scn_layered(T, K, "run_noise");
    double run_noise = e ? ent_dbl(e) : 0;
    double warm[64];
    e = scn_layered(T, K, "warmup");
    size_t nwarm = e ? dbl_list(e, warm, LVD_ARRAY_LEN(warm)) : 0;
    double level = (1 + run_noise * rng_normal()) * (1 + scn_dbl("drift", 0) * (double)G.idx);
    int tokens = in->n_prompt + in->n_gen;
    for (int i = 0; i < o->reps; i++) {
        double f = level * (1 + noise * rng_normal());
        if ((size_t)i < nwarm)
            f *= warm[i];
        double ts = mean * (f > 0.01 ? f : 0.01);
        double ns = llround(tokens * 1e9 / ts);
        r->ns = lvd_xrealloc(r->ns, (r->n + 1) * sizeof *r->ns);
        r->ns[r->n++] = ns >= 1 ? (uint64_t)ns : 1;
        total += ns;
    }
    return total;
}

static void json_escape(lvd_sb *sb, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"')
            lvd_sb_adds(sb, "\\\"");
        else if (*c == '\\')
            lvd_sb_adds(sb, "\\\\");
        else if (*c <= 0x1f)
            lvd_sb_addf(sb, "\\u%04x", *c);
        else
            lvd_sb_addc(sb, (char)*c);
    }
}

static void json_value(lvd_sb *sb, int f, const char *v)
{
    if (FIELDS[f].type == T_STRING) {
        lvd_sb_addc(sb, '"');
        json_escape(sb, v);
        lvd_sb_addc(sb, '"');
    } else if (FIELDS[f].type == T_BOOL) {
        lvd_sb_adds(sb, strcmp(v, "0") == 0 ? "false" : "true");
    } else {
        lvd_sb_adds(sb, v);
    }
}

static void samples_join(lvd_sb *sb, const bres *r, int ts)
{
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            lvd_sb_adds(sb, ", ");
        if (ts)
            lvd_sb_addf(sb, "%g", ts_of(r, i));
        else
            lvd_sb_addf(sb, "%" PRIu64, r->ns[i]);
    }
}

typedef struct printer {
    int fmt;
    int first;
    const char *md[F_COUNT + 8];
    int nmd;
} printer;

static int field_index(const char *name)
{
    for (int f = 0; f < F_COUNT; f++)
        if (strcmp(FIELDS[f].name, name) == 0)
            return f;
    return -1;
}

static int md_width(const char *field)
{
    static const struct {
        const char *f;
        int w;
    } w[] = { { "model", -30 }, { "t/s", 20 },       { "size", 10 },    { "params", 10 },  { "n_gpu_layers", 3 },
              { "n_threads", 7 }, { "n_batch", 7 },  { "n_ubatch", 8 }, { "type_k", 6 },   { "type_v", 6 },
              { "split_mode", 6 }, { "load_mode", 10 }, { "flash_attn", 3 }, { "devices", -12 }, { "test", 15 },
              { "no_op_offload", 4 }, { "no_host", 4 } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(w); i++)
        if (strcmp(field, w[i].f) == 0)
            return w[i].w;
    int width = (int)strlen(field) > 10 ? (int)strlen(field) : 10;
    int f = field_index(field);
    return (f < 0 || FIELDS[f].type == T_STRING) ? -width : width;
}

static const char *md_display(const char *field)
{
    static const char *const m[][2] = { { "n_gpu_layers", "ngl" }, { "split_mode", "sm" },
                                        { "n_threads", "threads" }, { "no_kv_offload", "nkvo" },
                                        { "flash_attn", "fa" },     { "load_mode", "lm" },
                                        { "embeddings", "embd" },   { "no_op_offload", "nopo" },
                                        { "no_host", "noh" },       { "devices", "dev" },
                                        { "tensor_split", "ts" },   { "tensor_buft_overrides", "ot" },
                                        { "fit_target", "fitt" },   { "fit_min_ctx", "fitc" } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(m); i++)
        if (strcmp(field, m[i][0]) == 0)
            return m[i][1];
    return field;
}

static int dim_nondefault(const bench_opts *o, int d)
{
    return o->dim[d].n > 1 || strcmp(o->dim[d].v[0], bench_default(d)) != 0;
}

static void print_header(printer *p, const bench_opts *o, lvd_sb *sb)
{
    p->first = 1;
    if (p->fmt == FMT_CSV) {
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "%s%s", f ? "," : "", FIELDS[f].name);
        lvd_sb_addc(sb, '\n');
    } else if (p->fmt == FMT_JSON) {
        lvd_sb_adds(sb, "[\n");
    } else if (p->fmt == FMT_SQL) {
        static const char *const sqlt[] = { "TEXT", "INTEGER", "INTEGER", "REAL" };
        lvd_sb_adds(sb, "CREATE TABLE IF NOT EXISTS llama_bench (\n");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "  %s %s%s\n", FIELDS[f].name, sqlt[FIELDS[f].type], f < F_COUNT - 1 ? "," : "");
        lvd_sb_adds(sb, ");\n\n");
    } else if (p->fmt == FMT_MD) {
        lvd_sb be = { 0 };
        backends_str(&be);
        int is_cpu = strstr(be.buf, "CPU") || strstr(be.buf, "BLAS") || strstr(be.buf, "ZenDNN");
        lvd_sb_free(&be);
        p->nmd = 0;
        p->md[p->nmd++] = "model";
        p->md[p->nmd++] = "size";
        p->md[p->nmd++] = "params";
        p->md[p->nmd++] = "backend";
        if (!is_cpu)
            p->md[p->nmd++] = "n_gpu_layers";
        static const int order[] = { D_NCMOE, D_NT, D_CM, D_CS, D_POLL, D_NB, D_NUB, D_TK, D_TV, D_MG, D_SM,
                                     D_NKVO, D_FA, D_DEV, D_TS, D_OT, D_LM, D_EMBD, D_NOPO, D_NOH, D_FITT, D_FITC };
        for (size_t i = 0; i < LVD_ARRAY_LEN(order); i++) {
            int d = order[i];
            if (dim_nondefault(o, d) || (d == D_NT && is_cpu)) {
                for (int f = 0; f < F_COUNT; f++)
                    if (FIELDS[f].dim == d)
                        p->md[p->nmd++] = FIELDS[f].name;
            }
        }
        p->md[p->nmd++] = "test";
        p->md[p->nmd++] = "t/s";
        lvd_sb_addc(sb, '|');
        for (int i = 0; i < p->nmd; i++)
            lvd_sb_addf(sb, " %*s |", md_width(p->md[i]), md_display(p->md[i]));
        lvd_sb_adds(sb, "\n|");
        for (int i = 0; i < p->nmd; i++) {
            int w = md_width(p->md[i]);
            lvd_sb_addc(sb, ' ');
            for (int k = 0; k < abs(w) - 1; k++)
                lvd_sb_addc(sb, '-');
            lvd_sb_adds(sb, w > 0 ? ": |" : "- |");
        }
        lvd_sb_addc(sb, '\n');
    }
}

static void print_test(printer *p, const bres *r, lvd_sb *sb)
{
    if (p->fmt == FMT_CSV) {
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_adds(sb, f ? ",\"" : "\"");
            for (const char *c = r->val[f]; *c; c++) {
                if (*c == '"')
                    lvd_sb_addc(sb, '"');
                lvd_sb_addc(sb, *c);
            }
            lvd_sb_addc(sb, '"');
        }
        lvd_sb_addc(sb, '\n');
    } else if (p->fmt == FMT_JSON) {
        if (!p->first)
            lvd_sb_adds(sb, ",\n");
        p->first = 0;
        lvd_sb_adds(sb, "  {\n");
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_addf(sb, "    \"%s\": ", FIELDS[f].name);
            json_value(sb, f, r->val[f]);
            lvd_sb_adds(sb, ",\n");
        }
        lvd_sb_adds(sb, "    \"samples_ns\": [ ");
        samples_join(sb, r, 0);
        lvd_sb_adds(sb, " ],\n    \"samples_ts\": [ ");
        samples_join(sb, r, 1);
        lvd_sb_adds(sb, " ]\n  }");
    } else if (p->fmt == FMT_JSONL) {
        lvd_sb_addc(sb, '{');
        for (int f = 0; f < F_COUNT; f++) {
            lvd_sb_addf(sb, "\"%s\": ", FIELDS[f].name);
            json_value(sb, f, r->val[f]);
            lvd_sb_adds(sb, ", ");
        }
        lvd_sb_adds(sb, "\"samples_ns\": [ ");
        samples_join(sb, r, 0);
        lvd_sb_adds(sb, " ],\"samples_ts\": [ ");
        samples_join(sb, r, 1);
        lvd_sb_adds(sb, " ]}\n");
    } else if (p->fmt == FMT_SQL) {
        lvd_sb_adds(sb, "INSERT INTO llama_bench (");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "%s%s", f ? ", " : "", FIELDS[f].name);
        lvd_sb_adds(sb, ") VALUES (");
        for (int f = 0; f < F_COUNT; f++)
            lvd_sb_addf(sb, "'%s'%s", r->val[f], f < F_COUNT - 1 ? ", " : "");
        lvd_sb_adds(sb, ");\n");
    } else if (p->fmt == FMT_MD) {
        lvd_sb_addc(sb, '|');
        for (int i = 0; i < p->nmd; i++) {
            const char *field = p->md[i];
            char *v;
            int w = md_width(field);
            if (strcmp(field, "model") == 0) {
                v = lvd_xstrdup(r->val[F_MODEL_TYPE]);
            } else if (strcmp(field, "size") == 0) {
                v = r->model_size < 1024ULL * 1024 * 1024
                        ? lvd_xasprintf("%.2f MiB", (double)r->model_size / 1024.0 / 1024.0)
                        : lvd_xasprintf("%.2f GiB", (double)r->model_size / 1024.0 / 1024.0 / 1024.0);
            } else if (strcmp(field, "params") == 0) {
                v = r->model_n_params < 1000ULL * 1000 * 1000 ? lvd_xasprintf("%.2f M", (double)r->model_n_params / 1e6)
                                                              : lvd_xasprintf("%.2f B", (double)r->model_n_params / 1e9);
            } else if (strcmp(field, "backend") == 0) {
                v = lvd_xstrdup(r->val[F_BACKENDS]);
            } else if (strcmp(field, "test") == 0) {
                if (r->n_prompt > 0 && r->n_gen == 0)
                    v = lvd_xasprintf("pp%d", r->n_prompt);
                else if (r->n_gen > 0 && r->n_prompt == 0)
                    v = lvd_xasprintf("tg%d", r->n_gen);
                else
                    v = lvd_xasprintf("pp%d+tg%d", r->n_prompt, r->n_gen);
                if (r->n_depth > 0) {
                    char *t = lvd_xasprintf("%s @ d%d", v, r->n_depth);
                    free(v);
                    v = t;
                }
            } else if (strcmp(field, "t/s") == 0) {
                v = lvd_xasprintf("%.2f \xc2\xb1 %.2f", r->avg_ts, r->stdev_ts);
                w += 1;
            } else {
                v = lvd_xstrdup(r->val[field_index(field)]);
            }
            lvd_sb_addf(sb, " %*s |", w, v);
            free(v);
        }
        lvd_sb_addc(sb, '\n');
    }
}

static void print_footer(printer *p, lvd_sb *sb)
{
    if (p->fmt == FMT_JSON)
        lvd_sb_adds(sb, "\n]\n");
    else if (p->fmt == FMT_MD)
        lvd_sb_addf(sb, "\nbuild: %s (%ld)\n", build_commit(), build_number());
}

static void emit(FILE *f, lvd_sb *sb)
{
    fwrite(sb->buf ? sb->buf : "", 1, sb->len, f);
    fflush(f);
    lvd_sb_reset(sb);
}

/* Fills r for instance j (model meta m, target T) except the statistics. */
static void bench_fill(const bench_opts *o, const binst *in, size_t j, const model_meta *m, bres *r)
{
    lvd_sb sb = { 0 };
    r->val[F_BUILD_COMMIT] = lvd_xstrdup(build_commit());
    r->val[F_BUILD_NUMBER] = lvd_xasprintf("%ld", build_number());
    r->val[F_CPU_INFO] = lvd_xstrdup(scn_str("cpu_info", "AMD EPYC"));
    gpu_info_str(&sb);
    r->val[F_GPU_INFO] = lvd_xstrdup(lvd_sb_str(&sb));
    lvd_sb_reset(&sb);
    backends_str(&sb);
    r->val[F_BACKENDS] = lvd_xstrdup(lvd_sb_str(&sb));
    lvd_sb_free(&sb);
    r->val[F_MODEL_TYPE] = lvd_xstrdup(m->type);
    r->val[F_MODEL_SIZE] = lvd_xasprintf("%" PRIu64, m->size);
    r->val[F_MODEL_N_PARAMS] = lvd_xasprintf("%" PRIu64, m->n_params);
    r->model_size = m->size;
    r->model_n_params = m->n_params;
    for (int f = 0; f < F_COUNT; f++)
        if (FIELDS[f].dim >= 0)
            r->val[f] = lvd_xstrdup(o->dim[FIELDS[f].dim].v[in->ix[FIELDS[f].dim]]);
    r->n_prompt = in->n_prompt;
    r->n_gen = in->n_gen;
    r->n_depth = atoi(r->val[F_N_DEPTH]);
    r->val[F_N_PROMPT] = lvd_xasprintf("%d", in->n_prompt);
    r->val[F_N_GEN] = lvd_xasprintf("%d", in->n_gen);
    int line = 0;
    char *tt = nth_item("test_time", j, &line);
    if (!tt) {
        char buf[64];
        time_t t = time(NULL);
        struct tm tm;
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        tt = lvd_xstrdup(buf);
    }
    r->val[F_TEST_TIME] = tt;
}

static void bench_fault(fault_t f, const bres *r, const char *model)
{
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stdout);
    if (f == F_EXIT1) {
        fprintf(stderr, "llama_bench: error: failed to create context with model '%s'\n", model);
        flush_all();
        _exit(1);
    }
    if (f == F_CRASH || f == F_TRUNCATED) {
        lvd_sb sb = { 0 };
        printer p = { .fmt = FMT_JSONL };
        print_test(&p, r, &sb);
        partial_now(stdout, sb.buf, f);
    }
}

static int bench_main(int argc, char **argv)
{
    print_backend_init();
    bench_opts o;
    int rc = bench_parse(argc, argv, &o);
    if (rc != 0) {
        bench_opts_free(&o);
        return rc < 0 ? 1 : 0;
    }
    /* load every model once, as the real tool does before its first test */
    size_t nm = o.dim[D_MODEL].n;
    model_meta *meta = lvd_xcalloc(nm, sizeof *meta);
    int *bad = lvd_xcalloc(nm, sizeof *bad), failed = 0;
    for (size_t i = 0; i < nm; i++)
        bad[i] = model_load(o.dim[D_MODEL].v[i], &meta[i]) != 0;

    printer p = { .fmt = o.fmt }, pe = { .fmt = o.fmt_err };
    lvd_sb sb = { 0 };
    print_header(&p, &o, &sb);
    emit(stdout, &sb);
    print_header(&pe, &o, &sb);
    emit(stderr, &sb);

    binst_list il = { 0 };
    bench_instances(&o, &il);
    size_t last_bad = (size_t)-1;
    for (size_t j = 0; j < il.n; j++) {
        const binst *in = &il.v[j];
        size_t mi = in->ix[D_MODEL];
        const char *model = o.dim[D_MODEL].v[mi];
        if (o.progress)
            fprintf(stderr, "llama-bench: benchmark %zu/%zu: starting\n", j + 1, il.n);
        if (bad[mi]) {
            if (last_bad != mi)
                fprintf(stderr, "llama_bench: error: failed to load model '%s'\n", model);
            last_bad = mi;
            failed++;
            continue;
        }
        char *T = pick_target(o.dim[D_DEV].v[in->ix[D_DEV]], '/', strcmp(o.dim[D_NGL].v[in->ix[D_NGL]], "0") == 0);
        bres r = { 0 };
        bench_fill(&o, in, j, &meta[mi], &r);
        if (o.progress && !o.no_warmup) {
            if (in->n_prompt)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup prompt run\n", j + 1, il.n);
            if (in->n_gen)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup generation run\n", j + 1, il.n);
        }
        double sim = bench_samples(&o, in, j, T, &r);
        if (o.progress)
            for (int k = 0; k < o.reps; k++) {
                if (in->n_prompt)
                    fprintf(stderr, "llama-bench: benchmark %zu/%zu: prompt run %d/%d\n", j + 1, il.n, k + 1, o.reps);
                if (in->n_gen)
                    fprintf(stderr, "llama-bench: benchmark %zu/%zu: generation run %d/%d\n", j + 1, il.n, k + 1,
                            o.reps);
            }
        bres_stats(&r);
        fault_t f = fault_for("bench", T);
        if (f != F_NONE)
            bench_fault(f, &r, model);
        if (o.delay > 0)
            sleep_ms(o.delay * 1000.0);
        do_work_sleep(sim);
        print_test(&p, &r, &sb);
        emit(stdout, &sb);
        print_test(&pe, &r, &sb);
        emit(stderr, &sb);
        bres_free(&r);
        free(T);
    }
    print_footer(&p, &sb);
    emit(stdout, &sb);
    print_footer(&pe, &sb);
    emit(stderr, &sb);
    lvd_sb_free(&sb);
    free(il.v);
    for (size_t i = 0; i < nm; i++)
        free(meta[i].type);
    free(meta);
    free(bad);
    bench_opts_free(&o);
    return failed ? 1 : 0;
}

/* ------------------------------------- llama-server and llama-perplexity */

/* common/arg.cpp options that the fake knows. value: 1 when it takes one. */
typedef struct copt {
    const char *names; /* '|'-separated */
    int value;
    int where;         /* 1 server, 2 perplexity, 3 both */
} copt;

static const copt COPTS[] = {
    /* options the fake reads (the first name is the lookup key) */
    { "-h|--help|--usage", 0, 3 },
    { "--version", 0, 3 },
    { "--list-devices", 0, 3 },
    { "-m|--model", 1, 3 },
    { "-t|--threads", 1, 3 },
    { "-c|--ctx-size", 1, 3 },
    { "-b|--batch-size", 1, 3 },
    { "-ub|--ubatch-size", 1, 3 },
    { "-fa|--flash-attn", 1, 3 },
    { "-ctk|--cache-type-k", 1, 3 },
    { "-ctv|--cache-type-v", 1, 3 },
    { "-dev|--device", 1, 3 },
    { "-ncmoe|--n-cpu-moe", 1, 3 },
    { "-ngl|--gpu-layers|--n-gpu-layers", 1, 3 },
    { "-np|--parallel", 1, 3 },
    { "--host", 1, 1 },
    { "--port", 1, 1 },
    { "--api-key", 1, 1 },
    { "--api-key-file", 1, 1 },
    { "-f|--file", 1, 2 },
    { "--chunks", 1, 2 },
    { "--kl-divergence-base", 1, 2 },
    { "--kl-divergence", 0, 2 },
    /* options accepted and ignored */
    { "-tb|--threads-batch|-n|--predict|--n-predict|-lm|--load-mode|--numa|-ot|--override-tensor", 1, 3 },
    { "-sm|--split-mode|-ts|--tensor-split|-mg|--main-gpu|-fitt|--fit-target|-fitc|--fit-ctx", 1, 3 },
    { "-s|--seed|--prio|--poll|-C|--cpu-mask|-Cr|--cpu-range|--cpu-strict|--log-file|--keep", 1, 3 },
    { "-lv|--verbosity|--log-verbosity|--lora|--temp|--top-k|--top-p|--min-p", 1, 3 },
    { "-kvo|--kv-offload|-nkvo|--no-kv-offload|--mlock|--mmap|--no-mmap|--swa-full|--no-host", 0, 3 },
    { "--check-tensors|--offline|--repack|-nr|--no-repack|--op-offload|--no-op-offload", 0, 3 },
    { "--warmup|--no-warmup|-kvu|--kv-unified|-no-kvu|--no-kv-unified|--perf|--no-perf", 0, 3 },
    { "-e|--escape|--no-escape|-cb|--cont-batching|-nocb|--no-cont-batching|-cmoe|--cpu-moe", 0, 3 },
    { "--log-disable|-v|--verbose|--log-verbose|--log-prefix|--no-log-prefix", 0, 3 },
    { "--log-timestamps|--no-log-timestamps", 0, 3 },
    { "-fit|--fit|--log-colors", 1, 3 },
    { "-a|--alias|--chat-template|--chat-template-file|-to|--timeout|--threads-http|--path", 1, 1 },
    { "--api-prefix|--cache-reuse|-cram|--cache-ram|--ssl-key-file|--ssl-cert-file", 1, 1 },
    { "--sleep-idle-seconds|--reasoning-format|--reasoning-budget|--pooling|-mm|--mmproj", 1, 1 },
    { "-sps|--slot-prompt-similarity|--slot-save-path|--media-path|--models-dir|--models-max", 1, 1 },
    { "-md|--model-draft|-ngld|--gpu-layers-draft|--n-gpu-layers-draft|-devd|--device-draft|--tags", 1, 1 },
    { "--jinja|--no-jinja|--metrics|--props|--slots|--no-slots|--ui|--webui|--no-ui|--no-webui", 0, 1 },
    { "--reuse-port|--cache-prompt|--no-cache-prompt|--embedding|--embeddings|--rerank|--reranking", 0, 1 },
    { "--no-mmproj|--mmproj-offload|--no-mmproj-offload|--context-shift|--no-context-shift", 0, 1 },
    { "--spec-default", 0, 1 },
    { "-rea|--reasoning", 1, 1 },
    { "--ppl-stride|--ppl-output-type|--hellaswag-tasks|--winogrande-tasks|--multiple-choice-tasks", 1, 2 },
    { "--hellaswag|--winogrande|--multiple-choice|--all-logits", 0, 2 },
};

static const copt *copt_find(const char *arg, int where)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(COPTS); i++) {
        if (!(COPTS[i].where & where))
            continue;
        const char *p = COPTS[i].names;
        size_t al = strlen(arg);
        while (*p) {
            size_t n = strcspn(p, "|");
            if (n == al && strncmp(p, arg, n) == 0)
                return &COPTS[i];
            p += n + (p[n] ? 1 : 0);
        }
    }
    return NULL;
}

/* The canonical (first) name of an option, for lookups. */
static int copt_is(const copt *o, const char *first)
{
    size_t n = strcspn(o->names, "|");
    return strlen(first) == n && strncmp(o->names, first, n) == 0;
}

typedef struct cargs {
    strv key, val; /* canonical option name -> last value ("" for flags) */
    int ngl_given;
} cargs;

static const char *opt_get(const cargs *c, const char *key)
{
    for (size_t i = c->key.n; i-- > 0;)
        if (strcmp(c->key.v[i], key) == 0)
            return c->val.v[i];
    return NULL;
}

static void cargs_free(cargs *c)
{
    strv_clear(&c->key);
    strv_clear(&c->val);
}

static int common_arg_error(const char *arg, const char *msg)
{
    fprintf(stderr, "error while handling argument \"%s\": %s\n\nto show complete usage, run with -h\n", arg, msg);
    return -1;
}

/* Validates one value the way common/arg.cpp would; 0 or -1 (printed). */
static int common_check_value(const copt *o, const char *arg, const char *v)
{
    static const char *const kv_types[] = { "f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1", NULL };
    if (copt_is(o, "-ngl")) {
        if (!is_int(v, 1) && strcmp(v, "auto") != 0 && strcmp(v, "all") != 0)
            return common_arg_error(arg, "stoi");
    } else if (copt_is(o, "-c") || copt_is(o, "-ub") || copt_is(o, "-b") || copt_is(o, "-ncmoe") ||
               copt_is(o, "--port") || copt_is(o, "--chunks") || copt_is(o, "-np") || copt_is(o, "-t")) {
        if (!is_int(v, 1))
            return common_arg_error(arg, "stoi");
    } else if (copt_is(o, "-fa")) {
        if (!fa_value(v))
            return common_arg_error(arg, "unknown value for --flash-attn");
    } else if (copt_is(o, "-ctk") || copt_is(o, "-ctv")) {
        if (!in_list(v, kv_types))
            return common_arg_error(arg, "Unsupported cache type");
    } else if (copt_is(o, "-dev")) {
        char **names = lvd_split(v, ',', NULL);
        int rc = names[0] ? 0 : common_arg_error(arg, "no devices specified");
        for (size_t i = 0; names[i] && rc == 0; i++) {
            char *n = trim(names[i]);
            if (strcmp(n, "none") != 0 && !dev_by_name(n)) {
                char *m = lvd_xasprintf("invalid device: %s", n);
                rc = common_arg_error(arg, m);
                free(m);
            }
        }
        lvd_strv_free(names);
        return rc;
    }
    return 0;
}

/* Parses a server/perplexity argv. -1: error (exit 1); 1: handled (exit 0);
 * 0: go on. where: 1 server, 2 perplexity. */
static int common_parse(int argc, char **argv, int where, cargs *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const copt *o = copt_find(arg, where);
        if (!o) {
            fprintf(stderr, "error: invalid argument: %s\n", arg);
            return -1;
        }
        const char *v = "";
        if (o->value == 1) {
            if (i + 1 >= argc)
                return common_arg_error(arg, "expected value for argument");
            v = argv[++i];
        }
        if (common_check_value(o, arg, v) != 0)
            return -1;
        size_t n = strcspn(o->names, "|");
        char *key = lvd_xstrndup(o->names, n);
        strv_push(&c->key, key);
        strv_push(&c->val, v);
        free(key);
        if (copt_is(o, "-h")) {
            printf("----- common params -----\n\n"
                   "-h,    --help, --usage                  print usage and exit\n"
                   "--version                               show version and build info\n"
                   "-m,    --model FNAME                    model path to load\n"
                   "-dev,  --device <dev1,dev2,..>          comma-separated list of devices to use for "
                   "offloading (none = don't\n"
                   "                                        offload)\n"
                   "-ngl,  --gpu-layers, --n-gpu-layers N   max. number of layers to store in VRAM, either an "
                   "exact number,\n"
                   "                                        'auto', or 'all' (default: auto)\n"
                   "(fake-engine: a subset of the real options)\n");
            return 1;
        }
        if (copt_is(o, "--version")) {
            version_lines();
            return 1;
        }
        if (copt_is(o, "--list-devices")) {
            bench_list_devices();
            return 1;
        }
        if (copt_is(o, "-ngl")) {
            c->ngl_given = 1;
            if (!gpu_build())
                no_gpu_warning();
        }
    }
    return 0;
}

/* The target of a server/perplexity run from --device and -ngl. */
static char *common_target(const cargs *c)
{
    const char *ngl = opt_get(c, "-ngl");
    return pick_target(opt_get(c, "-dev"), ',', ngl && strcmp(ngl, "0") == 0);
}

static void system_info(int threads)
{
    lvd_sb sb = { 0 };
    if (gpu_build())
        for (size_t i = 0; i < G.ndev; i++)
            if (strcmp(G.dev[i].backend, "CUDA") == 0) {
                char arch[16] = { 0 };
                size_t k = 0;
                for (const char *p = G.dev[i].extra; *p && k < 8; p++)
                    if (isdigit((unsigned char)*p))
                        arch[k++] = *p;
                lvd_sb_addf(&sb, "CUDA : ARCHS = %s0 | USE_GRAPHS = 1 | ", arch);
                break;
            }
    log_line('I', "\n");
    log_line('I', "system_info: n_threads = %d (n_threads_batch = %d) / %d | %sCPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | "
              "AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | \n",
         threads, threads, threads, lvd_sb_str(&sb));
    lvd_sb_free(&sb);
}

/* ----------------------------------------------------------- llama-server */

static int server_main(int argc, char **argv)
{
    cargs c;
    int rc = common_parse(argc, argv, 1, &c);
    if (rc != 0) {
        cargs_free(&c);
        return rc < 0 ? 1 : 0;
    }
    char *T = common_target(&c);
    const char *model = opt_get(&c, "-m");
    fault_t f = fault_for("server", T);
    G.log_us = 2122;
    log_line('I', "cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)\n");
    if (!opt_get(&c, "--api-key") && !opt_get(&c, "--api-key-file")) {
        log_line('W', "srv  llama_server: -----------------\n");
        log_line('W', "srv  llama_server: CORS is set to allow all origins ('*') and no API key is set\n");
        log_line('W', "srv  llama_server: this can be a security risk (cross-origin attacks)\n");
        log_line('W', "srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/25655\n");
        log_line('W', "srv  llama_server: -----------------\n");
    }
    log_line('I', "srv    load_model: loading model '%s'\n", model ? model : "");
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stderr);
    if (f == F_CRASH || f == F_TRUNCATED)
        partial_now(stderr, "srv    load_model: initializing, n_slots = 4", f);
    model_meta m;
    if (f == F_EXIT1 || !model || model_load(model, &m) != 0) {
        log_line('E', "srv    load_model: failed to load model, '%s'\n", model ? model : "");
        log_line('I', "srv    operator(): operator(): cleaning up before exit...\n");
        log_line('E', "main: exiting due to model loading error\n");
        free(T);
        cargs_free(&c);
        return 1;
    }
    free(m.type);
    const char *ctx = opt_get(&c, "-c");
    const char *np = opt_get(&c, "-np");
    long n_ctx = ctx && atol(ctx) > 0 ? atol(ctx) : 4096;
    long n_slots = np && atol(np) > 0 ? atol(np) : 4;
    do_work_sleep(0);
    log_line('I', "srv    load_model: initializing, n_slots = %ld, n_ctx_slot = %ld, kv_unified = 'true'\n", n_slots,
         n_ctx);
    log_line('I', "srv  llama_server: model loaded\n");
    const char *chk = getenv("FAKE_SERVER_CHECK");
    if (streq(chk, "1") || scn_long("server_check", 0) == 1) {
        free(T);
        cargs_free(&c);
        return 0;
    }
    const char *host = opt_get(&c, "--host"), *port = opt_get(&c, "--port");
    log_line('I', "srv  llama_server: listening on http://%s:%s\n", host ? host : "127.0.0.1", port ? port : "8080");
    G.log_us += 5103637;
    log_line('I', "srv    operator(): operator(): cleaning up before exit...\n");
    free(T);
    cargs_free(&c);
    return 0;
}

/* -------------------------------------------------------- llama-perplexity */

static double target_num(const char *T, const char *name, double cpu_def, double dev_def)
{
    const lvd_kv *e = scn_layered(T, NULL, name);
    return e ? ent_dbl(e) : (strcmp(T, "cpu") == 0 ? cpu_def : dev_def);
}

/* The per-chunk PPLs of target T over n chunks (the last is the final PPL). */
static void ppl_series(const char *T, int n, double *out)
{
    const lvd_kv *e = scn_find("ppl");
    double vals[256];
    size_t nv = e ? dbl_list(e, vals, LVD_ARRAY_LEN(vals)) : 0;
    double ratio = target_num(T, "ppl_ratio", 1.0, 1.0);
    for (int i = 0; i < n; i++) {
        double v;
        if (nv > 1)
            v = vals[(size_t)i < nv ? (size_t)i : nv - 1];
        else
            v = (nv ? vals[0] : 32813.2123) * (1 - 0.01 * (n - 1 - i) / (n > 1 ? n - 1 : 1));
        out[i] = v * ratio;
    }
}

static const char *KLD_MAGIC = "\nfake-kld-base v1\nppl";

static int kld_write(const char *path, int n_ctx, int n_chunk, const double *ppl)
{
    lvd_sb sb = { 0 };
    uint32_t nc = (uint32_t)n_ctx;
    int32_t nvocab = 32000, nch = n_chunk;
    lvd_sb_add(&sb, "_logits_", 8);
    lvd_sb_add(&sb, &nc, 4);
    lvd_sb_add(&sb, &nvocab, 4);
    lvd_sb_add(&sb, &nch, 4);
    lvd_sb_adds(&sb, KLD_MAGIC);
    for (int i = 0; i < n_chunk; i++)
        lvd_sb_addf(&sb, " %.10g", ppl[i]);
    lvd_sb_addc(&sb, '\n');
    lvd_err err;
    int rc = lvd_write_file_atomic(path, sb.buf, sb.len, &err);
    lvd_sb_free(&sb);
    return rc;
}

/* Reads a base file: returns its chunk count (0 on error, message logged). */
static int kld_read(const char *path, int n_ctx, double *ppl, int max)
{
    lvd_sb sb = { 0 };
    lvd_err err;
    if (lvd_read_file(path, 16 << 20, &sb, &err) != 0) {
        lvd_sb_free(&sb);
        log_line('E', "kl_divergence: failed to open %s\n", path);
        return 0;
    }
    if (sb.len < 20 || memcmp(sb.buf, "_logits_", 8) != 0) {
        lvd_sb_free(&sb);
        log_line('E', "kl_divergence: %s does not look like a file containing log-probabilities\n", path);
        return 0;
    }
    uint32_t nc;
    memcpy(&nc, sb.buf + 8, 4);
    if ((int)nc > n_ctx)
        log_line('E', "kl_divergence: %s has been computed with %u, while the current context is %d. Increase it "
                  "with -c and retry\n",
             path, nc, n_ctx);
    const char *p = memmem(sb.buf, sb.len, KLD_MAGIC, strlen(KLD_MAGIC));
    int n = 0;
    if (p) {
        p += strlen(KLD_MAGIC);
        char *end;
        for (double v = strtod(p, &end); end != p && n < max; v = strtod(p, &end)) {
            ppl[n++] = v;
            p = end;
        }
    }
    if (!n)
        log_line('E', "kl_divergence: failed reading log-probs for chunk 0\n");
    lvd_sb_free(&sb);
    return n;
}

static void kld_report(const char *T, int n_chunk, int n_ctx, const double *q, const double *base)
{
    double kld = target_num(T, "kld", 0.0, 0.0001);
    double top = target_num(T, "same_top_p", 100.0, 99.5) / 100.0;
    int per_chunk = n_ctx - 1 - n_ctx / 2;
    printf("\nchunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              "
           "\xce\x94p RMS            Same top p\n");
    for (int i = 0; i < n_chunk; i++) {
        double count = (double)per_chunk * (i + 1);
        double unc = q[i] * 0.38673 / sqrt(count > 1 ? count - 1 : 1);
        double lr = log(q[i] / base[i]);
        printf("%4d", i + 1);
        printf("    %9.4lf \xc2\xb1 %9.4lf", q[i], unc);
        if (kld == 0)
            printf("    %10.5lf \xc2\xb1 %10s", lr, "-nan");
        else
            printf("    %10.5lf \xc2\xb1 %10.5lf", lr, sqrt(2 * kld / count));
        printf("    %10.5lf \xc2\xb1 %10.5lf", kld, kld * 0.1);
        printf("    %6.3lf \xc2\xb1 %6.3lf %%", 100 * sqrt(kld) * 0.7, 100 * sqrt(kld) * 0.05);
        printf("    %6.3lf \xc2\xb1 %6.3lf %%", 100 * top, 100 * sqrt(top * (1 - top) / (count - 1)));
        printf("\n");
    }
    printf("\n");
    double count = (double)per_chunk * n_chunk;
    if (count < 100)
        return;
    double Q = q[n_chunk - 1], B = base[n_chunk - 1];
    double qu = Q * 0.38673 / sqrt(count - 1), bu = B * 0.38673 / sqrt(count - 1);
    double lr = log(Q / B), lru = kld == 0 ? 0 : sqrt(2 * kld / count);
    printf("====== Perplexity statistics ======\n");
    printf("Mean PPL(Q)                   : %10.6lf \xc2\xb1 %10.6lf\n", Q, qu);
    printf("Mean PPL(base)                : %10.6lf \xc2\xb1 %10.6lf\n", B, bu);
    printf("Cor(ln(PPL(Q)), ln(PPL(base))): %6.2lf%%\n", 100.0 * (1 - kld));
    if (kld == 0) {
        printf("Mean ln(PPL(Q)/PPL(base))     : %10.6lf \xc2\xb1 %10s\n", lr, "-nan");
        printf("Mean PPL(Q)/PPL(base)         : %10.6lf \xc2\xb1 %10s\n", Q / B, "-nan");
        printf("Mean PPL(Q)-PPL(base)         : %10.6lf \xc2\xb1 %10s\n", Q - B, "-nan");
    } else {
        printf("Mean ln(PPL(Q)/PPL(base))     : %10.6lf \xc2\xb1 %10.6lf\n", lr, lru);
        printf("Mean PPL(Q)/PPL(base)         : %10.6lf \xc2\xb1 %10.6lf\n", Q / B, Q / B * lru);
        printf("Mean PPL(Q)-PPL(base)         : %10.6lf \xc2\xb1 %10.6lf\n", Q - B, Q * lru);
    }
    printf("\n");
    printf("====== KL divergence statistics ======\n");
    printf("Mean    KLD: %10.6lf \xc2\xb1 %10.6lf\n", kld, kld * 0.1 / sqrt(count));
    static const struct {
        const char *label;
        double f;
    } kq[] = { { "Maximum KLD", 20 }, { "99.9%   KLD", 15 }, { "99.0%   KLD", 8 }, { "95.0%   KLD", 4 },
               { "90.0%   KLD", 2.5 }, { "Median  KLD", 0.6 }, { "10.0%   KLD", 0.05 }, { " 5.0%   KLD", 0.02 },
               { " 1.0%   KLD", 0.005 }, { " 0.1%   KLD", 0.001 }, { "Minimum KLD", 0 } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(kq); i++)
        printf("%s: %10.6f\n", kq[i].label, kld * kq[i].f);
    printf("\n");
    printf("====== Token probability statistics ======\n");
    double rms = sqrt(kld) * 0.7;
    printf("Mean    \xce\x94p: %6.3lf \xc2\xb1 %5.3lf %%\n", -100 * rms * 0.05 + 0.0, 100 * rms * 0.01);
    static const struct {
        const char *label;
        double f;
    } pq[] = { { "Maximum", 4 }, { "99.9%  ", 3 }, { "99.0%  ", 2 }, { "95.0%  ", 1.2 }, { "90.0%  ", 0.8 },
               { "75.0%  ", 0.2 }, { "Median ", 0 }, { "25.0%  ", -0.2 }, { "10.0%  ", -0.8 }, { " 5.0%  ", -1.2 },
               { " 1.0%  ", -2 }, { " 0.1%  ", -3 }, { "Minimum", -4 } };
    for (size_t i = 0; i < LVD_ARRAY_LEN(pq); i++)
        printf("%s \xce\x94p: %6.3lf%%\n", pq[i].label, 100 * rms * pq[i].f);
    printf("RMS \xce\x94p    : %6.3lf \xc2\xb1 %5.3lf %%\n", 100 * rms, 100 * rms * 0.05);
    printf("Same top p: %6.3lf \xc2\xb1 %5.3lf %%\n", 100 * top, 100 * sqrt(top * (1 - top) / (count - 1)));
}

static int ppl_main(int argc, char **argv)
{
    cargs c;
    int rc = common_parse(argc, argv, 2, &c);
    if (rc != 0) {
        cargs_free(&c);
        return rc < 0 ? 1 : 0;
    }
    const char *model = opt_get(&c, "-m"), *file = opt_get(&c, "-f");
    const char *base = opt_get(&c, "--kl-divergence-base");
    int kld_mode = opt_get(&c, "--kl-divergence") != NULL;
    int n_ctx = opt_get(&c, "-c") ? atoi(opt_get(&c, "-c")) : 512;
    int n_batch = opt_get(&c, "-b") ? atoi(opt_get(&c, "-b")) : 2048;
    int chunks = opt_get(&c, "--chunks") ? atoi(opt_get(&c, "--chunks")) : -1;
    int threads = opt_get(&c, "-t") ? atoi(opt_get(&c, "-t")) : (int)scn_long("threads", 2);
    char *T = common_target(&c);
    fault_t f = fault_for("ppl", T);
    G.log_us = 230000;
    lvd_sb text = { 0 };
    lvd_err err;
    if (file && lvd_read_file(file, 256 << 20, &text, &err) != 0) {
        fprintf(stderr, "error: failed to open file '%s'\n", file);
        goto fail;
    }
    model_meta m;
    if (f == F_EXIT1 || !model || model_load(model, &m) != 0) {
        log_line('E', "common_init_from_params: failed to load model '%s'\n", model ? model : "");
        log_line('E', "main: unable to load model\n");
        goto fail;
    }
    free(m.type);
    if (n_ctx <= 0) {
        log_line('E', "main: perplexity tool requires '--ctx-size' > 0\n");
        goto fail;
    }
    system_info(threads);
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stdout);
    int n_seq = n_batch / n_ctx > 1 ? n_batch / n_ctx : 1;
    int batch = n_batch < n_seq * n_ctx ? n_batch : n_seq * n_ctx;
    long tokens = (long)(text.len / 4);
    int n_chunk_max = (int)(tokens / n_ctx);
    int n_chunk = chunks < 0 || chunks > n_chunk_max ? n_chunk_max : chunks;
    const char *who = kld_mode ? "kl_divergence" : "perplexity";
    double *q = NULL, *b = NULL;
    if (kld_mode && !base) {
        log_line('E', "kl_divergence: you must provide a name of a file containing the log probabilities of the base "
                  "model\n");
        printf("\n");
        goto done;
    }
    if (kld_mode) {
        b = lvd_xcalloc(1024, sizeof *b);
        int nb = kld_read(base, n_ctx, b, 1024);
        if (!nb) {
            printf("\n");
            goto done;
        }
        if (n_chunk > nb)
            n_chunk = nb;
    } else {
        if (base)
            log_line('I', "perplexity: saving all logits to %s\n", base);
        log_line('I', "perplexity: tokenizing the input ..\n");
        log_line('I', "perplexity: tokenization took %g ms\n", (double)tokens * 0.0015 + 0.2);
        if (tokens < 2L * n_ctx) {
            log_line('E', "perplexity: you need at least %d tokens to evaluate perplexity with a context of %d\n",
                 2 * n_ctx, n_ctx);
            log_line('E', "perplexity: the data file you provided tokenizes to only %ld tokens\n", tokens);
            printf("\n");
            goto done;
        }
    }
    if (n_chunk < 1)
        n_chunk = 1;
    q = lvd_xcalloc((size_t)n_chunk, sizeof *q);
    ppl_series(T, n_chunk, q);
    log_line('I', "%s: %s over %d chunks, n_ctx=%d, batch_size=%d, n_seq=%d\n", who,
         kld_mode ? "computing" : "calculating perplexity", n_chunk, n_ctx, batch, n_seq);
    double t_pass = (double)n_ctx * n_seq / base_speed(T, "pp");
    G.log_us += (int64_t)(t_pass * 1e6);
    log_line('I', "%s: %.2f seconds per pass - ETA ", who, t_pass);
    fflush(stderr);
    int total_s = (int)(t_pass * n_chunk / (kld_mode ? 1 : n_seq));
    lvd_sb out = { 0 };
    if (total_s >= 3600)
        lvd_sb_addf(&out, "%d hours ", total_s / 3600);
    lvd_sb_addf(&out, "%.2f minutes\n", (total_s % 3600) / 60.0);
    if (f == F_CRASH || f == F_TRUNCATED) {
        for (int i = 0; i < n_chunk; i++)
            lvd_sb_addf(&out, "[%d]%.4lf,", i + 1, q[i]);
        char *s = lvd_sb_detach(&out);
        /* the whole first line plus half of the chunk line */
        char *nl = strchr(s, '\n');
        fwrite(s, 1, (size_t)(nl - s + 1), stdout);
        partial_now(stdout, nl + 1, f);
    }
    fputs(lvd_sb_str(&out), stdout);
    lvd_sb_free(&out);
    do_work_sleep(t_pass * n_chunk * 1e9);
    if (kld_mode) {
        kld_report(T, n_chunk, n_ctx, q, b);
    } else {
        for (int i = 0; i < n_chunk; i++) {
            printf("[%d]%.4lf,", i + 1, q[i]);
            fflush(stdout);
        }
        printf("\n");
        fflush(stdout);
        if (base && kld_write(base, n_ctx, n_chunk, q) != 0)
            log_line('E', "perplexity: failed to open %s for writing\n", base);
        double count = (double)n_chunk * (n_ctx - 1 - n_ctx / 2);
        log_line('I', "Final estimate: PPL = %.4lf +/- %.5lf\n", q[n_chunk - 1],
             q[n_chunk - 1] * 0.38673 / sqrt(count > 1 ? count - 1 : 1));
    }
    printf("\n");
done:
    free(q);
    free(b);
    lvd_sb_free(&text);
    free(T);
    cargs_free(&c);
    return 0;
fail:
    lvd_sb_free(&text);
    free(T);
    cargs_free(&c);
    return 1;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *persona;
    } personas[] = { { "llama-bench", "bench" }, { "llama-server", "server" }, { "llama-perplexity", "ppl" } };
    const char *argv0 = argc > 0 ? argv[0] : "fake-engine";
    const char *bn = lvd_base_name(argv0);
    int shift = 0;
    for (int pass = 0; pass < 2 && !G.persona; pass++) {
        const char *cand = pass == 0 ? bn : (argc > 1 ? argv[1] : "");
        for (size_t i = 0; i < LVD_ARRAY_LEN(personas); i++)
            if (strcmp(cand, personas[i].name) == 0) {
                G.persona = personas[i].persona;
                shift = pass;
            }
    }
    if (!G.persona) {
        fprintf(stderr, "fake-engine: unknown persona '%s' (invoke as llama-bench, llama-server or "
                        "llama-perplexity, or as fake-engine llama-bench ...)\n",
                bn);
        return 2;
    }
    G.prog = shift ? argv[1] : argv0;
    scn_load(argv0);
    int ac = argc - shift;
    char **av = argv + shift;
    inv_start(ac, av, lvd_base_name(G.prog));
    int rc;
    if (strcmp(G.persona, "bench") == 0)
        rc = bench_main(ac, av);
    else if (strcmp(G.persona, "server") == 0)
        rc = server_main(ac, av);
    else
        rc = ppl_main(ac, av);
    flush_all();
    fake_free();
    return rc;
}
