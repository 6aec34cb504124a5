/* lvd-fetch: the `lvd fetch` tool, two modes over one options struct: fetch
 * and verify a llama.cpp release build into a bench dir and register it
 * (which build: fetch/resolve.c; the fetch: fetch/fetch.c), or register a
 * locally built directory, e.g. CUDA on Linux, which has no release archive
 * (`--register DIR --build ID`, engine/registration.c). Both probe the
 * engine. Option parsing and printing only. */
#include "common/cli.h"
#include "common/util.h"
#include "builds/asset.h"
#include "builds/names.h"
#include "fetch/download.h"
#include "fetch/fetch.h"
#include "fetch/http.h"
#include "engine/probe.h"
#include "engine/registration.h"
#include "fetch/release.h"
#include "fetch/resolve.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-fetch"

typedef struct options {
    lvd_tool_opts t;          /* --store, --json */
    const char *build;        /* BUILD (a release to fetch) */
    const char *register_dir; /* --register DIR */
    const char *register_build; /* --build ID, with --register */
    const char *name;         /* --name NAME, with --register */
    const char *flavour;
    const char *expect;
    const char *pin_file;
    const char *builds_dir;
    int latest;
    int64_t min_age;
    int min_age_set;          /* --min-age given */
    int no_probe;
    int probe_timeout_ms;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd-fetch [BUILD] [--flavour F] [--expect SHA256] [--pin-file FILE]\n"
            "                 [--builds-dir DIR] [--store PATH] [--json]\n"
            "       lvd-fetch --latest [--min-age 1h] [--flavour F] ...\n"
            "       lvd-fetch --register DIR [--build ID] [--name NAME] [--store PATH] [--json]\n"
            "\n"
            "Downloads llama.cpp release BUILD (b<number>), verifies it, unpacks it into\n"
            "$XDG_DATA_HOME/llama-verdict/builds/BUILD-FLAVOUR/, registers it as an engine and\n"
            "probes it (--list-devices). A SemVer release (v0.4.1) is the build its\n"
            "nightly-tag.txt names (llama.cpp's stable releases carry no archive of their own):\n"
            "that build's assets and digests are fetched and verified as any build's.\n"
            "Without BUILD, the pin file's build (or release) is fetched.\n"
            "\n"
            "Verification: the recorded digest (pin file, --expect) and the digest the release\n"
            "API publishes are both checked where both exist; if they disagree nothing is\n"
            "fetched. With the API unreachable or rate-limited, a recorded digest stands alone;\n"
            "with neither, the build is refused. An unpinned build is verified against the\n"
            "API's digest, which is printed so that promoting it is recording that line.\n"
            "\n"
            "  BUILD              a build tag, e.g. b10715, or a SemVer release, e.g. v0.4.1\n"
            "  --flavour F        release flavour (default: the pin's, else %s)\n"
            "  --expect SHA256    the digest the archive must have (a recorded digest)\n"
            "  --pin-file FILE    pin file (default: $LVD_PIN_FILE, else the installed pin.default)\n"
            "  --latest           the newest published build (printed): llama.cpp publishes\n"
            "                     every build as a prerelease from b%d on; before it a\n"
            "                     prerelease is skipped\n"
            "  --min-age DUR      with --latest: at least this old (90s, 15m, 6h, 2d; default 1h)\n"
            "  --builds-dir DIR   where bench dirs live (default: $LVD_BUILDS_DIR, else\n"
            "                     $XDG_DATA_HOME/llama-verdict/builds)\n"
            "  --store PATH       the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                     (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "\n"
            "  --register DIR     register a locally built directory instead (e.g. CUDA on Linux,\n"
            "                     which has no release archive): DIR must hold an executable\n"
            "                     llama-server and/or llama-bench; its digest is the SHA-256 of\n"
            "                     llama-server (else llama-bench), its build, commit and version\n"
            "                     what its `--version` says (any era's line: \"version: 9749\n"
            "                     (d32676d77)\", \"version: 0.4.1-dev (build 10991, commit ...)\").\n"
            "                     Registering DIR again updates it.\n"
            "  --build ID         with --register: the build id, e.g. b9749 (what counts; default:\n"
            "                     b<N> of its --version; needed for a build made without git\n"
            "                     history, which reports build 0)\n"
            "  --name NAME        with --register: engine name (default: BUILD-<last directory\n"
            "                     name other than bin/build>)\n"
            "\n"
            "  --no-probe         register the engine without asking it for its devices\n"
            "  --probe-timeout S  limit for the probe's --list-devices (default 30)\n"
            "  --json             print the result as JSON\n"
            "  --help             this text\n"
            "\n"
            "Environment: GITHUB_TOKEN (used for the API when set, never printed),\n"
            "LVD_RELEASES_API (default %s),\n"
            "LVD_RELEASES_DOWNLOAD (default %s).\n"
            "\n"
            "Exit status: 0 fetched (or already in place) or registered, and probed; 5 fetched\n"
            "or registered but the probe could not ask it; 2 usage; 3 bad pin file or bad\n"
            "--register directory; 4 store; 6 not verified (digests disagree, wrong bytes,\n"
            "nothing to verify against); 7 network or HTTP failure; 1 anything else (disk\n"
            "full, refused archive, engine name clash).\n"
            "\n"
            "Example:\n"
            "  lvd fetch b10715 --flavour bin-ubuntu-vulkan-x64 \\\n"
            "      --expect 1246c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87\n"
            "  lvd fetch --register ~/src/llama.cpp/build/bin --build b9749 --name b9749-cuda\n",
            FETCH_DEFAULT_FLAVOUR, BUILDS_PRERELEASE_FROM, FETCH_DEFAULT_API, FETCH_DEFAULT_DOWNLOAD);
}

