/* perf_select.c: how fast is `lvd select` at service start against asking
 * the engines? Builds a warm store the way the nightly does, with the real
 * tools over copies of the fake engine (tests/fake-engine) in three engine
 * directories (CPU, CUDA and Vulkan builds on one GTX 1060): lvd fetch
 * --register, lvd check, lvd bench, lvd select --record. Then times
 *   select, exec:     `lvd-select --model M --store S` as a process;
 *   select, library:  sel_open_identify + sel_select + the shell line, in
 *                     process (what a service linking lvdcore would pay);
 *   probe, exec:      `lvd-probe --refresh --store S` as a process (it runs
 *                     every engine's --list-devices);
 *   probe, library:   engine_probe_engine(refresh) for each engine;
 * and prints median, p95 and mean wall ms of each (and of /bin/true run the
 * same way: the cost of a process start) and the ratios probe / select.
 * Targets (docs/performance.md): select at most twice /bin/true's start (the
 * two interleaved, the ratio of their medians printed) and >= 200x faster
 * than probing.
 * The fake engine answers --list-devices in a millisecond or two; a real
 * CUDA or Vulkan build initialises its backends first (seconds), so the
 * ratios here are a floor for real engines. Not a test: it prints numbers
 * and fails nothing (exit 1 only when the setup itself fails).
 *   perf_select [-n SELECTS] [-p PROBES] [-f FAKE_ENGINE] [-b BIN_DIR] [-m MODEL]
 * FAKE_ENGINE defaults to $LVD_FAKE_ENGINE, else ../tests/fake-engine next to
 * this binary; BIN_DIR to $LVD_BIN, else ../bin; MODEL to the shipped tiny
 * model. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/probe.h"
#include "common/paths.h"
#include "common/proc.h"
#include "select/select.h"
#include "store/identify.h"

typedef struct world {
    char *tmp, *db, *model, *bin, *fake;
} world;

static void die(const char *fmt, const char *what)
{
    fprintf(stderr, "perf_select: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(1);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    lvd_sb sb = {0};
    lvd_err err;
    if (lvd_read_file(from, (size_t)1 << 30, &sb, &err) || lvd_write_file_atomic(to, sb.buf, sb.len, &err))
        die("%s", err.msg);
    if (chmod(to, mode) != 0)
        die("chmod %s failed", to);
    lvd_sb_free(&sb);
}

/* Runs BIN/lvd-TOOL ARGS (or args[0] itself when it is a path) with
 * LVD_STORE set; returns the wall ms. */
