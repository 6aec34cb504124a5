/* perf_fleet.c: a fleet's year in one store, at scale, and what it
 * costs to read. Fills the store with the fleet's shape, written straight
 * through the store library (store_run_put, one transaction per host and
 * night, as lvd bench records a session), then times the tools on it:
 *
 *   HOSTS hosts (default 20) x NIGHTS nights (365) x 40 arms (2 engines of
 *   2 backends x fa 0/1 x 10 ubatch sizes) x 2 tests (pp512, tg128) x 30
 *   samples = 17.5 M samples at the defaults; each host a card (GTX 1060,
 *   H200, RX 7900 XTX in turn) seen by two backends, its engines probed.
 *   Host 0 ("fleet-h00", the box the timings stand on) has real engine
 *   directories (the fake engine, tests/fake-engine, registered with `lvd
 *   fetch --register`), the others engine rows with probes. Then a verdict
 *   per host (sel_verdict_record: what `lvd select --record` records).
 *
 * Prints rows written per second (runs, results, samples), the store's size,
 * then the median and p95 wall ms and the median CPU ms (user + system, of
 * the process and its children) of `lvd select --model M` (warm: after one
 * untimed call) and `lvd evidence` for host 0's page, and `lvd evidence
 * --fleet` (every host, the backend map), each as a process with LVD_HOST =
 * fleet-h00. Goals: select < 5 ms on SQLite (< 20 ms over a local
 * PostgreSQL socket), one host's evidence page < 2 s.
 *
 *   perf_fleet [--hosts N] [--nights N] [--samples N] [--store PATH|URI] [--runs N]
 *              [-f FAKE_ENGINE] [-b BIN_DIR] [-m MODEL] [--keep]
 *
 * --store: the store to fill (a SQLite path, or once the PostgreSQL backend
 * is in, its URI: an empty database); default a fresh file in a temporary
 * directory. --runs: timed calls per tool (default 20 select, 3 evidence).
 * Not a test: it prints numbers and fails nothing (exit 1 when a setup step
 * fails). */
#include "benchio/arm.h"
#include "common/paths.h"
#include "common/proc.h"
#include "perf_files.h"
#include "select/verdict.h"
#include "store/fleetdb.h"
#include "store/identify.h"
#include "store/store.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define ARMS_PER_ENGINE 20
#define NIGHT0 1767225600 /* 2026-01-01 00:00 UTC */

typedef struct fleet {
    size_t hosts, nights, samples, runs;
    char *tmp, *store, *model, *bin, *fake;
    char sha[LVD_SHA256_HEX_LEN + 1];
} fleet;

/* One card and its two backends, with their tg speeds (pp: 6x). */
typedef struct card {
    const char *name;
    const char *sel[2];   /* device selectors */
    double tg[2];
} card;

static const card cards[] = {
    {"NVIDIA GeForce GTX 1060 6GB", {"CUDA0", "Vulkan0"}, {500, 700}},
    {"NVIDIA H200", {"CUDA0", "Vulkan0"}, {900, 600}},
    {"AMD Radeon RX 7900 XTX", {"ROCm0", "Vulkan0"}, {900, 1000}},
};

static _Noreturn void die(const char *what, const char *msg)
{
    fprintf(stderr, "perf_fleet: %s: %s\n", what, msg);
    exit(1);
}

static const card *card_of(size_t host)
{
    return &cards[host % 4 == 3 ? 2 : host % 4 == 2 ? 1 : 0];
}

/* The CPU seconds (user + system) of every child waited for so far. */
static double children_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Runs BIN/lvd-TOOL ARGS on the fleet's store as host 0; wall seconds, and
 * its CPU seconds into *cpu (may be NULL): on a shared machine the wall time
 * is mostly waiting for a core, the CPU time what the call itself costs. */