enum { OPT_FLAVOUR = 256, OPT_EXPECT, OPT_PIN, OPT_BUILDS, OPT_LATEST, OPT_MINAGE,
       OPT_NO_PROBE, OPT_TIMEOUT, OPT_REGISTER, OPT_BUILD, OPT_NAME };

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    switch (c) {
    case OPT_FLAVOUR: o->flavour = arg; break;
    case OPT_EXPECT: o->expect = arg; break;
    case OPT_PIN: o->pin_file = arg; break;
    case OPT_BUILDS: o->builds_dir = arg; break;
    case OPT_LATEST: o->latest = 1; break;
    case OPT_MINAGE:
        if (lvd_parse_duration(arg, &o->min_age) != 0)
            return lvd_usage_error(TOOL, "--min-age '%s' is not a duration (90s, 15m, 6h, 2d)",
                                   arg);
        o->min_age_set = 1;
        break;
    case OPT_REGISTER: o->register_dir = arg; break;
    case OPT_BUILD: o->register_build = arg; break;
    case OPT_NAME: o->name = arg; break;
    case OPT_NO_PROBE: o->no_probe = 1; break;
    case OPT_TIMEOUT: {
        int64_t secs;
        if (lvd_parse_duration(arg, &secs) != 0 || secs <= 0 || secs > 3600)
            return lvd_usage_error(TOOL, "--probe-timeout wants 1 to 3600 seconds, not '%s'",
                                   arg);
        o->probe_timeout_ms = (int)(secs * 1000);
        break;
    }
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"flavour", required_argument, NULL, OPT_FLAVOUR},
        {"flavor", required_argument, NULL, OPT_FLAVOUR},
        {"expect", required_argument, NULL, OPT_EXPECT},
        {"pin-file", required_argument, NULL, OPT_PIN},
        {"builds-dir", required_argument, NULL, OPT_BUILDS},
        {"latest", no_argument, NULL, OPT_LATEST},
        {"min-age", required_argument, NULL, OPT_MINAGE},
        {"register", required_argument, NULL, OPT_REGISTER},
        {"build", required_argument, NULL, OPT_BUILD},
        {"name", required_argument, NULL, OPT_NAME},
        {"no-probe", no_argument, NULL, OPT_NO_PROBE},
        {"probe-timeout", required_argument, NULL, OPT_TIMEOUT},
        LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->min_age = 3600;
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longopts, usage, &o->t, option, o);
    if (rc != 0)
        return rc;
    if (optind < argc)
        o->build = argv[optind++];
    if ((rc = lvd_tool_no_operands(TOOL, argc, argv)) != 0)
        return rc;
    if (o->register_dir) {
        if (o->build || o->latest || o->flavour || o->expect || o->pin_file || o->builds_dir ||
            o->min_age_set)
            return lvd_usage_error(TOOL, "--register takes only --build, --name, --store, "
                                         "--no-probe, --probe-timeout and --json");
        return 0;
    }
    if (o->register_build || o->name)
        return lvd_usage_error(TOOL, "--build and --name go with --register; a release to fetch "
                                     "is given as BUILD (e.g. lvd fetch b10715)");
    if (o->latest && o->build)
        return lvd_usage_error(TOOL, "give a BUILD or --latest, not both");
    if (o->min_age_set && !o->latest)
        return lvd_usage_error(TOOL, "--min-age only applies to --latest");
    if (o->build && !builds_name_valid(o->build))
        return lvd_usage_error(TOOL, "'%s' is not a llama.cpp build (expected b<number>, e.g. b10715, or a "
                                     "release v<x.y.z>, e.g. v0.4.1)",
                               o->build);
    if (o->flavour && !builds_flavour_canonical(o->flavour)) {
        char *known = builds_flavour_list();
        lvd_usage_error(TOOL, "unknown flavour '%s'; known flavours: %s", o->flavour, known);
        free(known);
        return LVD_EXIT_USAGE;
    }
    return 0;
}

