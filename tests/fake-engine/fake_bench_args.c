/* fake_bench_args.c: llama-bench's command line as the fake parses it
 * (types in fake_bench.h): defaults, usage, value lists and ranges, -dev,
 * -ts and -ot values, and the cross product of test instances. Not for
 * running or printing the tests (fake_bench.c). */
#include "fake.h"
#include "fake_bench.h"

/* ----------------------------------------------------------- llama-bench */

const char *bench_default(int d)
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

/* The -sm line of the usage, listing the scenario's split_modes. */
static void split_mode_help(lvd_sb *sb)
{
    char *modes = lvd_xstrdup(split_modes());
    for (char *c = modes; *c; c++)
        if (*c == ',')
            *c = '|';
    char *flag = lvd_xasprintf("-sm, --split-mode <%s>", modes);
    lvd_sb_addf(sb, "  %-50s(default: layer)\n", flag);
    free(flag);
    free(modes);
}

/* llama-bench's usage, as this build prints it before help_omit (help.c). */
static char *bench_usage_text(void)
{
    lvd_sb sb = { 0 };
    lvd_sb_addf(&sb, "usage: %s [options]\n"
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
           "  --no-warmup                                 skip warmup runs before benchmarking\n",
           G.prog);
    if (fake_has_fit()) /* a build before llama.cpp's fit lists neither */
        lvd_sb_adds(&sb, "  -fitt, --fit-target <MiB>                   fit model to device memory with this margin per "
               "device in MiB (default: off)\n"
               "  -fitc, --fit-ctx <n>                        minimum ctx size for --fit-target (default: 4096)\n");
    lvd_sb_addf(&sb, "\n"
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
           "  -ncmoe, --n-cpu-moe <n>                           (default: 0)\n",
           bench_default(D_NT));
    split_mode_help(&sb);
    lvd_sb_adds(&sb, "  -mg, --main-gpu <i>                               (default: 0)\n"
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
           "'first-last' or 'first-last+step' or 'first-last*mult'.\n");
    return lvd_sb_detach(&sb);
}

/* ik_llama.cpp's llama-bench usage, as cpu-build-ik4840/bench-help.stdout
 * prints it (its defaults; -t the scenario's threads). */
static char *ik_usage_text(void)
{
    return lvd_xasprintf(
        "usage: %s [options]\n"
        "\n"
        "options:\n"
        "  -h, --help\n"
        "  -m, --model <filename>              (default: models/7B/ggml-model-q4_0.gguf)\n"
        "  -p, --n-prompt <n>                  (default: 512)\n"
        "  -n, --n-gen <n>                     (default: 128)\n"
        "  -pg <pp,tg>                         (default: )\n"
        "  -gp <pp,tg>                         (default: )\n"
        "  -b, --batch-size <n>                (default: 2048)\n"
        "  -ub, --ubatch-size <n>              (default: 512)\n"
        "  -ctk, --cache-type-k <t>            (default: f16)\n"
        "  -ctv, --cache-type-v <t>            (default: f16)\n"
        "  -t, --threads <n>                   (default: %s)\n"
        "  -tgb, --threads-gen-batch <n1,n2>   (default: %s)\n"
        "  -ngl, --n-gpu-layers <n>            (default: 999)\n"
        "  --n-cpu-moe <n>                     (default: none)\n"
        "  -rpc, --rpc <rpc_servers>           (default: )\n"
        "  -sm, --split-mode <none|layer|graph>(default: layer)\n"
        "  -mg, --main-gpu <i>                 (default: 0)\n"
        "  -nkvo, --no-kv-offload <0|1>        (default: 0)\n"
        "  -fa, --flash-attn <0|1>             (default: 1)\n"
        "  -mla, --mla-use <0|1|2>             (default: 3)\n"
        "  -amb, --attention-max-batch <i>     (default: 0)\n"
        "  -ser, --smart-expert-reduction <i,f>(default: 0)\n"
        "  -gr, --graph-reuse <0|1>            (default: 1)\n"
        "  -mmp, --mmap <0|1>                  (default: 1)\n"
        "  --numa <distribute|isolate|numactl> (default: disabled)\n"
        "  -embd, --embeddings <0|1>           (default: 0)\n"
        "  -ts, --tensor-split <ts0/ts1/..>    (default: 0)\n"
        "  -r, --repetitions <n>               (default: 5)\n"
        "  -o, --output <csv|json|md|sql>      (default: md)\n"
        "  -oe, --output-err <csv|json|md|sql> (default: none)\n"
        "  -v, --verbose                       (default: 0)\n"
        "  -w, --warmup <0|1>                  (default: 1)\n"
        "  -rtr, --run-time-repack <0|1>       (default: 0)\n"
        "  -ot, --override-tensor pattern      (default: none)\n"
        "  -fmoe, --fused-moe <0|1>            (default: 1)\n"
        "\n"
        "Multiple values can be given for each parameter by separating them with ',' or by specifying the "
        "parameter multiple times.\n",
        G.prog, bench_default(D_NT), bench_default(D_NT));
}

/* The usage this build prints (before help_omit, help.c). */
static char *usage_text(void)
{
    return fake_ik() ? ik_usage_text() : bench_usage_text();
}

