/* fake.h: what the files of the fake engine (tests/fake-engine/) share: the
 * scenario contract below, the invocation state G, the common types, and the
 * functions each file offers the others. Not for llama-bench's internals
 * (fake_bench.h).
 *
 * The fake llama.cpp engine every end-to-end test drives. One
 * binary answers as llama-bench, llama-server, llama-perplexity or
 * llama-fit-params (chosen by the basename of argv[0]; `fake-engine
 * llama-bench ARGS` works too), with the
 * output formats of the real captures in tests/fixtures/llama.cpp/, and with
 * speeds, devices, correctness and faults taken from a scenario file so that
 * tests know the truth. Not a model runner: it computes nothing; llama-server
 * validates its argv, logs, and given --port answers HTTP (fake_http.c) until
 * SIGTERM, else exits.
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
 *   family = ik_llama.cpp            the persona of an ik_llama.cpp build
 *       (tests/fixtures/llama.cpp/cpu-build-ik4840/): no --list-devices in any
 *       tool (llama-bench: "invalid parameter", llama-server and
 *       llama-perplexity: "unknown argument"); llama-bench prints its CUDA
 *       devices' start-up lines at every invocation (cuda-ik4840-reconstructed/),
 *       lists ik's usage (-fmoe, -rtr, -mla; no -dev, -d, --no-warmup,
 *       --progress, -ncmoe's short name, -fitt; -o without jsonl), takes -fmoe and
 *       -rtr as one value per process (conditions fmoe=0|1, rtr=0|1; -fmoe
 *       defaults to 1) and prints ik's JSON fields (cuda/vulkan/... booleans,
 *       fused_moe, repack, mla_attn; no backends, no devices) with samples_ns;
 *       llama-server and llama-perplexity list -no-fmoe and -rtr, and -ngl only
 *       when a device is declared. Default: llama.cpp (mainline).
 *   means_only = 1                   ik's JSON without samples_ns / samples_ts, as
 *       its builds printed before them: each test's mean and deviation only.
 *   version = 0.4.1-dev              the SemVer era's --version line, "version: 0.4.1-dev
 *       (build 10991, commit 930e2fa59)" (llama_print_build_info); unset: "version: N (C)"
 *   cpu_info = AMD EPYC              threads = 2  (llama-bench's default -t)
 *   device = NAME|DESCRIPTION|TOTAL_MIB|FREE_MIB[|EXTRA]      (repeatable, in order)
 *       NAME is a ggml device name: CUDA0, ROCm0, Vulkan1, SYCL0, Metal ... The
 *       backend is NAME without its trailing digits. EXTRA: CUDA compute
 *       capability (default 9.0), ROCm gfx arch (default gfx1100), Vulkan driver
 *       shown in parentheses (default: first word of DESCRIPTION).
 *       `device = none` or no device line: a CPU-only build ("  (none)").
 *   devices_need_env = VAR
 *       the devices are seen only while VAR is set in the environment (any
 *       value); unset, every persona sees none, as llama.cpp's Vulkan backend
 *       hides lavapipe unless GGML_VK_VISIBLE_DEVICES lists it.
 *   backends = Vulkan,CUDA           backends the build carries besides those of
 *       its devices: one with no device prints its init failure on stderr
 *       ("ggml_vulkan: No devices found.", as vulkan-lavapipe-b9749/list-devices-hidden.stderr);
 *       pair it with a (fake) libggml-vulkan.so in the engine dir.
 *   cuda_archs = 800,860             the CUDA ARCHS of the system_info line
 *       (default: the first CUDA device's compute capability, 9.0 -> 900).
 *   split_modes = none,layer,row     the -sm values llama-bench accepts and its
 *       --help lists (default none,layer,row,tensor, as b9749); another -sm is
 *       an invalid parameter (usage, exit 1), as in a build older than it.
 *   Several GPUs: declare a device line each (CUDA0 and CUDA1). One card seen
 *       by two backends: a CUDA and a Vulkan line with the same DESCRIPTION and
 *       nearly the same TOTAL (gpu-h200: 143155 and 143771 MiB). A run with
 *       -dev A/B (not at -sm none) prints llama-bench -v's model, KV and
 *       compute buffer lines once per device, each its -ts share (no -ts: by
 *       FREE_MIB); its speed is the first device's (cond dev=A/B, sm=row).
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
 *   Depth (-d D, llama-bench's n_depth): speed x H / (H + D), so half the speed
 *   at D = H; H from depth_half (looked up as noise is: TARGET.K.depth_half,
 *   TARGET.depth_half, K.depth_half, depth_half; default 16384 for tg, 32768
 *   for pp; 0 = no slowdown). Rows carry n_depth and md's test "tg128 @ d2048"
 *   as b9749 prints them (tests/fixtures/llama.cpp/depth-b9749/).
 *
 * Serving (llama-server given --port answers HTTP, fake_http.c)
 *   server.ttft_ms = 20        the first token of a streamed /completion comes
 *                              this long after the request was read
 *   server.tg = 100            the next ones at this many t/s
 *   server.contention = 0.25   both stretched by 1 + this for every other
 *                              request in flight (N clients on N slots)
 *   server.health_ms = 0       /health answers 503 "Loading model" this long
 *                              after the load; -1: forever (never healthy)
 *   server.stream = ok         garbage: in every stream the first token's
 *                              event is a line that is no server-sent event
 *
 * Sample noise (looked up as TARGET.K.NAME, TARGET.NAME, K.NAME, NAME; K in pp tg pg)
 *   noise = 0.02       relative sd of each repetition (normal, deterministic)
 *   run_noise = 0      relative sd of a level drawn once per test per invocation
 *   warmup = 0.4       factor on the first repetition; a list (0.24,0.3,0.35)
 *                      for the first N (a ramp, as the Vulkan capture shows)
 *   cold = 1           factor on the first repetition of every test when
 *                      --no-warmup is passed (what llama-bench's warm-up run absorbs)
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
 * Faults: crash | hang | garbage | exit1 | truncated | oom | none
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
 *   oom: llama-bench only: Vulkan's out-of-device-memory lines
 *     (ErrorOutOfDeviceMemory, "failed to load model"), exit 1.
 *   offload_tg = F, offload_pp = F
 *     a llama-bench run's tg (pp) speed is divided by 1 + F x the share of the
 *     model's bytes its placement leaves on the host (fake_memory.c; default 0).
 *   llama.cpp's own fit (fake_fit.c): llama-bench -fitt M places the model as
 *     llama.cpp's fit would for the device's memory (real_mib, else its free
 *     MiB) less M: whole; else every layer with the experts of the last blocks
 *     on the host, the fewest; else the most blocks. The llama-fit-params
 *     persona (-m, -dev, -c, -fitt, -ub, -ctk, -ctv) prints that plan in the
 *     tool's format (`-c N -ngl N -ot "blk\.N\.ffn_..._exps=CPU,..."`).
 *   fit = 0: a build before llama.cpp's fit: llama-bench's --help lists no
 *     -fitt / -fitc and rejects them as invalid parameters.
 *   help_omit = -ncmoe,--no-warmup    flags this build does not have (help.c):
 *     no persona's --help lists the option line naming one (nor its other
 *     spellings), and every persona refuses them as an invalid argument, as
 *     a build older than them does.
 *   dev.NAME.real_mib = N     the memory the device really has (its device line
 *     may claim more): a llama-bench load whose need (weights and KV on the
 *     device for its -ngl / -ncmoe / -ub / cache types, from the GGUF's shape,
 *     plus the compute buffer; fake_memory.c) exceeds N fails as `oom` does.
 *
 * Context limit (llama-bench; lvd fit)
 *   ctx_limit = N, TARGET.ctx_limit = N   the largest context (n_prompt + n_gen
 *       + n_depth cells) that loads at f16/f16 KV; other -ctk/-ctv types hold
 *       proportionally more (q8_0/q8_0: N x 64/34). Above it the test fails as
 *       llama.cpp b9749 does (capture llama.cpp/ceiling-b9749/): with -v the
 *       allocator's "failed to allocate" lines, then "llama_bench: error:
 *       failed to create context with model 'M'", exit 1.
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
 *   load_log = PATH    llama-bench: one line per model load, "#INDEX load m=BASENAME
 *                      fitt= fitc= ngl= ncmoe= sm= lm= mg= dev= ts= ot= noh=". As the
 *                      real tool, the model is loaded before the first test and again
 *                      only when a model parameter (those) differs from the previous
 *                      test's: `-fa 0,1,1,0` is one load, `-ngl 0,99` two.
 *   load_ms = 0        simulated time of one model load (no sleeping; see sim_clock)
 *   sim_clock = PATH   llama-bench appends one line per invocation: its simulated ns
 *                      (load_ms per load + warm-up runs unless --no-warmup (a pp test's:
 *                      one prompt run; a tg test's: one token) + every sample's ns),
 *                      for benchmarks that run on simulated time.
 *
 * Energy (tests/fake-engine/energy.c, the fake NVML in tests/fake-nvml/)
 *   TARGET.watts = 300     draw above idle while a repetition computes on TARGET
 *   TARGET.energy = PATH   the uJ counter file it advances (relative: to the scenario
 *                          dir; wraps at a max_energy_range_uj file beside it)
 *   host_watts = 20        added to cpu.energy while a device computes
 *   With --progress, each repetition's line is printed before it "computes"
 *   (advances the counters, sleeps its time x time_scale), as the real tool does.
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
#ifndef LVD_FAKE_ENGINE_H
#define LVD_FAKE_ENGINE_H

#include "common/kv.h"
#include "common/util.h"

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
#include <strings.h>
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
typedef struct fake_state {
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
} fake_state;
extern fake_state G; /* fake_common.c */

