/* lvd.c: the dispatcher. `lvd TOOL ARGS...` executes `lvd-TOOL ARGS...`, found
 * beside this binary first and on PATH second, as git runs its commands. It
 * knows nothing of the tools' insides, except that `lvd select`, the command
 * a service runs before every launch, is run here (sel_cli_main, the whole of
 * lvd-select) instead of by a second process start: about 0.8 ms of its
 * few. The other tools start their own process (linking all of them here
 * would make every command load every library). */
#include "common/cli.h"
#include "common/paths.h"
#include "common/util.h"
#include "select/select_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const tools[][2] = {
    {"fetch", "fetch and verify a llama.cpp build into a bench dir; register a local one"},
    {"probe", "ask each engine for its devices (--list-devices) and cache the answer"},
    {"check", "check each device's results against the CPU (llama-perplexity KLD)"},
    {"bench", "run llama-bench per engine and device until the statistics decide"},
    {"fit", "find each engine's context ceiling for a model by loading"},
    {"select", "print the winning llama-server launch line for a model"},
    {"serve", "run the launch line as a llama-server under concurrent clients"},
    {"pin", "decide whether a candidate build replaces the pinned one"},
    {"bisect", "find the first release build that made a test slower"},
    {"evidence", "write the evidence page with delta tables and charts"},
    {"store", "inspect the store; import llama-bench output; record a model"},
    {"nightly", "the main job: fetch, probe, check, bench, verdicts, pin, evidence"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: lvd [--version] [--help] TOOL [ARGS...]\n\n"
               "llama-verdict: measure llama.cpp engines, record verdicts, emit the launch line.\n\n"
               "tools:\n");
    for (size_t i = 0; i < LVD_ARRAY_LEN(tools); i++)
        fprintf(f, "  %-9s %s\n", tools[i][0], tools[i][1]);
    fprintf(f, "\n`lvd TOOL --help` describes each tool. Example:\n"
               "  lvd select --model ~/models/qwen3-8b-q4_k_m.gguf\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LVD_EXIT_USAGE;
    }
    const char *tool = argv[1];
    if (!strcmp(tool, "--help") || !strcmp(tool, "-h") || !strcmp(tool, "help")) {
        usage(stdout);
        return LVD_EXIT_OK;
    }
    if (!strcmp(tool, "--version")) {
        printf("lvd (llama-verdict) %s\n", LVD_VERSION);
        return LVD_EXIT_OK;
    }
    if (tool[0] == '-' || strchr(tool, '/'))
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