static double run_tool(const fleet *f, const char *tool, const char *const *args, int must_pass, double *cpu)
{
    const char *argv[12];
    char *exe = lvd_xasprintf("%s/lvd-%s", f->bin, tool);
    size_t n = 0;
    argv[n++] = exe;
    for (; *args && n < 11; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *env_store = lvd_xasprintf("LVD_STORE=%s", f->store);
    const char *env[] = {env_store, "LVD_HOST=fleet-h00", "NO_COLOR=1", "LVD_NO_PROGRESS=1", NULL};
    proc_spec spec = {.argv = argv, .env = env, .timeout_ms = 1800000};
    proc_result res;
    lvd_err err;
    double t0 = perf_now_s(), c0 = children_cpu_s();
    if (proc_run(&spec, &res, &err) != 0)
        die(tool, err.msg);
    double s = perf_now_s() - t0;
    if (cpu)
        *cpu = children_cpu_s() - c0;
    if (must_pass && !(res.exited && (res.exit_code == 0 || res.exit_code == 5)))
        die(tool, lvd_sb_str(&res.err));
    proc_result_free(&res);
    free(env_store);
    free(exe);
    return s;
}

/* Host 0's engine NAME: a directory of fake-engine links seeing the card
 * through selector sel at tg speed, registered by lvd fetch --register. */
static void real_engine(const fleet *f, const char *name, const char *sel, const card *c, double tg)
{
    char *dir = lvd_xasprintf("%s/engines/%s", f->tmp, name);
    lvd_err err;
    if (lvd_mkdir_p(dir, &err))
        die(dir, err.msg);
    static const char *const tools[] = {"llama-bench", "llama-server", "llama-perplexity"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(tools); i++) {
        char *to = lvd_xasprintf("%s/%s", dir, tools[i]);
        if (symlink(f->fake, to) != 0)
            die(to, "cannot link the fake engine");
        free(to);
    }
    char *scn = lvd_xasprintf("%s/fake-scenario", dir);
    char *text = lvd_xasprintf("device = %s|%s|6144|5800\ndev.%s.tg = %.0f\n", sel, c->name, sel, tg);
    if (lvd_write_file_atomic(scn, text, strlen(text), &err))
        die(scn, err.msg);
    const char *args[] = {"--register", dir, "--build", "b9749", "--name", name, NULL};
    run_tool(f, "fetch", args, 1, NULL);
    free(text);
    free(scn);
    free(dir);
}

/* Another host's engine NAME: its row and a probe listing the card. */
static int64_t row_engine(store *s, const char *name, const char *sel, const card *c)
{
    char *dir = lvd_xasprintf("/fleet/%s", name);
    lvd_engine e = {.name = (char *)name, .dir = dir, .build = "b9749", .origin = "registered"};
    lvd_err err;
    if (store_engine_put(s, &e, &err))
        die(name, err.msg);
    lvd_device d = {.total_mib = 6144, .free_mib = 5800};
    snprintf(d.selector, sizeof d.selector, "%s", sel);
    snprintf(d.name, sizeof d.name, "%s", c->name);
    for (size_t i = 0; sel[i] && (sel[i] < '0' || sel[i] > '9') && i + 1 < sizeof d.backend; i++)
        d.backend[i] = (char)(sel[i] >= 'A' && sel[i] <= 'Z' ? sel[i] - 'A' + 'a' : sel[i]);
    lvd_probe p = {.engine_id = e.id, .bin_mtime_ns = 1, .bin_size = 1, .devices = &d, .n_devices = 1};
    p.binary = lvd_xasprintf("%s/llama-bench", dir);
    snprintf(p.backend, sizeof p.backend, "%s", d.backend);
    if (store_probe_put(s, &p, &err))
        die(name, err.msg);
    free(p.binary);
    free(dir);
    return e.id;
}

/* A passed correctness check of engine eid's device sel on host (what lvd
 * check records), so that the host's verdict may name a winner. */
static void check_pass(store *s, const char *sha, int64_t eid, const char *sel, const char *host)
{
    lvd_check c = {.engine_id = eid, .ran_at = NIGHT0, .mean_kld = 0.001, .same_top_p = 99.5, .ppl = 10.0,
                   .ppl_base = 10.0, .ppl_ratio = 1.0};
    snprintf(c.artifact, sizeof c.artifact, "%s", sha);
    snprintf(c.device, sizeof c.device, "%s", sel);
    snprintf(c.status, sizeof c.status, "pass");
    c.host = (char *)host;
    lvd_err err;
    if (store_check_put(s, &c, &err))
        die(host, err.msg);
}

/* One result of n samples around ts (1 % noise, deterministic). */
static void fill_result(lvd_result *r, const char *test, int pp, double ts, size_t n, stats_rng *rng)
{
    snprintf(r->test, sizeof r->test, "%s", test);
    r->n_prompt = pp ? 512 : 0;
    r->n_gen = pp ? 0 : 128;
    snprintf(r->backends, sizeof r->backends, "GPU");
    r->rep_ngl = 99;
    r->n = n;
    r->ns = lvd_xcalloc(n, sizeof *r->ns);
    r->ts = lvd_xcalloc(n, sizeof *r->ts);
    r->warmup = lvd_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        r->ts[i] = ts * (1.0 + 0.01 * stats_rng_normal(rng));
        r->ns[i] = (int64_t)((pp ? 512.0 : 128.0) / r->ts[i] * 1e9);
    }
}