typedef enum { F_NONE, F_CRASH, F_HANG, F_GARBAGE, F_EXIT1, F_TRUNCATED, F_OOM } fault_t;

typedef struct model_meta {
    char *type;
    uint64_t size;
    uint64_t n_params;
} model_meta;

typedef const char *(*param_fn)(const char *name, void *ctx);

typedef struct cargs {
    strv key, val; /* canonical option name -> last value ("" for flags) */
    int ngl_given;
} cargs;

/* fake_common.c */
char *dir_name(const char *p);
char *trim(char *s);
void strv_push(strv *s, const char *x);
void strv_clear(strv *s);
int streq(const char *a, const char *b);
int in_list(const char *s, const char *const *list);
void fake_free(void);
void flush_all(void);
void sleep_ms(double ms);
double rng_normal(void);
void inv_start(int argc, char **argv, const char *persona_name);
void log_line(char level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void scn_append(const char *key, const char *text, size_t n);
fault_t parse_fault(const lvd_kv *e);
fault_t fault_for(const char *P, const char *T);
void __attribute__((noreturn)) hang_now(void);
void __attribute__((noreturn)) garbage_now(FILE *f);
void __attribute__((noreturn)) partial_now(FILE *f, const char *text, fault_t fault);
void do_work_sleep(double sim_ns);
void do_work_sleep_rep(double sim_ns);
int model_load(const char *path, model_meta *m);
double speed_mult(const char *T, const char *K, param_fn fn, void *ctx);
double base_speed(const char *T, const char *K);
double depth_factor(const char *T, const char *K, int depth);
size_t dbl_list(const lvd_kv *e, double *out, size_t max);

/* scenario.c */
void die_scn(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
const lvd_kv *scn_find(const char *key);
const char *scn_str(const char *key, const char *def);
double ent_dbl(const lvd_kv *e);
double scn_dbl(const char *key, double def);
long scn_long(const char *key, long def);
const lvd_kv *scn_layered(const char *T, const char *K, const char *name);
const fake_dev *dev_by_name(const char *name);
void scn_load(const char *argv0);

/* devices.c */
int gpu_build(void);
int fake_ik(void);
const char *build_commit(void);
const char *split_modes(void);
long build_number(void);
void print_backend_init(void);
void backends_str(lvd_sb *sb);
void gpu_info_str(lvd_sb *sb);
char *pick_target(const char *devs, char sep, int ngl_zero);
void version_lines(void);
void no_gpu_warning(void);
void bench_list_devices(void);

/* help.c */
int fake_help_lacks(const char *usage, const char *arg);
int fake_help_lists(const char *usage, const char *arg);
void fake_help_print(const char *usage);

/* energy.c */
void energy_compute(const char *T, double ns);

/* fake_bench_args.c */
const char *fa_value(const char *v);
int is_int(const char *s, int allow_neg);

/* fake_bench.c */
int bench_main(int argc, char **argv);

/* args.c */
const char *opt_get(const cargs *c, const char *key);
void cargs_free(cargs *c);
int common_parse(int argc, char **argv, int where, cargs *c);
char *common_target(const cargs *c);
void system_info(int threads);

/* fake_server.c */
int server_main(int argc, char **argv);

/* fake_http.c */
/* The listening socket of HOST:PORT, or -1 when it cannot be bound. */
int http_bind(const char *host, const char *port);
/* Serves HTTP on lfd until SIGTERM or SIGINT; 0. */
int http_serve(int lfd, const char *host, const char *port, int slots, int with_metrics);

/* fake_perplexity.c */
int ppl_main(int argc, char **argv);

#endif
