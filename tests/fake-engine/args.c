/* args.c: common/arg.cpp's command line as llama-server and llama-perplexity
 * parse it: the options the fake knows, value checks, --version and
 * --list-devices, the run's target and the system_info line. Not for
 * llama-bench's own parser (fake_bench_args.c). */
#include "fake.h"

/* ------------------------------------- llama-server and llama-perplexity */

/* common/arg.cpp options that the fake knows. value: 1 when it takes one. */
typedef struct copt {
    const char *names; /* '|'-separated */
    int value;
    int where;         /* 1 server, 2 perplexity, 3 both */
    int spellings;     /* 1: the names are one option's (its --help line lists them
                          together); 0: options listed one by one */
} copt;

static const copt COPTS[] = {
    /* options the fake reads (the first name is the lookup key) */
    { "-h|--help|--usage", 0, 3, 1 },
    { "--version", 0, 3, 1 },
    { "--list-devices", 0, 3, 1 },
    { "-m|--model", 1, 3, 1 },
    { "-t|--threads", 1, 3, 1 },
    { "-c|--ctx-size", 1, 3, 1 },
    { "-b|--batch-size", 1, 3, 1 },
    { "-ub|--ubatch-size", 1, 3, 1 },
    { "-fa|--flash-attn", 1, 3, 1 },
    { "-ctk|--cache-type-k", 1, 3, 1 },
    { "-ctv|--cache-type-v", 1, 3, 1 },
    { "-dev|--device", 1, 3, 1 },
    { "-ncmoe|--n-cpu-moe", 1, 3, 1 },
    { "-ngl|--gpu-layers|--n-gpu-layers", 1, 3, 1 },
    { "-np|--parallel", 1, 3, 1 },
    { "--host", 1, 1, 1 },
    { "--port", 1, 1, 1 },
    { "--metrics", 0, 1, 1 },
    { "--api-key", 1, 1, 1 },
    { "--api-key-file", 1, 1, 1 },
    { "-f|--file", 1, 2, 1 },
    { "--chunks", 1, 2, 1 },
    { "--kl-divergence-base", 1, 2, 1 },
    { "--kl-divergence", 0, 2, 1 },
    /* options accepted and ignored */
    { "-tb|--threads-batch|-n|--predict|--n-predict|-lm|--load-mode|--numa|-ot|--override-tensor", 1, 3, 0 },
    { "-sm|--split-mode|-ts|--tensor-split|-mg|--main-gpu|-fitt|--fit-target|-fitc|--fit-ctx", 1, 3, 0 },
    { "-s|--seed|--prio|--poll|-C|--cpu-mask|-Cr|--cpu-range|--cpu-strict|--log-file|--keep", 1, 3, 0 },
    { "-lv|--verbosity|--log-verbosity|--lora|--temp|--top-k|--top-p|--min-p", 1, 3, 0 },
    { "-kvo|--kv-offload|-nkvo|--no-kv-offload|--mlock|--mmap|--no-mmap|--swa-full|--no-host", 0, 3, 0 },
    { "--check-tensors|--offline|--repack|-nr|--no-repack|--op-offload|--no-op-offload", 0, 3, 0 },
    { "--warmup|--no-warmup|-kvu|--kv-unified|-no-kvu|--no-kv-unified|--perf|--no-perf", 0, 3, 0 },
    { "-e|--escape|--no-escape|-cb|--cont-batching|-nocb|--no-cont-batching|-cmoe|--cpu-moe", 0, 3, 0 },
    { "--log-disable|-v|--verbose|--log-verbose|--log-prefix|--no-log-prefix", 0, 3, 0 },
    { "--log-timestamps|--no-log-timestamps", 0, 3, 0 },
    { "-fit|--fit|--log-colors", 1, 3, 0 },
    { "-a|--alias|--chat-template|--chat-template-file|-to|--timeout|--threads-http|--path", 1, 1, 0 },
    { "--api-prefix|--cache-reuse|-cram|--cache-ram|--ssl-key-file|--ssl-cert-file", 1, 1, 0 },
    { "--sleep-idle-seconds|--reasoning-format|--reasoning-budget|--pooling|-mm|--mmproj", 1, 1, 0 },
    { "-sps|--slot-prompt-similarity|--slot-save-path|--media-path|--models-dir|--models-max", 1, 1, 0 },
    { "-md|--model-draft|-ngld|--gpu-layers-draft|--n-gpu-layers-draft|-devd|--device-draft|--tags", 1, 1, 0 },
    { "--jinja|--no-jinja|--props|--slots|--no-slots|--ui|--webui|--no-ui|--no-webui", 0, 1, 0 },
    { "--reuse-port|--cache-prompt|--no-cache-prompt|--embedding|--embeddings|--rerank|--reranking", 0, 1, 0 },
    { "--no-mmproj|--mmproj-offload|--no-mmproj-offload|--context-shift|--no-context-shift", 0, 1, 0 },
    { "--spec-default", 0, 1, 0 },
    { "-rea|--reasoning", 1, 1, 0 },
    { "--ppl-stride|--ppl-output-type|--hellaswag-tasks|--winogrande-tasks|--multiple-choice-tasks", 1, 2, 0 },
    { "--hellaswag|--winogrande|--multiple-choice|--all-logits", 0, 2, 0 },
    /* ik_llama.cpp's own (fake_ik): listed and taken only by its persona */
    { "-no-fmoe|--no-fused-moe", 0, 3, 1 },
    { "-rtr|--run-time-repack", 0, 3, 1 },
    { "-mla|--mla-use", 1, 3, 1 },
};