static void print_human(const fetch_result *r, int resolved_latest)
{
    char size[32];
    if (resolved_latest)
        printf("--latest resolved to %s\n", r->build);
    if (r->release)
        printf("%s is build %s (the build its %s names): the assets and digests of release %s\n", r->release,
               r->build, BUILDS_NIGHTLY_TAG_ASSET, r->build);
    printf("%s %s: %s\n", r->build, r->flavour, r->note);
    printf("  sha256  %s\n", r->sha256);
    if (r->reused)
        printf("  asset   %s (already in place)\n", r->asset ? r->asset : "?");
    else
        printf("  asset   %s (%s)\n", r->asset, fetch_human_bytes((double)r->bytes, size, sizeof size));
    printf("  dir     %s\n", r->engine_dir);
    if (r->semver || r->commit)
        printf("  version %s%s%s\n", r->semver ? r->semver : "", r->semver && r->commit ? ", commit " : "",
               r->commit ? r->commit : "");
    if (r->engine_id)
        printf("  engine  %s (id %lld)\n", r->engine_name, (long long)r->engine_id);
    if (r->probed && r->probe_reason)
        printf("  backend %s (%s)\n", r->backend, r->probe_reason);
    else if (r->probed)
        printf("  backend %s (%zu device%s)\n", r->backend, r->n_devices, r->n_devices == 1 ? "" : "s");
    if (r->verdict == FETCH_TRUST_API)
        printf("  to pin it, record:\n    build = %s\n    flavour = %s\n    sha256.%s = %s\n",
               r->build, r->flavour, r->flavour, r->sha256);
}

static void print_registered(const engine_registration *r)
{
    const lvd_engine *e = &r->engine;
    printf("registered engine %s (id %lld)\n", e->name, (long long)e->id);
    printf("  dir     %s\n  build   %s\n", e->dir, e->build);
    if (e->semver)
        printf("  version %s\n", e->semver);
    printf("  commit  %s\n  sha256  %s\n", e->commit ? e->commit : "(unknown)", e->digest);
    if (r->probed) {
        putchar('\n');
        engine_probe_table(stdout, e, &r->probe, &r->cached, 1);
    }
}

/* --register DIR: registers and probes it (engine/registration.c), prints. */
static int register_dir(const options *o)
{
    store *s;
    int code = store_tool_open(TOOL, o->t.store, STORE_OPEN_CREATE, &s);
    if (code != LVD_EXIT_OK)
        return code;
    engine_register_opts ro = {.dir = o->register_dir, .build = o->register_build, .name = o->name,
                              .timeout_ms = o->probe_timeout_ms};
    engine_registration r;
    code = engine_register_probe(s, &ro, o->no_probe, NULL, &r);
    if (!r.registered) {
        lvd_tool_fail(TOOL, &r.err, code);
    } else {
        if (code == LVD_EXIT_STORE)
            lvd_error(TOOL, "%s: registered, but the probe could not be recorded: %s", r.engine.name,
                      r.err.msg);
        if (o->t.json)
            lvd_json_emit(stdout, engine_registration_json(&r));
        else
            print_registered(&r);
    }
    engine_registration_free(&r);
    store_close(s);
    return code;
}

int main(int argc, char **argv)
{
    /* a file-size limit is a write error we report, not a signal that kills us */
    signal(SIGXFSZ, SIG_IGN);
    /* Ctrl-C or a cron's SIGTERM stops the fetch cleanly: nothing half-placed */
    fetch_catch_signals();
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? LVD_EXIT_OK : rc;
    if (o.register_dir)
        return register_dir(&o);

    lvd_err err = {""};
    fetch_resolve_opts ro = {.build = o.build, .latest = o.latest, .min_age = o.min_age,
                             .now = lvd_now(), .pin_file = o.pin_file};
    fetch_target t;
    if (fetch_resolve_build(&ro, &t, &rc, &err) != 0) {
        if (rc == LVD_EXIT_USAGE)
            lvd_usage_error(TOOL, "%s", err.msg);
        else
            lvd_error(TOOL, "%s", err.msg);
        fetch_target_free(&t);
        return rc;
    }
    if (t.from_latest && !o.t.json)
        fprintf(stderr, "%s: --latest resolved to %s\n", TOOL, t.build);
    if (t.note)
        fprintf(stderr, "%s: %s\n", TOOL, t.note);

    fetch_opts fo = {
        .build = t.build,
        .release = t.release,
        .flavour = o.flavour,
        .expect = o.expect,
        .pin = t.have_pin ? &t.pin : NULL,
        .builds_dir = o.builds_dir,
        .store_path = o.t.store,
        .no_probe = o.no_probe,
        .probe_timeout_ms = o.probe_timeout_ms,
        .notes = stderr,
    };
    fetch_result res;
    int exit_code;
    if (fetch_build(&fo, &res, &exit_code, &err) != 0) {
        lvd_error(TOOL, "%s", err.msg);
    } else if (o.t.json) {
        cJSON *j = fetch_result_json(&res);
        cJSON_AddBoolToObject(j, "resolved_latest", t.from_latest);
        lvd_json_emit(stdout, j);
    } else {
        print_human(&res, t.from_latest);
    }
    fetch_result_free(&res);
    fetch_target_free(&t);
    return exit_code;
}
