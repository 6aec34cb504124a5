/* lvd.c: the dispatcher. `lvd TOOL ARGS...` executes `lvd-TOOL ARGS...`, found
 * beside this binary first and on PATH second, as git runs its commands. It
 * knows nothing of the tools' insides, except that `lvd select`, the command
 * a service runs before every launch, is run here (sel_cli_main, the whole of
 * lvd-select) instead of by a second process start: about 0.8 ms of its
 * few. The other tools start their own process (linking all of them here
 * would make every command load every library). */
#include "common/cli.h"
#include "common/opt.h"
#include "common/paths.h"
#include "common/util.h"
#include "select/select_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const lvd_opt_cmd tools[] = {
    {"fetch", NULL, "fetch and verify a llama.cpp build; register a local one", NULL, NULL},
    {"probe", NULL, "ask each engine for its devices (--list-devices); cache them", NULL, NULL},
    {"check", NULL, "check each device's results against the CPU (llama-perplexity KLD)", NULL, NULL},
    {"bench", NULL, "run llama-bench per engine and device until the statistics decide", NULL, NULL},
    {"fit", NULL, "find each engine's context ceiling for a model by loading", NULL, NULL},
    {"select", NULL, "print the winning llama-server launch line for a model", NULL, NULL},
    {"serve", NULL, "run the launch line as a llama-server under concurrent clients", NULL, NULL},
    {"pin", NULL, "decide whether a candidate build replaces the pinned one", NULL, NULL},
    {"bisect", NULL, "find the first release build that made a test slower", NULL, NULL},
    {"evidence", NULL, "write the evidence page with delta tables and charts", NULL, NULL},
    {"store", NULL, "inspect the store; import llama-bench output; record a model", NULL, NULL},
    {"nightly", NULL, "the main job: fetch, probe, check, bench, verdicts, pin, evidence", NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static const lvd_opt_tool lvd = {
    .name = "lvd",
    .about = "llama-verdict: measure llama.cpp engines, record verdicts, emit the launch line",
    .forms = (const lvd_opt_form[]){{NULL, "TOOL [ARGS...]"}, {NULL, NULL}},
    .cmds = tools,
    .cmds_title = "tools",
    .more = "`lvd TOOL --help` describes each tool.",
    .examples = "lvd select --model ~/models/qwen3-8b-q4_k_m.gguf",
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        lvd_opt_help(&lvd, stderr);
        return LVD_EXIT_USAGE;
    }
    const char *tool = argv[1];
    if (!strcmp(tool, "help"))
        argv[1] = "--help";
    if (argv[1][0] == '-') { /* --help, --version, --list-options: lvd's own */
        lvd_opt_result r;
        int rc = lvd_opt_parse(&lvd, 2, argv, NULL, &r);
        return rc < 0 ? LVD_EXIT_OK : rc;
    }
    if (strchr(tool, '/'))
        return lvd_usage_error("lvd", "'%s' is not a tool", tool);
    if (!strcmp(tool, "select")) {
        argv[1] = "lvd-select";
        return sel_cli_main(argc - 1, argv + 1);
    }

    char *name = lvd_xasprintf("lvd-%s", tool);
    char *exe = lvd_exe_dir();
    if (exe) {
        char *path = lvd_xasprintf("%s/%s", exe, name);
        free(exe);
        if (access(path, X_OK) == 0) {
            argv[1] = path;
            execv(path, argv + 1);
        }
        free(path);
    }
    argv[1] = name;
    execvp(name, argv + 1);
    int e = errno;
    lvd_error("lvd", "'%s' is not an lvd tool (%s: %s); see 'lvd --help'", tool, name, strerror(e));
    free(name);
    return LVD_EXIT_USAGE;
}