static double tool(const world *w, const char *const *args, int want_ok)
{
    const char *argv[16];
    char *exe = args[0][0] == '/' ? lvd_xstrdup(args[0]) : lvd_xasprintf("%s/lvd-%s", w->bin, args[0]);
    size_t n = 0;
    argv[n++] = exe;
    for (size_t i = 1; args[i] && n < 15; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char *store_env = lvd_xasprintf("LVD_STORE=%s", w->db);
    const char *env[] = {store_env, "NO_COLOR=1", "LVD_NO_PROGRESS=1", NULL};
    proc_spec spec = {.argv = argv, .env = env, .timeout_ms = 300000};
    proc_result res;
    lvd_err err;
    double t0 = now_ms();
    if (proc_run(&spec, &res, &err) != 0)
        die("%s", err.msg);
    double ms = now_ms() - t0;
    if (want_ok && !(res.exited && (res.exit_code == 0 || res.exit_code == 5))) {
        char buf[128];
        fprintf(stderr, "%s", lvd_sb_str(&res.err));
        die("setup step failed: %s", proc_describe(&res, buf, sizeof buf));
    }
    proc_result_free(&res);
    free(exe);
    free(store_env);
    return ms;
}

static void engine(const world *w, const char *name, const char *scenario)
{
    char *dir = lvd_xasprintf("%s/%s", w->tmp, name);
    lvd_err err;
    if (lvd_mkdir_p(dir, &err))
        die("%s", err.msg);
    static const char *const personas[] = {"llama-bench", "llama-server", "llama-perplexity"};
    for (size_t i = 0; i < 3; i++) {
        char *to = lvd_xasprintf("%s/%s", dir, personas[i]);
        copy_file(w->fake, to, 0755);
        free(to);
    }
    char *scn = lvd_xasprintf("%s/fake-scenario", dir);
    if (lvd_write_file_atomic(scn, scenario, strlen(scenario), &err))
        die("%s", err.msg);
    const char *args[] = {"fetch", "--register", dir, "--build", "b9749", "--name", name, NULL};
    tool(w, args, 1);
    free(scn);
    free(dir);
}

static void build_world(world *w)
{
    engine(w, "cpu", "cpu.tg = 50\ncpu.pp = 400\n");
    engine(w, "cuda", "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1\n"
                      "dev.CUDA0.tg = 500\nnoise = 0.005\n");
    engine(w, "vk", "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900\n"
                    "dev.Vulkan0.tg = 700\nnoise = 0.005\n");
    const char *check[] = {"check", "--model", w->model, NULL};
    const char *bench[] = {"bench", "--model", w->model, "--fa", "on", "--budget", "120s", NULL};
    const char *record[] = {"select", "--model", w->model, "--record", NULL};
    tool(w, check, 1);
    tool(w, bench, 1);
    tool(w, record, 1);
}

typedef struct timing {
    double median, p95, mean;
} timing;

static timing summarize(double *v, size_t n)
{
    qsort(v, n, sizeof *v, lvd_cmp_double);
    timing t = {.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2};
    t.p95 = v[(size_t)((double)(n - 1) * 0.95)];
    for (size_t i = 0; i < n; i++)
        t.mean += v[i] / (double)n;
    return t;
}

/* One in-process selection as a service would run it; returns 0 when it
 * chose by the verdict. */
static int select_once(const world *w, char **line)
{
    store *s;
    store_artifact a;
    int code;
    lvd_err err;
    if (sel_open_identify(w->db, w->model, 0, &s, &a, &code, &err))
        die("%s", err.msg);
    sel_request rq;
    sel_request_init(&rq);
    rq.model = w->model;
    sel_result r;
    if (sel_select(s, &a, &rq, &r, &code, &err))
        die("%s", err.msg);
    *line = sel_launch_to_shell(&r.launch);
    int by = r.by;
    sel_result_free(&r);
    store_artifact_free(&a);
    store_close(s);
    return by == SEL_BY_VERDICT ? 0 : -1;
}

static void probe_all(const world *w)
{
    store *s;
    lvd_err err;
    if (store_open(w->db, 0, &s, &err))
        die("%s", err.msg);
    lvd_engine *e;
    size_t n;
    if (store_engine_list(s, &e, &n, &err))
        die("%s", err.msg);
    for (size_t i = 0; i < n; i++) {
        lvd_probe p;
        if (engine_probe_engine(s, &e[i], 1, 0, &p, &err))
            die("%s", err.msg);
        lvd_probe_free(&p);
    }
    store_engine_list_free(e, n);
    store_close(s);
}

static void row(const char *what, size_t n, timing t)
{
    printf("%-18s %6zu %10.3f %10.3f %10.3f\n", what, n, t.median, t.p95, t.mean);
}

/* Times select and probe, as processes and in the library, and prints the
 * table and the ratios. */
static void measure(world *w, size_t n_sel, size_t n_probe)
{
    const char *sel_args[] = {"select", "--model", w->model, NULL};
    const char *probe_args[] = {"probe", "--refresh", NULL};
    const char *true_args[] = {"/bin/true", NULL};
    double *v = lvd_xcalloc(n_sel > n_probe ? n_sel : n_probe, sizeof *v);
    char *line = NULL;
    if (select_once(w, &line) != 0)
        die("%s", "the warm store did not answer from its verdict");
    printf("launch line: %s\n\n", line);
    free(line);

    /* select and /bin/true interleaved, so that both see the same machine:
     * the ratio of their medians is the figure the target is set on. */
    double *t = lvd_xcalloc(n_sel, sizeof *t);
    tool(w, sel_args, 1); /* warm the page cache */
    tool(w, true_args, 1);
    for (size_t i = 0; i < n_sel; i++) {
        v[i] = tool(w, sel_args, 1);
        t[i] = tool(w, true_args, 1);
    }
    timing sel_exec = summarize(v, n_sel);
    timing spawn = summarize(t, n_sel);
    /* the misses, in turn with /bin/true again: each run finds no kept answer
     * (its directory emptied, as a store change leaves it: the answer is
     * written anew beside the old one and renamed over it) */
    char *kept = lvd_xasprintf("%s-select", w->db);
    lvd_err err;
    for (size_t i = 0; i < n_sel; i++) {
        if (lvd_rm_rf(kept) != 0 || lvd_mkdir_p(kept, &err) != 0)
            die("cannot empty %s", kept);
        v[i] = tool(w, sel_args, 1);
        t[i] = tool(w, true_args, 1);
    }
    free(kept);
    timing sel_miss = summarize(v, n_sel);
    timing spawn_miss = summarize(t, n_sel);
    free(t);
    for (size_t i = 0; i < n_sel; i++) {
        double t0 = now_ms();
        select_once(w, &line);
        v[i] = now_ms() - t0;
        free(line);
    }
    timing sel_lib = summarize(v, n_sel);
    for (size_t i = 0; i < n_probe; i++)
        v[i] = tool(w, probe_args, 1);
    timing probe_exec = summarize(v, n_probe);
    for (size_t i = 0; i < n_probe; i++) {
        double t0 = now_ms();
        probe_all(w);
        v[i] = now_ms() - t0;
    }
    timing probe_lib = summarize(v, n_probe);

    printf("%-18s %6s %10s %10s %10s\n", "wall ms", "n", "median", "p95", "mean");
    row("/bin/true, exec", n_sel, spawn);
    row("select, exec", n_sel, sel_exec);
    row("/bin/true, exec", n_sel, spawn_miss);
    row("select, miss", n_sel, sel_miss);
    row("select, library", n_sel, sel_lib);
    row("probe, exec", n_probe, probe_exec);
    row("probe, library", n_probe, probe_lib);
    printf("\nratios (median probe / median select):\n");
    printf("  exec vs exec:       %7.1fx  (lvd-probe --refresh / lvd-select)\n",
           probe_exec.median / sel_exec.median);
    printf("  library vs library: %7.1fx  (engine_probe_engine x3 / sel_select)\n",
           probe_lib.median / sel_lib.median);
    printf("  exec vs library:    %7.1fx  (lvd-probe --refresh / sel_select in process)\n",
           probe_exec.median / sel_lib.median);
    double start = sel_exec.median / spawn.median;
    printf("select exec / /bin/true exec: %.2fx (warm, the kept answer: medians, interleaved in this run; "
           "target <= 2x: %s)\n",
           start, start <= 2.0 ? "met" : "NOT met");
    printf("select miss / /bin/true exec: %.2fx (no kept answer: the whole selection, and the answer written; "
           "interleaved likewise)\n",
           sel_miss.median / spawn_miss.median);
    printf("targets: select at most twice a bare process start, >= 200x faster than probing\n"
           "(the fake engine's --list-devices costs a process start only; a real CUDA or\n"
           "Vulkan build spends seconds in backend init, so these ratios are floors)\n");

    free(v);
}

int main(int argc, char **argv)
{
    size_t n_sel = 300, n_probe = 30;
    world w = {0};
    char *exe_dir = lvd_exe_dir();
    const char *fake = getenv("LVD_FAKE_ENGINE"), *bin = getenv("LVD_BIN"), *model = NULL;
    int c;
    while ((c = getopt(argc, argv, "n:p:f:b:m:")) != -1) {
        switch (c) {
        case 'n': n_sel = (size_t)strtoul(optarg, NULL, 10); break;
        case 'p': n_probe = (size_t)strtoul(optarg, NULL, 10); break;
        case 'f': fake = optarg; break;
        case 'b': bin = optarg; break;
        case 'm': model = optarg; break;
        default:
            fprintf(stderr, "usage: perf_select [-n SELECTS] [-p PROBES] [-f FAKE_ENGINE] [-b BIN_DIR] [-m MODEL]\n");
            return 2;
        }
    }
    if (n_sel < 2 || n_probe < 2)
        die("%s", "-n and -p want at least 2");
    w.fake = fake && *fake ? lvd_xstrdup(fake) : lvd_xasprintf("%s/../tests/fake-engine", exe_dir ? exe_dir : ".");
    w.bin = bin && *bin ? lvd_xstrdup(bin) : lvd_xasprintf("%s/../bin", exe_dir ? exe_dir : ".");
    char *shipped = model ? lvd_xstrdup(model) : lvd_data_file("models/tiny-llama-q4_0.gguf");
    if (!shipped)
        die("%s", "no model (pass -m MODEL)");
    const char *base = getenv("TMPDIR");
    w.tmp = lvd_xasprintf("%s/perf-select-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(w.tmp))
        die("cannot create %s", w.tmp);
    w.db = lvd_xasprintf("%s/store.db", w.tmp);
    w.model = lvd_xasprintf("%s/model.gguf", w.tmp);
    copy_file(shipped, w.model, 0644);

    printf("perf_select: building a warm store (3 fake engines registered, checked, benched,\n"
           "a verdict recorded) in %s\n", w.tmp);
    build_world(&w);

    measure(&w, n_sel, n_probe);
    lvd_rm_rf(w.tmp);
    free(w.tmp);
    free(w.db);
    free(w.model);
    free(w.bin);
    free(w.fake);
    free(shipped);
    free(exe_dir);
    return 0;
}