/* Arm k (0 .. ARMS_PER_ENGINE) of engine eid on device sel: fa k % 2, ubatch 2^(5 + k / 2). */
static void make_run(lvd_run *r, int64_t eid, const char *host, const char *sel, size_t k, size_t night,
                     double tg, size_t n, stats_rng *rng)
{
    memset(r, 0, sizeof *r);
    r->engine_id = eid;
    r->binary = lvd_xstrdup("/fleet/llama-bench");
    r->build = lvd_xstrdup("b9749");
    r->host = lvd_xstrdup(host);
    r->session = lvd_xasprintf("%s-night-%04zu", host, night);
    lvd_params_init(&r->params);
    snprintf(r->params.device, sizeof r->params.device, "%s", sel);
    r->params.ngl = 99;
    r->params.fa = (int)(k % 2);
    r->params.ubatch = 32 << (k / 2);
    char key[512];
    benchio_arm_key(&r->params, key, sizeof key);
    r->arm_key = lvd_xstrdup(key);
    snprintf(r->status, sizeof r->status, "ok");
    r->started_at = NIGHT0 + (int64_t)night * 86400 + (int64_t)k * 30;
    r->wall_ms = 30000;
    snprintf(r->source, sizeof r->source, "bench");
    double arm = (1.0 + 0.05 * r->params.fa) * (1.0 - 0.004 * (double)(k / 2));
    r->n_results = 2;
    r->results = lvd_xcalloc(2, sizeof *r->results);
    fill_result(&r->results[0], "pp512", 1, 6.0 * tg * arm, n, rng);
    fill_result(&r->results[1], "tg128", 0, tg * arm, n, rng);
}

/* Writes host h's nights: 2 engines x ARMS_PER_ENGINE arms a night, one
 * transaction per night. Adds the rows written to *rows. */
static void write_host(const fleet *f, store *s, size_t h, const int64_t eid[2], size_t *rows)
{
    const card *c = card_of(h);
    char host[32];
    snprintf(host, sizeof host, "fleet-h%02zu", h);
    double host_factor = 1.0 + 0.05 * (double)((h * 7) % 5) / 2.0 - 0.05;
    stats_rng rng;
    stats_rng_seed(&rng, h + 1);
    lvd_err err;
    for (size_t e = 0; e < 2; e++)
        check_pass(s, f->sha, eid[e], c->sel[e], host);
    for (size_t night = 0; night < f->nights; night++) {
        if (store_begin(s, &err))
            die(host, err.msg);
        for (size_t e = 0; e < 2; e++)
            for (size_t k = 0; k < ARMS_PER_ENGINE; k++) {
                lvd_run r;
                make_run(&r, eid[e], host, c->sel[e], k, night, c->tg[e] * host_factor, f->samples, &rng);
                strcpy(r.artifact, f->sha);
                if (store_run_put(s, &r, &err))
                    die(host, err.msg);
                *rows += 1 + r.n_results * (1 + f->samples);
                lvd_run_free(&r);
            }
        if (store_commit(s, &err))
            die(host, err.msg);
    }
}

/* The engines of every host (host 0's registered), the model, the runs;
 * prints the write rate. */
