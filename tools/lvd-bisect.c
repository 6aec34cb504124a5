/* lvd-bisect.c: the `lvd bisect` tool: hunts the first bad llama.cpp release
 * build between a good and a bad one (bisect/bisect.h). Option parsing and
 * printing only. */
#include "bisect/bisect.h"
#include "common/cli.h"
#include "common/util.h"
#include "engine/devlock.h"
#include "fetch/fetch.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-bisect"

typedef struct options {
    lvd_tool_opts t;
    bisect_opts b;
    int test_set, arm_set;
    int64_t wait_s;          /* --wait: how long to wait for the device lock */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd bisect --good BUILD --bad BUILD --model M.gguf [--flavour F]\n"
            "                  [--arm DEVICE[,fa=on|off][,ngl=N] | --test tg128] [--budget 1h]\n"
            "                  [--keep] [--builds-dir DIR] [--wait DUR] [--json] [--store PATH]\n\n"
            "Finds the first release build between a good and a bad one that is slower on the\n"
            "test: lists the releases between them that publish the flavour's asset (the release\n"
            "API, paginated), then binary-searches. Each step fetches the middle build, verified\n"
            "exactly as lvd fetch verifies (a build whose digest cannot be verified or does not\n"
            "match is skipped, with its reason), benches it against the good and the bad build in\n"
            "one interleaved session on the one arm and test, and calls it good (faster than bad,\n"
            "not slower than good), bad (slower than good, not faster than bad) or skip (between\n"
            "the two, or undecided within the step's budget: the search goes on around it, as\n"
            "git bisect skip). Every step is recorded in the store as it is decided: a hunt\n"
            "interrupted and run again resumes there. The bench dirs it downloaded are removed\n"
            "at the end unless --keep.\n\n"
            "options:\n"
            "  --good BUILD       the newest build known good (b<number>, or a SemVer release\n"
            "                     v<x.y.z>: the build its nightly-tag.txt names)\n"
            "  --bad BUILD        the oldest build known bad (the same kinds of name); builds\n"
            "                     are ordered by number whichever name is given\n"
            "  -m, --model PATH   the GGUF model to bench\n"
            "  --flavour F        release flavour (default %s)\n"
            "  --test T           the regressed llama-bench test, ppN or tgN (default tg128)\n"
            "  --arm SPEC         the regressed arm: a device selector or backend (Vulkan0,\n"
            "                     vulkan, cpu), then fa=on|off (default on) and ngl=N\n"
            "                     (default: the first device of each build, fa on)\n"
            "  --budget DUR       the whole hunt's bench time (90s, 15m, 1h; default 1h),\n"
            "                     spread over log2(N) + 1 steps\n"
            "  --keep             keep the bench dirs the hunt downloaded\n"
            "  --wait DUR         wait up to DUR for the device lock a bench, check or nightly\n"
            "                     holds (default: refuse at once, naming the holder)\n"
            "  --builds-dir DIR   where bench dirs live (default: $LVD_BUILDS_DIR, else\n"
            "                     $XDG_DATA_HOME/llama-verdict/builds)\n"
            "  --store PATH       the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                     (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  --json             print {last_good, first_bad, steps: [...], skipped: [...], ...}\n"
            "  --help             this text\n\n"
            "Environment: GITHUB_TOKEN, LVD_RELEASES_API, LVD_RELEASES_DOWNLOAD (as lvd fetch).\n\n"
            "Exit status: 0 the first bad build found; 1 no boundary (only skipped builds\n"
            "between, or the bad build is not slower than the good one here); 2 usage (bad\n"
            "option, a build that is not a published release of the flavour); 3 bad model;\n"
            "4 store; 6 the good or the bad build could not be verified; 7 network or HTTP\n"
            "failure (the hunt is interrupted: run it again to resume); 8 the devices are in\n"
            "use (another process holds the device lock).\n\n"
            "Example:\n"
            "  lvd bisect --good b7100 --bad b7131 -m ~/models/qwen3-8b-q4_k_m.gguf \\\n"
            "      --flavour bin-ubuntu-vulkan-x64 --test tg128 --budget 1h\n",
            FETCH_DEFAULT_FLAVOUR);
}

enum { O_GOOD = 256, O_BAD, O_FLAVOUR, O_TEST, O_ARM, O_BUDGET, O_KEEP, O_BUILDS, O_WAIT };

static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    switch (c) {
    case O_GOOD: o->b.good = arg; break;
    case O_BAD: o->b.bad = arg; break;
    case 'm': o->b.model = arg; break;
    case O_FLAVOUR: o->b.flavour = arg; break;
    case O_TEST: o->b.test = arg, o->test_set = 1; break;
    case O_ARM: o->b.arm = arg, o->arm_set = 1; break;
    case O_KEEP: o->b.keep = 1; break;
    case O_WAIT:
        if (lvd_parse_wait(TOOL, arg, &o->wait_s))
            return LVD_EXIT_USAGE;
        break;
    case O_BUILDS: o->b.builds_dir = arg; break;
    case O_BUDGET:
        if (lvd_parse_duration(arg, &o->b.budget_s) != 0 || o->b.budget_s <= 0)
            return lvd_usage_error(TOOL, "--budget '%s' is not a duration (90s, 15m, 1h)", arg);
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"good", required_argument, NULL, O_GOOD},       {"bad", required_argument, NULL, O_BAD},
        {"model", required_argument, NULL, 'm'},         {"flavour", required_argument, NULL, O_FLAVOUR},
        {"flavor", required_argument, NULL, O_FLAVOUR},  {"test", required_argument, NULL, O_TEST},
        {"arm", required_argument, NULL, O_ARM},         {"budget", required_argument, NULL, O_BUDGET},
        {"keep", no_argument, NULL, O_KEEP},             {"builds-dir", required_argument, NULL, O_BUILDS},
        {"wait", required_argument, NULL, O_WAIT},
        LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":hm:", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc != 0)
        return rc;
    if (!o->b.good || !o->b.bad || !o->b.model)
        return lvd_usage_error(TOOL, "--good, --bad and --model are required");
    return 0;
}

int main(int argc, char **argv)
{
    options o = {.b = {.budget_s = 3600, .notes = stderr}};
    int code = parse_options(argc, argv, &o);
    if (code < 0)
        return LVD_EXIT_OK;
    if (code)
        return code;
    o.b.store_path = o.t.store;
    const char *pp = getenv("LVD_RELEASES_PER_PAGE"); /* the tests' pagination */
    o.b.per_page = pp ? atoi(pp) : 0;
    engine_devlock lock;
    code = engine_devlock_tool(TOOL, o.t.store, o.wait_s * 1000, &lock);
    if (code != LVD_EXIT_OK)
        return code;
    bisect_result r;
    lvd_err err = {0};
    code = bisect_run(&o.b, &r, &err);
    engine_devlock_release(&lock);
    if (code == LVD_EXIT_USAGE)
        code = lvd_usage_error(TOOL, "%s", err.msg);
    else if (code != LVD_EXIT_OK && (r.n_steps || r.first_bad || r.n_between))
        lvd_error(TOOL, "%s", err.msg);
    else if (code != LVD_EXIT_OK)
        lvd_tool_fail(TOOL, &err, code);
    if (o.t.json && (code == LVD_EXIT_OK || r.n_steps)) {
        lvd_json_emit(stdout, bisect_result_json(&r));
    } else if (code == LVD_EXIT_OK || r.n_steps) {
        bisect_result_print(stdout, &r);
    }
    bisect_result_free(&r);
    return code;
}
