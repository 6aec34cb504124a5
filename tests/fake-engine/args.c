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
    { "--metrics", 0, 1 },
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
    { "--jinja|--no-jinja|--props|--slots|--no-slots|--ui|--webui|--no-ui|--no-webui", 0, 1 },
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

/* Parses a server/perplexity argv. -1: error (exit 1); 1: handled (exit 0);
 * 0: go on. where: 1 server, 2 perplexity. */
int common_parse(int argc, char **argv, int where, cargs *c)
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
                   "                                        'auto', or 'all' (default: auto)\n");
            if (where == 1)
                printf("-np,   --parallel N                     number of server slots (default: -1, -1 = auto)\n"
                       "--host HOST                             ip address to listen, or bind to an UNIX socket if the "
                       "address ends\n"
                       "                                        with .sock (default: 127.0.0.1)\n"
                       "--port PORT                             port to listen (default: 8080)\n"
                       "--metrics                               enable prometheus compatible metrics endpoint "
                       "(default: disabled)\n");
            printf("(fake-engine: a subset of the real options)\n");
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