static void fill(fleet *f)
{
    for (size_t e = 0; e < 2; e++) {
        char name[32];
        snprintf(name, sizeof name, "fleet-h00-%zu", e);
        real_engine(f, name, cards[0].sel[e], &cards[0], cards[0].tg[e]);
    }
    store *s;
    lvd_err err;
    if (store_open(f->store, STORE_OPEN_CREATE, &s, &err))
        die(f->store, err.msg);
    store_artifact a;
    if (store_identify(s, f->model, 0, &a, NULL, &err))
        die(f->model, err.msg);
    snprintf(f->sha, sizeof f->sha, "%s", a.sha256);
    store_artifact_free(&a);
    int64_t (*eid)[2] = lvd_xcalloc(f->hosts, sizeof *eid);
    for (size_t h = 0; h < f->hosts; h++)
        for (size_t e = 0; e < 2; e++) {
            char name[32];
            snprintf(name, sizeof name, "fleet-h%02zu-%zu", h, e);
            lvd_engine x;
            if (h == 0 && store_engine_by_name(s, name, &x, &err) == 0) {
                eid[h][e] = x.id;
                lvd_engine_free(&x);
            } else {
                eid[h][e] = row_engine(s, name, card_of(h)->sel[e], card_of(h));
            }
        }
    size_t rows = 0;
    double t0 = perf_now_s();
    for (size_t h = 0; h < f->hosts; h++)
        write_host(f, s, h, eid[h], &rows);
    double secs = perf_now_s() - t0;
    size_t samples = f->hosts * f->nights * 2 * ARMS_PER_ENGINE * 2 * f->samples;
    printf("wrote %zu hosts x %zu nights x %d arms x 2 tests x %zu samples = %zu samples (%zu rows) in %.1f s:\n"
           "  %.0f rows/s, %.0f samples/s, %.0f runs/s\n",
           f->hosts, f->nights, 2 * ARMS_PER_ENGINE, f->samples, samples, rows, secs, (double)rows / secs,
           (double)samples / secs, (double)(f->hosts * f->nights * 2 * ARMS_PER_ENGINE) / secs);
    free(eid);
    store_close(s);
}

/* A verdict per host, as each host's `lvd select --record` records it. */
static void verdicts(const fleet *f)
{
    store *s;
    lvd_err err;
    if (store_open(f->store, 0, &s, &err))
        die(f->store, err.msg);
    double t0 = perf_now_s();
    for (size_t h = 0; h < f->hosts; h++) {
        char host[32];
        snprintf(host, sizeof host, "fleet-h%02zu", h);
        sel_verdict_opts vo;
        sel_verdict_opts_init(&vo);
        vo.host = host;
        lvd_verdict v;
        if (sel_verdict_record(s, f->sha, &vo, &v, &err) != 0)
            die(host, err.msg);
        lvd_verdict_free(&v);
    }
    printf("recorded %zu verdicts in %.2f s (%.0f ms each)\n", f->hosts, perf_now_s() - t0,
           (perf_now_s() - t0) * 1e3 / (double)f->hosts);
    store_close(s);
}

/* Median and p95 of n timed calls of one tool (after one untimed call). */
static void time_tool(const fleet *f, const char *label, const char *tool, const char *const *args, size_t n,
                      double goal_ms)
{
    run_tool(f, tool, args, 1, NULL);
    double *v = lvd_xcalloc(n, sizeof *v), *c = lvd_xcalloc(n, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        v[i] = run_tool(f, tool, args, 1, &c[i]) * 1e3;
        c[i] *= 1e3;
    }
    qsort(v, n, sizeof *v, lvd_cmp_double);
    qsort(c, n, sizeof *c, lvd_cmp_double);
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    double cpu = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    printf("  %-34s %4zu %10.2f %10.2f %10.2f", label, n, median, v[(size_t)((double)(n - 1) * 0.95)], cpu);
    if (goal_ms > 0)
        printf("   goal < %.0f ms: wall %s, cpu %s", goal_ms, median < goal_ms ? "met" : "NOT met",
               cpu < goal_ms ? "met" : "NOT met");
    printf("\n");
    free(v);
    free(c);
}