/* 1 when option o is this build's: ik_llama.cpp's own only in its persona,
 * which has no --list-devices and lists -ngl only with a device (a build
 * with GPU offload, cpu-build-ik4840/server-help.stdout). */
static int copt_present(const copt *o)
{
    static const char *const ik_own[] = {"-no-fmoe", "-rtr", "-mla", NULL};
    size_t n = strcspn(o->names, "|");
    char *first = lvd_xstrndup(o->names, n);
    int present = fake_ik() ? !streq(first, "--list-devices") && (!streq(first, "-ngl") || G.ndev > 0)
                            : !in_list(first, ik_own);
    free(first);
    return present;
}

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

const char *opt_get(const cargs *c, const char *key)
{
    for (size_t i = c->key.n; i-- > 0;)
        if (strcmp(c->key.v[i], key) == 0)
            return c->val.v[i];
    return NULL;
}

void cargs_free(cargs *c)
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

/* The argv of a server/perplexity run as common_parse takes it, help the
 * persona's usage (what the build lists). */
static int common_parse_args(int argc, char **argv, int where, char *help, cargs *c)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const copt *o = copt_find(arg, where);
        if (o && !copt_present(o) && fake_ik()) { /* ik's gpt_params_parse */
            fprintf(stderr, "error: unknown argument: %s\n", arg);
            return -1;
        }
        if (!o || !copt_present(o) || fake_help_lacks(help, arg)) {
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
            fake_help_print(help);
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

/* The argument hint common/arg.cpp prints after an option's names. */
static const char *copt_hint(const char *name)
{
    static const char *const hints[][2] = {
        { "-fa", "[on|off|auto]" }, { "-dev", "<dev1,dev2,..>" }, { "-sm", "{none,layer,row,tensor}" },
        { "--split-mode", "{none,layer,row,tensor}" }, { "-fit", "[on|off]" }, { "--fit", "[on|off]" },
        { "-fitt", "MiB0,MiB1,MiB2,..." }, { "--fit-target", "MiB0,MiB1,MiB2,..." }, { "-m", "FNAME" },
        { "-f", "FNAME" }, { "--kl-divergence-base", "FNAME" }, { "-ctk", "TYPE" }, { "-ctv", "TYPE" },
        { "-ts", "N0,N1,N2,..." }, { "--tensor-split", "N0,N1,N2,..." },
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(hints); i++)
        if (!strcmp(name, hints[i][0]))
            return hints[i][1];
    return "N";
}

/* One usage line: names, the hint of the first when it takes a value. */
static void help_line(lvd_sb *sb, const char *const *names, size_t n, int value)
{
    lvd_sb line = { 0 };
    for (size_t i = 0; i < n; i++)
        lvd_sb_addf(&line, "%s%s", i ? ", " : "", names[i]);
    if (value)
        lvd_sb_addf(&line, " %s", copt_hint(names[0]));
    lvd_sb_addf(sb, "%-38s  (fake-engine)\n", lvd_sb_str(&line)); /* two spaces at least: no hint */
    lvd_sb_free(&line);
}

/* The usage of the persona at where, in common/arg.cpp's layout: every
 * option it knows (before help_omit, help.c). */
static char *common_help_text(int where)
{
    lvd_sb sb = { 0 };
    lvd_sb_adds(&sb, "----- common params -----\n\n");
    for (size_t i = 0; i < LVD_ARRAY_LEN(COPTS); i++) {
        if (!(COPTS[i].where & where) || !copt_present(&COPTS[i]))
            continue;
        char **names = lvd_split(COPTS[i].names, '|', NULL);
        size_t n = 0;
        while (names[n])
            n++;
        if (COPTS[i].spellings)
            help_line(&sb, (const char *const *)names, n, COPTS[i].value);
        for (size_t k = 0; !COPTS[i].spellings && k < n; k++)
            help_line(&sb, (const char *const *)names + k, 1, COPTS[i].value);
        lvd_strv_free(names);
    }
    lvd_sb_adds(&sb, "\n(fake-engine: the options it knows)\n");
    return lvd_sb_detach(&sb);
}

/* Parses a server/perplexity argv. -1: error (exit 1); 1: handled (exit 0);
 * 0: go on. where: 1 server, 2 perplexity. */
int common_parse(int argc, char **argv, int where, cargs *c)
{
    memset(c, 0, sizeof *c);
    char *help = common_help_text(where);
    int rc = common_parse_args(argc, argv, where, help, c);
    free(help);
    return rc;
}


/* The target of a server/perplexity run from --device and -ngl. */
char *common_target(const cargs *c)
{
    const char *ngl = opt_get(c, "-ngl");
    return pick_target(opt_get(c, "-dev"), ',', ngl && strcmp(ngl, "0") == 0);
}

void system_info(int threads)
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
                if (scn_find("cuda_archs"))
                    lvd_sb_addf(&sb, "CUDA : ARCHS = %s | USE_GRAPHS = 1 | ", scn_str("cuda_archs", ""));
                else
                    lvd_sb_addf(&sb, "CUDA : ARCHS = %s0 | USE_GRAPHS = 1 | ", arch);
                break;
            }
    log_line('I', "\n");
    log_line('I', "system_info: n_threads = %d (n_threads_batch = %d) / %d | %sCPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | "
              "AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | \n",
         threads, threads, threads, lvd_sb_str(&sb));
    lvd_sb_free(&sb);
}
