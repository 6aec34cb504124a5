/* lvd-bench.c: the `lvd bench` tool. Measures every arm (engine x device x
 * parameters) of a model with llama-bench, adaptively, until the statistics
 * decide, and records every run in the store; with --check, checks every
 * device against the CPU first (check/check.h). Option parsing only; the
 * work is bench/job.c over bench/plan.c, bench/runner.c and bench/report.c. */
#include "bench/job.h"
#include "bench/runner.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "energy/watch.h"

#define TOOL "lvd-bench"

typedef struct options {
    lvd_tool_opts t; /* --store, --json */
    bench_job j;
} options;

static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(j.model), .req = LVD_FORM(0), .help = "the GGUF model (identified by its sha256)"},
    {LVD_OPT_ENGINES, LVD_AT(j.engines)},
    {.spell = "--tests", .arg = "LIST", .kind = LVD_OPT_STR, LVD_AT(j.tests),
     .help = "llama-bench tests, ppN and tgN (default pp512,tg128)"},
    {LVD_OPT_NPROMPT, LVD_AT(j.n_prompt), .help = "the pp tests as llama-bench's -p gives them: one for each "
                                                   "(default 512, 0 = none)"},
    {LVD_OPT_NGEN, LVD_AT(j.n_gen), .help = "the tg tests as llama-bench's -n gives them (default 128, 0 = none)"},
    {LVD_OPT_CTX, LVD_AT(j.ctx),
     .help = "the context the service will run with (default what lvd select launches with: min(4096, the "
             "trained context); 0 = the trained context); placement places for it"},
    {LVD_OPT_DEPTH, LVD_AT(j.depth),
     .help = "context depths to measure every test at (default 0 and half of -c: pp512, tg128, pp512@dD, "
             "tg128@dD); the objective is decided at the deepest, the serving depth"},
    {LVD_OPT_NGL, LVD_AT(j.ngl), .help = "-ngl values for GPU arms (default 99, or the placement rung when the "
                                          "model does not fit the device's free memory)"},
    {LVD_OPT_FA, LVD_AT(j.fa), .help = "flash attention: on, off, 1 or 0 (default on,off)"},
    {LVD_OPT_UB, LVD_AT(j.ub), .help = "-ub values for GPU arms (default: not passed)"},
    {LVD_OPT_CTK, LVD_AT(j.ctk), .help = "K cache types (default: not passed); cache types go in matched pairs "
                                          "(-ctk q8_0 -ctv q8_0)"},
    {LVD_OPT_CTV, LVD_AT(j.ctv), .help = "V cache types (default: not passed); a quantized -ctv needs -fa on "
                                          "(refused with -fa off)"},
    {.spell = "--kv-mixed", .kind = LVD_OPT_FLAG, LVD_AT(j.kv_mixed),
     .help = "also mixed K/V cache types (-ctk x -ctv; a known slow path)"},
    {LVD_OPT_NCMOE, LVD_AT(j.ncmoe), .help = "--n-cpu-moe values for GPU arms (default: not passed)"},
    {LVD_OPT_SM, LVD_AT(j.sm), .help = "split modes of the arms over several GPUs (default layer,row and tensor "
                                        "where the engine's llama-bench --help lists it)"},
    {LVD_OPT_TS, LVD_AT(j.ts), .help = "-ts of those arms (default: each device's free memory)"},
    {LVD_OPT_THREADS, LVD_AT(j.threads), .help = "-t for every arm"},
    {LVD_OPT_FMOE, LVD_AT(j.fmoe), .help = "fused MoE values, on engines whose llama-bench lists -fmoe "
                                            "(ik_llama.cpp; default: not passed, the engine's own)"},
    {LVD_OPT_RTR, LVD_AT(j.rtr), .help = "run-time repacking values, on engines whose llama-bench lists -rtr "
                                          "(ik_llama.cpp; default: not passed)"},
    {.spell = "--env", .arg = "K=V[ K2=V2]", .kind = LVD_OPT_STRS, LVD_AT(j.env),
     .help = "an environment variant measured beside the baseline (repeatable; GGML_VK_* reaches Vulkan arms "
             "only, GGML_CUDA_* CUDA only)"},
    {LVD_OPT_REPS, LVD_AT(j.reps), .help = "repetitions per invocation (default: chosen from the measured load "
                                            "and sample costs, said in the report)"},
    {LVD_OPT_BUDGET, LVD_AT(j.budget_s), .def = "15m", .help = "stop starting runs after DUR (0 = none)"},
    {.spell = "--max-samples", .arg = "N", .kind = LVD_OPT_INT, .lo = 1, .hi = 100000, LVD_AT(j.max_samples),
     .def = LVD_STRINGIFY(BENCH_MAX_SAMPLES_DEFAULT), .help = "kept samples per arm and test before giving up"},
    {.spell = "--min-samples", .arg = "N", .kind = LVD_OPT_INT, .lo = 2, .hi = 1000, LVD_AT(j.min_samples),
     .help = "kept samples per arm at its first look (default 3, the fewest a win needs; 5 gives a tie, and lvd "
             "pin's no-regression rule, samples enough: the nightly passes 5)"},
    {LVD_OPT_TIMEOUT, LVD_AT(j.timeout_s), .def = LVD_STRINGIFY(BENCH_TIMEOUT_S_DEFAULT) "s",
     .help = "kill an invocation after DUR"},
    {.spell = "--session", .arg = "ID", .kind = LVD_OPT_STR, LVD_AT(j.session),
     .help = "session id recorded on every run (default bench-EPOCH-HOST-RANDOM)"},
    {.spell = "--resume", .kind = LVD_OPT_FLAG, LVD_AT(j.resume),
     .help = "continue session ID: its runs already in the store (this model, this host) count as measured; "
             "nothing is measured again"},
    {LVD_OPT_WAIT, LVD_AT(j.wait_s)},
    {STATS_OPT_OBJECTIVE, LVD_AT(j.objective)},
    {.spell = "--energy-idle", .arg = "DUR|off", .kind = LVD_OPT_CALL, .call = bench_job_energy_idle,
     LVD_AT(j.energy_idle_ms), .def = LVD_STRINGIFY(ENERGY_IDLE_MS_DEFAULT) "ms",
     .help = "the idle baseline before the session; off: no energy is measured"},
    {.spell = "--check", .kind = LVD_OPT_FLAG, LVD_AT(j.check),
     .help = "first check every device against the CPU, as lvd check does (default off: the bench's cost stays "
             "what --budget says)"},
    {LVD_OPT_JSON, .help = "print JSON instead of tables"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Runs llama-bench for every arm (engine x device x parameter set) of the model in interleaved rounds "
             "(A B C, C B A, ...) until the statistics decide which arm is fastest, and records every repetition "
             "in the store. Only engines whose probe shows devices get GPU arms (device selectors from that "
             "engine's own probe); a CPU-only engine gets one CPU arm; engines that cannot be probed are skipped "
             "and recorded. An arm that asks for a GPU and runs on the CPU is flagged GPU FLAGS IGNORED. When a "
             "device cannot hold the model whole, placement chooses -ngl/-ncmoe/-ub (keeping each backend's margin "
             "correction from the allocations in the store), a load that runs out of memory gets the next rung in "
             "the same session, and where llama-bench has -fitt a \"llama.cpp fit\" arm runs beside ours (the "
             "report says which placement is faster). A device measured without a correctness check (lvd check) "
             "cannot win a verdict: the bench warns at the end, naming the lvd check command; --check runs it "
             "first.",
    .opts = table,
    .exits = "0 decided or settled, 5 some arm failed, was excluded or ignored its GPU flags, or an engine was "
             "skipped (all recorded), 1 nothing could be measured or no engines, 2 usage, 3 model unreadable, 4 "
             "store error, 8 the devices are in use.",
    .examples = "lvd bench --model ~/models/qwen3-8b-q4_k_m.gguf --engines b10715-vulkan,cuda-local \\\n"
                "    --fa on --env GGML_VK_PREFER_HOST_MEMORY=1 --budget 20m\n"
                "lvd bench -m ~/models/qwen3-8b-q4_k_m.gguf -ngl 99 -fa 0,1 -p 512 -n 128 -r 5\n"
                "lvd bench -m ~/models/qwen3-30b-a3b-q4_0.gguf --engines b10715,ik -rtr 0,1 -fmoe 0,1",
};

int main(int argc, char **argv)
{
    options o = {.j = {.tool = TOOL, .ctx = -1, .reps = BENCH_REPS_DEFAULT}};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (code == 0 && o.j.tests && (o.j.n_prompt || o.j.n_gen))
        code = lvd_usage_error(TOOL, "--tests and -p/-n exclude each other");
    else if (code == 0 && o.j.resume && !o.j.session)
        code = lvd_usage_error(TOOL, "--resume continues a session: give its --session ID");
    o.j.store = o.t.store;
    o.j.json = o.t.json;
    if (code == 0)
        code = bench_job_run(&o.j);
    lvd_opt_free(&tool, &o);
    return code < 0 ? LVD_EXIT_OK : code;
}
