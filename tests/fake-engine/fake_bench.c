/* fake_bench.c: the llama-bench persona: per test instance the simulated
 * samples (speeds, noise, warm-up, replay), every field as llama-bench's
 * get_values() renders it, the faults, and bench_main. Not for argument
 * parsing (fake_bench_args.c) or the printers (fake_bench_out.c). */
#include "fake.h"
#include "fake_bench.h"
#include "fake_bench_out.h"


static void bres_free(bres *r)
{
    for (int f = 0; f < F_COUNT; f++)
        free(r->val[f]);
    free(r->ns);
    memset(r, 0, sizeof *r);
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
    if (!strcmp(name, "fmoe") || !strcmp(name, "rtr"))
        return (!strcmp(name, "fmoe") ? c->o->fmoe : c->o->rtr) ? "1" : "0";
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
    const char *K = in->gp ? "tg" : in->n_prompt && in->n_gen ? "pg" : in->n_prompt ? "pp" : "tg";
    double mean;
    if (strcmp(K, "pg") == 0) {
        double pp = base_speed(T, "pp") * speed_mult(T, "pp", bench_param, &cc);
        double tg = base_speed(T, "tg") * speed_mult(T, "tg", bench_param, &cc);
        mean = (in->n_prompt + in->n_gen) / (in->n_prompt / pp + in->n_gen / tg);
    } else {
        mean = base_speed(T, K) * speed_mult(T, K, bench_param, &cc);
    }
    mean *= fake_offload_mult(o, in, T, o->dim[D_MODEL].v[in->ix[D_MODEL]], strcmp(K, "pp") ? "tg" : "pp");
    mean *= depth_factor(T, K, in->gp ? in->n_prompt : atoi(o->dim[D_ND].v[in->ix[D_ND]]));
    const lvd_kv *e = scn_layered(T, K, "noise");
    double noise = e ? ent_dbl(e) : 0.02;
    e = scn_layered(T, K, "run_noise");
    double run_noise = e ? ent_dbl(e) : 0;
    double warm[64];
    e = scn_layered(T, K, "warmup");
    size_t nwarm = e ? dbl_list(e, warm, LVD_ARRAY_LEN(warm)) : 0;
    double level = (1 + run_noise * rng_normal()) * (1 + scn_dbl("drift", 0) * (double)G.idx);
    int tokens = (in->gp ? 0 : in->n_prompt) + in->n_gen;
    e = scn_layered(T, K, "cold");
    double cold = e && o->no_warmup ? ent_dbl(e) : 1;
    for (int i = 0; i < o->reps; i++) {
        double f = level * (1 + noise * rng_normal());
        if ((size_t)i < nwarm)
            f *= warm[i];
        if (i == 0)
            f *= cold;
        double ts = mean * (f > 0.01 ? f : 0.01);
        double ns = llround(tokens * 1e9 / ts);
        r->ns = lvd_xrealloc(r->ns, (r->n + 1) * sizeof *r->ns);
        r->ns[r->n++] = ns >= 1 ? (uint64_t)ns : 1;
        total += ns;
    }
    return total;
}

/* The dimensions llama-bench's equal_mparams compares: a change of any of
 * them between two consecutive instances reloads the model. */
static const int MPARAM_DIMS[] = { D_MODEL, D_FITT, D_FITC, D_NGL, D_NCMOE, D_SM, D_LM, D_MG, D_DEV, D_TS, D_OT, D_NOH };

static int same_mparams(const binst *a, const binst *b)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(MPARAM_DIMS); i++)
        if (a->ix[MPARAM_DIMS[i]] != b->ix[MPARAM_DIMS[i]])
            return 0;
    return 1;
}

/* One model load (llama-bench loads before an instance whose model parameters
 * differ from the previous one's): a line in the load_log, and the simulated
 * load time (load_ms) in ns. */