static void bench_usage(void)
{
    char *text = usage_text();
    fake_help_print(text);
    free(text);
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

/* 1 when every -sm value is one of the scenario's split_modes (a build
 * older than -sm tensor rejects it as an invalid parameter). */
static int modes_accepted(const char *val)
{
    char **items = lvd_split(val, ',', NULL), **ok = lvd_split(split_modes(), ',', NULL);
    int all = 1;
    for (size_t i = 0; items[i] && all; i++)
        all = in_list(items[i], (const char *const *)ok);
    lvd_strv_free(items);
    lvd_strv_free(ok);
    return all;
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

const char *fa_value(const char *v)
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

int is_int(const char *s, int allow_neg)
{
    if (allow_neg && *s == '-')
        s++;
    return all_digits(s);
}
/* A "-pg"/"-gp" value "pp,tg" pushed onto out as "%d,%d"; 1 when it is not
 * two integers (negative ones allowed when allow_neg). */
static int pair_push(const char *v, int allow_neg, strv *out)
{
    char **p = lvd_split(v, ',', NULL);
    int bad = !p[0] || !p[1] || p[2] || !is_int(p[0], allow_neg) || !is_int(p[1], allow_neg);
    if (!bad) {
        char *pair = lvd_xasprintf("%d,%d", atoi(p[0]), atoi(p[1]));
        strv_push(out, pair);
        free(pair);
    }
    lvd_strv_free(p);
    return bad;
}

static int is_arg(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

/* Parses llama-bench's argv into o. Returns -1 (exit 1), 0 (run), 1 (exit 0).
 * Long on purpose: one flat chain over the options in the order of
 * llama-bench's parse_cmd_params, so that it reads side by side with the real
 * parser; every branch is a few lines. */
int bench_parse(int argc, char **argv, bench_opts *o)
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
    char *arg = NULL, *usage = usage_text();
    if (fake_ik())
        o->fmoe = 1;
    for (int i = 1; i < argc && !invalid; i++) {
        free(arg);
        arg = lvd_xstrdup(argv[i]);
        if (lvd_starts_with(arg, "--"))
            for (char *c = arg; *c; c++)
                if (*c == '_')
                    *c = '-';
        const char *a = arg;
        const char *err = NULL;
        if (fake_help_lacks(usage, a) || (fake_ik() && !fake_help_lists(usage, a))) { /* a flag it lacks */
            invalid = 1;
            break;
        }
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
            free(usage);
            return 1;
        } else if (is_arg(a, "--list-devices", NULL)) {
            bench_list_devices();
            free(arg);
            free(usage);
            return 1;
        } else if (is_arg(a, "-v", "--verbose")) {
            o->verbose = 1;
        } else if (is_arg(a, "--offline", NULL)) {
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
            invalid = pair_push(v, 1, &o->pg);
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
            invalid = !split_push(v, &o->dim[D_SM], sms) || !modes_accepted(v);
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
        } else if (is_arg(a, "-gp", NULL)) { /* ik: a pp,tg pair per -gp */
            invalid = pair_push(v, 0, &o->gp);
        } else if (is_arg(a, "-fmoe", "--fused-moe")) { /* ik: one value per process (std::stoi) */
            o->fmoe = atoi(v) != 0;
        } else if (is_arg(a, "-rtr", "--run-time-repack")) {
            o->rtr = atoi(v) != 0;
        } else if (is_arg(a, "-mla", "--mla-use") || is_arg(a, "-amb", "--attention-max-batch") ||
                   is_arg(a, "-ser", "--smart-expert-reduction") || is_arg(a, "-gr", "--graph-reuse") ||
                   is_arg(a, "-w", "--warmup") || is_arg(a, "-rpc", "--rpc") ||
                   is_arg(a, "-tgb", "--threads-gen-batch")) { /* ik's, accepted and ignored */
        } else if (is_arg(a, "-o", "--output") || is_arg(a, "-oe", "--output-err")) {
            int f = out_format(v);
            if (fake_ik() && f == FMT_JSONL)
                f = -1;
            if (f < 0)
                invalid = 1;
            else if (is_arg(a, "-o", "--output"))
                o->fmt = f;
            else
                o->fmt_err = f;
        } else if (fake_has_fit() && (is_arg(a, "-fitt", "--fit-target") || is_arg(a, "-fitc", "--fit-ctx"))) {
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
    free(usage);
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

void bench_opts_free(bench_opts *o)
{
    for (int d = 0; d < D_COUNT; d++)
        strv_clear(&o->dim[d]);
    strv_clear(&o->n_prompt);
    strv_clear(&o->n_gen);
    strv_clear(&o->pg);
    strv_clear(&o->gp);
}

static void inst_push(binst_list *l, const size_t *ix, int np, int ng)
{
    l->v = lvd_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    memcpy(l->v[l->n].ix, ix, sizeof l->v[l->n].ix);
    l->v[l->n].n_prompt = np;
    l->v[l->n].n_gen = ng;
    l->v[l->n].gp = 0;
    l->n++;
}

/* llama-bench's get_cmd_params_instances: the cross product with the model
 * outermost and poll innermost, then pp tests, tg tests, pg tests. */
void bench_instances(const bench_opts *o, binst_list *out)
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
        for (size_t j = 0; j < o->gp.n; j++) {
            int a = atoi(o->gp.v[j]), b = atoi(strchr(o->gp.v[j], ',') + 1);
            if (a || b) {
                inst_push(out, ix, a, b);
                out->v[out->n - 1].gp = 1;
            }
        }
        int d = D_COUNT - 1;
        while (d >= 0 && ++ix[d] == o->dim[d].n)
            ix[d--] = 0;
        if (d < 0)
            break;
    }
}
