/* lvd-fetch.c: the `lvd fetch` tool. This part registers a local build
 * directory (`--register DIR --build ID`); downloading release builds joins
 * it as another mode of the same options struct. Option parsing only; the
 * work is fetch/register.c. */
#include "common/cli.h"
#include "common/util.h"
#include "fetch/register.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-fetch"

typedef struct options {
    const char *store;
    const char *register_dir; /* --register DIR */
    const char *build;        /* --build ID */
    const char *name;         /* --name NAME */
    int timeout_ms;           /* --probe-timeout SECS */
    int no_probe;
    int json;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd fetch --register DIR --build ID [--name NAME] [--probe-timeout SECS]\n"
            "                 [--no-probe] [--json] [--store PATH]\n\n"
            "Registers a llama.cpp build directory built locally (e.g. CUDA on Linux, which has\n"
            "no release archive) as an engine: DIR must hold an executable llama-server and/or\n"
            "llama-bench. Its digest is the SHA-256 of llama-server (else llama-bench), its\n"
            "commit what `llama-server --version` says. Then the engine is probed\n"
            "(`--list-devices`). Registering the same DIR again updates its engine.\n\n"
            "options:\n"
            "  --register DIR         the build directory (recorded as its absolute path)\n"
            "  --build ID             the build id, e.g. b9749 (what counts; local builds often\n"
            "                         report build 0)\n"
            "  --name NAME            engine name (default: BUILD-<last directory name other\n"
            "                         than bin/build>)\n"
            "  --probe-timeout SECS   limit for --version and --list-devices (default 30)\n"
            "  --no-probe             register only\n"
            "  --json                 print {\"engine\": {...}, \"probe\": {...}}\n"
            "  --store PATH           the store (default $LVD_STORE, else the XDG default)\n"
            "  -h, --help             this text\n\n"
            "exit: 0 registered and probed, 5 registered but the probe failed (unknown),\n"
            "1 name clash, 2 usage, 3 bad directory, 4 store error.\n\n"
            "example:\n"
            "  lvd fetch --register ~/src/llama.cpp/build/bin --build b9749 --name b9749-cuda\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_REGISTER = 256, OPT_BUILD, OPT_NAME, OPT_TIMEOUT, OPT_NO_PROBE, OPT_JSON, OPT_STORE };
    static const struct option longopts[] = {
        {"register", required_argument, NULL, OPT_REGISTER},
        {"build", required_argument, NULL, OPT_BUILD},
        {"name", required_argument, NULL, OPT_NAME},
        {"probe-timeout", required_argument, NULL, OPT_TIMEOUT},
        {"no-probe", no_argument, NULL, OPT_NO_PROBE},
        {"json", no_argument, NULL, OPT_JSON},
        {"store", required_argument, NULL, OPT_STORE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    int64_t secs;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_REGISTER: o->register_dir = optarg; break;
        case OPT_BUILD: o->build = optarg; break;
        case OPT_NAME: o->name = optarg; break;
        case OPT_TIMEOUT:
            if (lvd_parse_duration(optarg, &secs) != 0 || secs <= 0 || secs > 3600)
                return lvd_usage_error(TOOL, "--probe-timeout wants 1 to 3600 seconds, not '%s'", optarg);
            o->timeout_ms = (int)(secs * 1000);
            break;
        case OPT_NO_PROBE: o->no_probe = 1; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_STORE: o->store = optarg; break;
        case 'h': usage(stdout); return -1;
        default: return lvd_usage_error(TOOL, "unknown option");
        }
    }
    if (optind < argc)
        return lvd_usage_error(TOOL, "unexpected argument '%s'", argv[optind]);
    if (!o->register_dir)
        return lvd_usage_error(TOOL, "nothing to do: give --register DIR --build ID");
    if (!o->build)
        return lvd_usage_error(TOOL, "--register needs --build ID (e.g. --build b9749)");
    return 0;
}

int main(int argc, char **argv)
{
    options o = {0};
    int code = parse_options(argc, argv, &o);
    if (code != 0)
        return code < 0 ? LVD_EXIT_OK : code;
    fetch_register_opts ro = {.dir = o.register_dir, .build = o.build, .name = o.name,
                              .timeout_ms = o.timeout_ms};
    return fetch_register_command(o.store, &ro, o.no_probe, o.json, stdout);
}
