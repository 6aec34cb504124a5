/* fake_perplexity.c: the llama-perplexity persona: the per-chunk PPL
 * series, the --kl-divergence-base file (written and read back), the KL
 * divergence statistics block, and ppl_main. Not for argument parsing
 * (args.c). */
#include "fake.h"

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

/* The llama-perplexity persona. Long on purpose: one pass in the order the
 * real tool logs (model load, system info, chunks, statistics), so that the
 * lines and their fake clock come out in the captures' order. */
int ppl_main(int argc, char **argv)
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
