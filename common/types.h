/* types.h: the plain data records that modules hand each other and that the
 * store persists. No behaviour here; each record is filled by one module
 * (named in its comment) and read by the others. */
#ifndef LVD_TYPES_H
#define LVD_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define LVD_SHA256_HEX_LEN 64

/* Backend labels. "cpu" is a fact (probed, no devices); "unknown" is the
 * absence of one (could not be asked). Never conflate the two. */
#define LVD_BACKEND_CPU "cpu"
#define LVD_BACKEND_UNKNOWN "unknown"

/* Engine families: which line of llama.cpp an engine is, told from its own
 * words (engine/family.h). Build numbers mean something only within one:
 * ik_llama.cpp's count its own history, never mainline's b<N>. */
#define LVD_FAMILY_MAINLINE "llama.cpp"
#define LVD_FAMILY_IK "ik_llama.cpp"
#define LVD_FAMILY_UNKNOWN "unknown"

/* One device as `--list-devices` printed it (engine/devices.c fills it). */
typedef struct lvd_device {
    char selector[64];    /* verbatim, e.g. "CUDA0", "Vulkan1" */
    char name[256];       /* e.g. "NVIDIA H200" */
    int64_t total_mib;    /* -1 when not printed */
    int64_t free_mib;     /* -1 when not printed */
    char backend[16];     /* from the selector prefix: cuda vulkan rocm metal sycl ... */
    char compute_cap[16]; /* NVIDIA compute capability ("9.0") when a log revealed it */
} lvd_device;

/* The result of asking one engine binary for its devices (engine/probe.c). */
typedef struct lvd_probe {
    int64_t id;
    int64_t engine_id;
    char *binary;          /* absolute path of the binary asked */
    int64_t bin_mtime_ns;
    int64_t bin_size;
    int64_t probed_at;     /* epoch seconds */
    char backend[16];      /* LVD_BACKEND_* or a device backend */
    char *reason;          /* why "unknown"; NULL otherwise */
    char *env;             /* the device-visibility variables in force when it was made
                              (engine/visibility.h record); NULL = not recorded */
    lvd_device *devices;
    size_t n_devices;
    /* The engine's files when it was probed (engine/files.h) and what they carry. */
    char *files;           /* engine_files_key; NULL when not recorded (an older probe) */
    char backends[64];     /* backends the files carry, "cpu,vulkan" (engine/backends.h) */
    char *no_device;       /* "Vulkan backend present, no Vulkan device (driver missing?)"; NULL */
    char cuda_archs[64];   /* "890,900" when a log of the build printed them; "" unknown */
    char *changed;         /* not stored: why the cached probe was not served; NULL */
    char *flags;           /* the flags its tools' --help list (engine/help.h record); NULL
                              when not read (an unknown probe, or one made before they were) */
} lvd_probe;

/* A llama.cpp engine: a directory with llama-server and/or llama-bench. */
typedef struct lvd_engine {
    int64_t id;
    char *name;            /* unique id users type: "b10715-vulkan", "cuda-local" */
    char *dir;             /* absolute directory */
    char *build;           /* "b10715"; the registered id is what counts */
    char *commit;          /* NULL when unknown */
    char *semver;          /* what its --version says since the SemVer releases ("0.4.1-dev");
                              NULL before them, or when it could not be asked */
    char *family;          /* LVD_FAMILY_*; NULL: llama.cpp (lvd_engine_family) */
    char *release;         /* the SemVer release it was fetched as ("v0.4.1"); NULL otherwise */
    char *flavour;         /* release flavour or "local" */
    char *digest;          /* sha256 of the archive (fetched) or of the main binary */
    char *origin;          /* "fetched" | "registered" | "imported" */
    int64_t created_at;
    char *host;            /* the machine it is on; NULL when writing: this one (lvd_hostname) */
} lvd_engine;

/* What an arm asks llama-bench / llama-server for. Defaults mean "flag not passed". */
typedef struct lvd_params {
    char device[64];       /* --device selector(s) from the probe, "" = not passed; several
                              devices in llama-bench's spelling "CUDA0/CUDA1" (select/launch.c
                              writes llama-server's "CUDA0,CUDA1") */
    char split_mode[8];    /* -sm layer|row|tensor (several devices only); "" = not passed */
    char tensor_split[64]; /* -ts in llama-bench's spelling "0.60/0.40"; "" = not passed */
    int ngl;               /* -ngl; -1 = not passed */
    int fa;                /* -fa; -1 = not passed, 0 off, 1 on */
    int ubatch;            /* -ub; 0 = not passed */
    char type_k[16];       /* -ctk; "" = not passed */
    char type_v[16];       /* -ctv; "" = not passed */
    int n_cpu_moe;         /* -ncmoe; 0 = not passed */
    int threads;           /* -t; 0 = not passed */
    char env[256];         /* extra environment "K=V K2=V2"; "" = none */
    int fit_target;        /* -fitt MiB: llama.cpp's own fit places the model;
                            * 0 = not passed (then ngl / n_cpu_moe / ubatch say) */
    int fit_ctx;           /* -fitc: the least context llama.cpp's fit may choose; 0 = not passed */
    int parallel;          /* llama-server -np (--parallel): the slots of a serving arm, measured
                            * under as many concurrent clients (lvd serve, serve/); 0 = not
                            * passed: a llama-bench arm */
    int fused_moe;         /* ik_llama.cpp's fused MoE (-fmoe 0|1); -1 = not passed */
    int repack;            /* ik_llama.cpp's run-time repacking (-rtr 0|1); -1 = not passed */
} lvd_params;