static double model_loaded(const bench_opts *o, const binst *in)
{
    lvd_sb line = { 0 };
    lvd_sb_addf(&line, "#%ld load", G.idx);
    static const char *const names[] = { "m", "fitt", "fitc", "ngl", "ncmoe", "sm", "lm", "mg", "dev", "ts", "ot", "noh" };
    for (size_t i = 0; i < LVD_ARRAY_LEN(MPARAM_DIMS); i++) {
        const char *v = o->dim[MPARAM_DIMS[i]].v[in->ix[MPARAM_DIMS[i]]];
        lvd_sb_addf(&line, " %s=%s", names[i], MPARAM_DIMS[i] == D_MODEL ? lvd_base_name(v) : v);
    }
    lvd_sb_addc(&line, '\n');
    scn_append("load_log", line.buf, line.len);
    lvd_sb_free(&line);
    return scn_dbl("load_ms", 0) * 1e6;
}

/* Appends the invocation's simulated time (loads, warm-up runs, samples) in ns
 * to the sim_clock file. */
static void sim_clock_add(double ns)
{
    char buf[48];
    int n = snprintf(buf, sizeof buf, "%.0f\n", ns);
    scn_append("sim_clock", buf, (size_t)n);
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
    r->fmoe = o->fmoe;
    r->gp = in->gp;
    r->rtr = o->rtr;
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
    if (f == F_OOM) {
        fprintf(stderr, "ggml_vulkan: Device memory allocation of size 4294967296 failed.\n"
                        "ggml_vulkan: Requested buffer size exceeds device memory allocation limit: "
                        "ErrorOutOfDeviceMemory\n"
                        "llama_model_load: error loading model: unable to allocate Vulkan0 buffer\n"
                        "llama_bench: error: failed to load model '%s'\n", model);
        flush_all();
        _exit(1);
    }
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

/* The llama-bench persona. Long on purpose: the invocation in the order the
 * real tool prints it (backend init, models loaded, headers, each instance's
 * samples, fault and line, footers), so the streams interleave as captured. */
int bench_main(int argc, char **argv)
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
    double sim_total = 0;
    for (size_t j = 0; j < il.n; j++) {
        const binst *in = &il.v[j];
        if (j == 0 || !same_mparams(in, &il.v[j - 1]))
            sim_total += model_loaded(&o, in);
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
        ctx_limit_check(T, o.dim[D_TK].v[in->ix[D_TK]], o.dim[D_TV].v[in->ix[D_TV]],
                        in->n_prompt + in->n_gen + atol(o.dim[D_ND].v[in->ix[D_ND]]), o.verbose, model);
        bres r = { 0 };
        if (o.verbose)
            print_alloc(T, &o, in, &meta[mi], j == 0 || !same_mparams(in, &il.v[j - 1]));
        bench_fill(&o, in, j, &meta[mi], &r);
        if (o.progress && !o.no_warmup) {
            if (in->n_prompt)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup prompt run\n", j + 1, il.n);
            if (in->n_gen)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: warmup generation run\n", j + 1, il.n);
        }
        double sim = bench_samples(&o, in, j, T, &r);
        sim_total += sim + (o.no_warmup || !r.n ? 0 : in->n_gen && !in->n_prompt ? r.ns[0] / in->n_gen : r.ns[0]);
        for (int k = 0; k < (int)r.n; k++) { /* each repetition: its progress line, then it computes */
            if (o.progress && in->n_prompt)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: prompt run %d/%d\n", j + 1, il.n, k + 1, o.reps);
            if (o.progress && in->n_gen)
                fprintf(stderr, "llama-bench: benchmark %zu/%zu: generation run %d/%d\n", j + 1, il.n, k + 1,
                        o.reps);
            flush_all();
            do_work_sleep_rep((double)r.ns[k]);
            energy_compute(T, (double)r.ns[k]); /* what it drew, counted as it ends */
        }
        bres_stats(&r);
        fault_t f = fault_for("bench", T);
        if (f == F_NONE && fake_memory_short(&o, in, T, model))
            f = F_OOM; /* the device has less than its probe line claims */
        if (f != F_NONE)
            bench_fault(f, &r, model);
        if (o.delay > 0)
            sleep_ms(o.delay * 1000.0);
        do_work_sleep(0); /* the repetitions slept their own time above */
        print_test(&p, &r, &sb);
        emit(stdout, &sb);
        print_test(&pe, &r, &sb);
        emit(stderr, &sb);
        bres_free(&r);
        free(T);
    }
    sim_clock_add(sim_total);
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
