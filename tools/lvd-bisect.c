/* lvd-bisect.c: the `lvd bisect` tool: hunts the first bad llama.cpp release
 * build between a good and a bad one (bisect/bisect.h). Option parsing and
 * printing only. */
#include "bisect/bisect.h"
#include "builds/asset.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "engine/devlock.h"
#include "fetch/fetch.h"

typedef struct options {
    lvd_tool_opts t;
    bisect_opts b;
    int64_t wait_s; /* --wait: how long to wait for the device lock */
} options;

static const lvd_opt table[] = {
    {.spell = "--good", .arg = "BUILD", .kind = LVD_OPT_STR, LVD_AT(b.good), .req = LVD_FORM(0),
     .help = "the newest build known good (b<number>, or a SemVer release v<x.y.z>: the build its nightly-tag.txt "
             "names)"},
    {.spell = "--bad", .arg = "BUILD", .kind = LVD_OPT_STR, LVD_AT(b.bad), .req = LVD_FORM(0),
     .help = "the oldest build known bad (the same kinds of name); builds are ordered by number whichever name "
             "is given"},
    {LVD_OPT_MODEL, LVD_AT(b.model), .req = LVD_FORM(0), .help = "the GGUF model to bench"},
    {BUILDS_OPT_FLAVOUR, LVD_AT(b.flavour), .def = FETCH_DEFAULT_FLAVOUR, .help = "release flavour"},
    {.spell = "--test", .arg = "T", .kind = LVD_OPT_STR, LVD_AT(b.test), .def = "tg128",
     .help = "the regressed llama-bench test, ppN or tgN"},
    {.spell = "--arm", .arg = "SPEC", .kind = LVD_OPT_STR, LVD_AT(b.arm),
     .help = "the regressed arm: a device selector or backend (Vulkan0, vulkan, cpu), then fa=on|off (default on) "
             "and ngl=N (default: the first device of each build, fa on)"},
    {LVD_OPT_BUDGET, LVD_AT(b.budget_s), .def = "1h",
     .help = "the whole hunt's bench time, spread over log2(N) + 1 steps (0 = none: each step runs until it is "
             "decided or has its samples)"},
    {.spell = "--keep", .kind = LVD_OPT_FLAG, LVD_AT(b.keep), .help = "keep the bench dirs the hunt downloaded"},
    {LVD_OPT_WAIT, LVD_AT(wait_s)},
    {LVD_OPT_BUILDS_DIR, LVD_AT(b.builds_dir)},
    {LVD_OPT_STORE},
    {LVD_OPT_JSON, .help = "print {last_good, first_bad, steps: [...], skipped: [...], ...}"},
    {0},
};

static const lvd_opt_tool tool = {
    .name = "lvd-bisect",
    .about = "Finds the first release build between a good and a bad one that is slower on the test: lists the "
             "releases between them that publish the flavour's asset (the release API, paginated), then "
             "binary-searches. Each step fetches the middle build, verified exactly as lvd fetch verifies (a build "
             "whose digest cannot be verified or does not match is skipped, with its reason), benches it against "
             "the good and the bad build in one interleaved session on the one arm and test, and calls it good "
             "(faster than bad, not slower than good), bad (slower than good, not faster than bad) or skip "
             "(between the two, or undecided within the step's budget: the search goes on around it, as git bisect "
             "skip). Every step is recorded in the store as it is decided: a hunt interrupted and run again resumes "
             "there. The bench dirs it downloaded are removed at the end unless --keep.",
    .opts = table,
    .more = "environment: GITHUB_TOKEN, LVD_RELEASES_API, LVD_RELEASES_DOWNLOAD (as lvd fetch).",
    .exits = "0 the first bad build found; 1 no boundary (only skipped builds between, or the bad build is not "
             "slower than the good one here); 2 usage (bad option, a build that is not a published release of the "
             "flavour); 3 bad model; 4 store; 6 the good or the bad build could not be verified; 7 network or HTTP "
             "failure (the hunt is interrupted: run it again to resume); 8 the devices are in use (another process "
             "holds the device lock).",
    .examples = "lvd bisect --good b7100 --bad b7131 -m ~/models/qwen3-8b-q4_k_m.gguf \\\n"
                "    --flavour bin-ubuntu-vulkan-x64 --test tg128 --budget 1h",
};

int main(int argc, char **argv)
{
    options o = {.b = {.notes = stderr}};
    lvd_opt_result pr;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &pr);
    if (code)
        return code < 0 ? LVD_EXIT_OK : code;
    o.b.store_path = o.t.store;
    engine_devlock lock;
    code = engine_devlock_tool(tool.name, o.t.store, o.wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK)
        return code;
    bisect_result r;
    lvd_err err = {0};
    code = bisect_run(&o.b, &r, &err);
    engine_devlock_release(&lock);
    if (code == LVD_EXIT_USAGE)
        code = lvd_usage_error(tool.name, "%s", err.msg);
    else if (code != LVD_EXIT_OK)
        lvd_error(tool.name, "%s", err.msg);
    if (o.t.json && (code == LVD_EXIT_OK || r.n_steps))
        lvd_json_emit(stdout, bisect_result_json(&r));
    else if (code == LVD_EXIT_OK || r.n_steps)
        bisect_result_print(stdout, &r);
    bisect_result_free(&r);
    return code;
}
