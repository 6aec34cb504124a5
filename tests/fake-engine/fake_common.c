/* fake_common.c: the fake engine's shared helpers (see fake.h): strings and
 * lists, the invocation's start (index, seed, the log line), the
 * deterministic rng, the fake log clock, the faults (crash, hang, garbage,
 * exit1, truncated), model loading and the speed rules. Not for reading the
 * scenario (scenario.c) or for any one persona's output. */
#include "fake.h"

fake_state G;

/* ------------------------------------------------------------------ helpers */

char *dir_name(const char *p)
{
    const char *s = strrchr(p, '/');
    if (!s)
        return lvd_xstrdup(".");
    if (s == p)
        return lvd_xstrdup("/");
    return lvd_xstrndup(p, (size_t)(s - p));
}

char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

void strv_push(strv *s, const char *x)
{
    lvd_strv_push(&s->v, &s->n, lvd_xstrdup(x));
}

void strv_clear(strv *s)
{
    lvd_strv_free(s->v);
    s->v = NULL;
    s->n = 0;
}

int streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

void fake_free(void)
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

void flush_all(void)
{
    fflush(stdout);
    fflush(stderr);
}

void sleep_ms(double ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
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

double rng_normal(void)
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

/* A log word: shell-quoted as common/util.h lvd_shell_quote quotes launch lines, but a word
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
void inv_start(int argc, char **argv, const char *persona_name)
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
    for (int i = 1; i < argc; i++) {
        /* the model by its file name: the draws do not depend on where the checkout is */
        const char *a = argv[i], *slash;
        if ((!strcmp(argv[i - 1], "-m") || !strcmp(argv[i - 1], "--model")) && (slash = strrchr(a, '/')))
            a = slash + 1;
        h = fnv1a(h, a, strlen(a) + 1);
    }
    G.rng = h;

    const lvd_kv *le = scn_find("log");
    if (!le || !*le->value)
        return;
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
    scn_append("log", line.buf, line.len);
    lvd_sb_free(&line);
}

void scn_append(const char *key, const char *text, size_t n)
{
    const lvd_kv *e = scn_find(key);
    if (!e || !*e->value)
        return;
    char *path = e->value[0] == '/' ? lvd_xstrdup(e->value) : lvd_xasprintf("%s/%s", G.state_dir, e->value);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        write_all(fd, text, n);
        close(fd);
    }
    free(path);
}

/* common/log.cpp's prefix: minutes.seconds.millis.micros LEVEL. The clock is
 * fake and deterministic. */
void log_line(char level, const char *fmt, ...)
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

fault_t parse_fault(const lvd_kv *e)
{
    static const char *const names[] = { "none", "crash", "hang", "garbage", "exit1", "truncated", "oom", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp(e->value, names[i]) == 0)
            return (fault_t)i;
    die_scn(e->line, "%s: expected none, crash, hang, garbage, exit1, truncated or oom", e->key);
}

/* The fault for persona key P ("bench", "server", "ppl", "list_devices") on
 * target T (may be NULL), honouring fault_after. */
fault_t fault_for(const char *P, const char *T)
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

void __attribute__((noreturn)) hang_now(void)
{
    flush_all();
    long s = scn_long("hang_s", 600);
    time_t end = time(NULL) + s;
    while (time(NULL) < end)
        sleep(1);
    _exit(124);
}

void __attribute__((noreturn)) garbage_now(FILE *f)
{
    fputs("@@@ fake-engine garbage @@@ {\"build_commit\": [[[ <<<\n"
          "%%%% 0xDEADBEEF not json at all\n"
          "}}} ~~~ ggml_abort?? \n",
          f);
    flush_all();
    _exit(0);
}

/* Crash or truncate after writing the first half of the first line of text to f. */
void __attribute__((noreturn)) partial_now(FILE *f, const char *text, fault_t fault)
{
    size_t line = strcspn(text, "\n");
    fwrite(text, 1, line / 2, f);
    if (fault == F_CRASH)
        crash_now();
    flush_all();
    _exit(0);
}

void do_work_sleep_rep(double sim_ns)
{
    double ms = sim_ns / 1e6 * scn_dbl("time_scale", 0);
    if (ms > 0)
        sleep_ms(ms);
}

void do_work_sleep(double sim_ns)
{
    double ms = scn_dbl("sleep_ms", 0) + sim_ns / 1e6 * scn_dbl("time_scale", 0);
    flush_all();
    sleep_ms(ms);
}

/* ------------------------------------------------------------ models */

/* 0 when path opens as a GGUF file (magic only); fills m (caller frees type). */
int model_load(const char *path, model_meta *m)
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
double speed_mult(const char *T, const char *K, param_fn fn, void *ctx)
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

/* Speed factor of -d depth on T for K: H / (H + depth), H = depth_half
 * (fake.h: default 16384 for tg, 32768 for pp; 0 = none). */
double depth_factor(const char *T, const char *K, int depth)
{
    const lvd_kv *e = scn_layered(T, K, "depth_half");
    double half = e ? ent_dbl(e) : strcmp(K, "tg") == 0 ? 16384 : 32768;
    return depth > 0 && half > 0 ? half / (half + depth) : 1; /* attention over a fuller cache */
}

/* The true mean t/s of kind K ("pp" or "tg") on T before multipliers. */
double base_speed(const char *T, const char *K)
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
size_t dbl_list(const lvd_kv *e, double *out, size_t max)
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