/* One test (pp512, tg128, ...) of one llama-bench invocation. */
/* Energy attributed to one result's timed repetitions (energy/energy.h);
 * measured 0: not measured, note says why ("" = no source at all). */
typedef struct lvd_energy {
    int measured;
    char source[32];       /* "nvml", "nvml+rapl", "hwmon", "rapl" */
    char device[96];       /* what was metered: "CUDA0=00000000:17:00.0+package-0" */
    double joules;         /* gross, over the window */
    double window_s;       /* how long the window lasted */
    double idle_watts;     /* the same sources' idle baseline; NAN = not measured */
    char note[96];         /* why not measured */
} lvd_energy;

typedef struct lvd_result {
    int64_t id;
    char test[48];         /* "pp512", "tg128", "pp512@d1024" as llama-bench names them */
    int n_prompt, n_gen, n_depth;
    char backends[64];     /* what llama-bench reported ("CUDA", "CPU", "Vulkan") */
    int rep_ngl, rep_fa, rep_ubatch, rep_n_cpu_moe, rep_threads; /* reported back */
    char rep_type_k[16], rep_type_v[16];
    char *reported_json;   /* the object llama-bench printed, but for samples_ns and samples_ts
                            * (they are the samples: stored once) */
    size_t n;              /* samples */
    int64_t *ns;
    double *ts;
    unsigned char *warmup; /* 1 = dropped as warm-up (kept, never scored) */
    lvd_energy energy;     /* over the timed repetitions (store: result_energy) */
} lvd_result;

/* One llama-bench invocation (bench/runner.c or store import). */
/* What llama.cpp said it allocated on one device in one run, next to what
 * placement predicted for the arm (engine/alloclog.h parses the first from
 * llama-bench -v's stderr). Bytes; -1 = not reported / not predicted. */
typedef struct lvd_alloc {
    char device[64];       /* "Vulkan0", "CUDA0", ...; "CPU" for every host buffer */
    int64_t model, kv, compute;
    int64_t pred_model, pred_kv, pred_compute;
    char build[32];        /* the run's engine build, where the reader knows it (store_alloc_rows:
                              the margin correction is per backend and build); "" = not read */
} lvd_alloc;

typedef struct lvd_run {
    int64_t id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char *binary;          /* absolute path of the binary run */
    char *build;           /* engine build id at the time */
    char *host;
    char *session;         /* groups runs of one bench session / night */
    char uid[33];          /* unique across stores (common/uid.h); "" when writing: a new one */
    lvd_params params;     /* what was asked */
    char *arm_key;         /* canonical arm id (benchio/arm.c) */
    char *build_commit;    /* as llama-bench reported it */
    int64_t build_number;
    char status[16];       /* "ok", "failed", "gpu_ignored" */
    char *reason;          /* failure reason */
    int exit_code;         /* -1 when killed / not run */
    char *stderr_tail;
    char *left_out;        /* the flags the build's --help did not list, left out of the
                              invocation (engine/argv.h note); NULL: none */
    int64_t started_at;
    int64_t wall_ms;
    char source[16];       /* "bench" | "import" */
    lvd_result *results;
    size_t n_results;
    lvd_alloc *alloc;      /* per device, from the run's stderr (store: run_alloc) */
    size_t n_alloc;
} lvd_run;

/* Correctness of one engine/device against the CPU for one artifact (check/check.c). */
typedef struct lvd_check {
    int64_t id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char device[64];       /* selector, "" for the CPU reference */
    char *host;
    int64_t ran_at;
    char status[8];        /* "pass", "fail", "error", "base" (the CPU reference) */
    double mean_kld;       /* NAN when not measured */
    double same_top_p;     /* percent */
    double ppl;
    double ppl_base;
    double ppl_ratio;
    char *reason;
    char env[256];         /* the device-visibility variables the run carried, "K=V ..." */
} lvd_check;

/* The decision for one artifact on one host (select/). */
typedef struct lvd_verdict {
    int64_t id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char *host;
    int64_t decided_at;
    char *objective;       /* "tg", "pp", or "w=0.70" */
    int64_t engine_id;
    lvd_params params;
    char *arm_key;
    char *rule;            /* which rule decided: "win", "tie", "only-arm", ... */
    char *explain;         /* one paragraph for humans */
    char *fingerprint;     /* engines compared: "id:path:build:mtime;..." */
    char *stats_json;      /* the comparisons behind it */
    int depth;             /* llama-bench -d of the tests it decided on: the context its launch
                              serves; -1 when not recorded (a verdict from before schema 18) */
} lvd_verdict;

/* One nightly pin decision (select/pin.c). */
typedef struct lvd_pin_decision {
    int64_t id;
    int64_t decided_at;
    char *pinned_build;
    char *candidate_build;
    char *decision;        /* "keep" | "promote" */
    char *rule;            /* the rule that held or moved the pin */
    char *details_json;
} lvd_pin_decision;

void lvd_probe_free(lvd_probe *p);
void lvd_engine_free(lvd_engine *e);
/* A deep copy of src into dst (free with lvd_engine_free). */
void lvd_engine_copy(lvd_engine *dst, const lvd_engine *src);
/* e's family: e->family, or LVD_FAMILY_MAINLINE when none was recorded (an
 * engine registered before families were told). */
const char *lvd_engine_family(const lvd_engine *e);
void lvd_result_free(lvd_result *r);
void lvd_run_free(lvd_run *r);
void lvd_check_free(lvd_check *c);
void lvd_verdict_free(lvd_verdict *v);
void lvd_pin_decision_free(lvd_pin_decision *d);
void lvd_params_init(lvd_params *p);

#endif