static void measure(const fleet *f)
{
    char *page = lvd_xasprintf("%s/page/evidence.md", f->tmp);
    const char *sel[] = {"--model", f->model, NULL};
    const char *ev[] = {"--out", page, NULL};
    const char *ev_fleet[] = {"--fleet", NULL};
    double load[1] = {0};
    if (getloadavg(load, 1) < 1)
        load[0] = NAN;
    printf("\n  %-34s %4s %10s %10s %10s   (ms of the process, LVD_HOST=fleet-h00; load average %.1f)\n", "",
           "n", "wall med", "wall p95", "cpu med", load[0]);
    time_tool(f, "lvd select --model M (warm)", "select", sel, f->runs, 5);
    size_t n_ev = f->runs < 3 ? f->runs : 3;
    time_tool(f, "lvd evidence (one host's page)", "evidence", ev, n_ev, 2000);
    time_tool(f, "lvd evidence --fleet", "evidence", ev_fleet, n_ev, 0);
    struct stat st;
    if (stat(f->store, &st) == 0)
        printf("\nstore: %.1f MiB (%.1f bytes per sample)\n", (double)st.st_size / 1048576.0,
               (double)st.st_size / (double)(f->hosts * f->nights * 2 * ARMS_PER_ENGINE * 2 * f->samples));
    free(page);
}

static size_t count_arg(const char *opt, const char *arg, size_t lo)
{
    int64_t v;
    if (lvd_parse_i64(arg, &v) != 0 || v < (int64_t)lo)
        die(opt, "wants a whole number of at least 1");
    return (size_t)v;
}

int main(int argc, char **argv)
{
    fleet f = {.hosts = 20, .nights = 365, .samples = 30, .runs = 20};
    const char *fake = getenv("LVD_FAKE_ENGINE"), *bin = getenv("LVD_BIN"), *model = NULL, *store = NULL;
    int keep = 0, c;
    static const struct option longopts[] = {
        {"hosts", required_argument, NULL, 'H'}, {"nights", required_argument, NULL, 'N'},
        {"samples", required_argument, NULL, 'S'}, {"store", required_argument, NULL, 's'},
        {"runs", required_argument, NULL, 'r'}, {"keep", no_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    while ((c = getopt_long(argc, argv, "f:b:m:", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': f.hosts = count_arg("--hosts", optarg, 1); break;
        case 'N': f.nights = count_arg("--nights", optarg, 1); break;
        case 'S': f.samples = count_arg("--samples", optarg, 5); break;
        case 'r': f.runs = count_arg("--runs", optarg, 1); break;
        case 's': store = optarg; break;
        case 'k': keep = 1; break;
        case 'f': fake = optarg; break;
        case 'b': bin = optarg; break;
        case 'm': model = optarg; break;
        default:
            fprintf(stderr, "usage: perf_fleet [--hosts N] [--nights N] [--samples N] [--store PATH|URI] [--runs N]\n"
                            "                  [-f FAKE_ENGINE] [-b BIN_DIR] [-m MODEL] [--keep]\n");
            return 2;
        }
    }
    char *exe_dir = lvd_exe_dir();
    f.fake = fake && *fake ? lvd_xstrdup(fake) : lvd_xasprintf("%s/../tests/fake-engine", exe_dir ? exe_dir : ".");
    f.bin = bin && *bin ? lvd_xstrdup(bin) : lvd_xasprintf("%s/../bin", exe_dir ? exe_dir : ".");
    char *shipped = model ? lvd_xstrdup(model) : lvd_data_file("models/tiny-llama-q4_0.gguf");
    if (!shipped)
        die("model", "none found (pass -m MODEL)");
    const char *base = getenv("TMPDIR");
    f.tmp = lvd_xasprintf("%s/perf-fleet-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(f.tmp))
        die(f.tmp, "cannot create it");
    f.store = store ? lvd_xstrdup(store) : lvd_xasprintf("%s/fleet.db", f.tmp);
    f.model = lvd_xasprintf("%s/model.gguf", f.tmp);
    if (symlink(shipped, f.model) != 0)
        die(f.model, "cannot link the model");
    printf("perf_fleet: filling %s\n", f.store);
    fill(&f);
    verdicts(&f);
    measure(&f);
    if (keep)
        printf("kept %s\n", f.tmp);
    else
        lvd_rm_rf(f.tmp);
    free(f.tmp);
    free(f.store);
    free(f.model);
    free(f.bin);
    free(f.fake);
    free(shipped);
    free(exe_dir);
    return 0;
}
