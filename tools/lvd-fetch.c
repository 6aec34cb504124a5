/* lvd-fetch: the `lvd fetch` tool, two modes over one options struct: fetch
 * and verify a llama.cpp release build into a bench dir and register it
 * (which build: fetch/resolve.c; the fetch: fetch/fetch.c), or register a
 * locally built directory, e.g. CUDA on Linux, which has no release archive
 * (`--register DIR --build ID`, engine/registration.c). Both probe the
 * engine. Option parsing and printing only. */
#include "builds/asset.h"
#include "builds/names.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "engine/probe.h"
#include "engine/registration.h"
#include "fetch/fetch.h"
#include "fetch/http.h"
#include "fetch/release.h"
#include "fetch/resolve.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>

#define TOOL "lvd-fetch"

typedef struct options {
    lvd_tool_opts t;            /* --store, --json */
    const char *register_dir;   /* --register DIR */
    const char *register_build; /* --build ID, with --register */
    const char *name;           /* --name NAME, with --register */
    const char *flavour;
    const char *expect;
    const char *pin_file;
    const char *builds_dir;
    int latest;
    int64_t min_age;
    int no_probe;
    int64_t probe_timeout_s;
} options;

#define RELEASE .form = LVD_FORM(0) | LVD_FORM(2) /* a build to fetch, given or the latest */
#define REGISTER .form = LVD_FORM(1)
static const lvd_opt table[] = {
    {BUILDS_OPT_FLAVOUR, LVD_AT(flavour), RELEASE, .help = "release flavour (default: the pin's, else "
                                                            FETCH_DEFAULT_FLAVOUR ")"},
    {.spell = "--expect", .arg = "SHA256", .kind = LVD_OPT_STR, LVD_AT(expect), RELEASE,
     .help = "the digest the archive must have (a recorded digest)"},
    {.spell = "--pin-file", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(pin_file), RELEASE, .env = "LVD_PIN_FILE",
     .help = "pin file (default: the installed pin.default)"},
    {.spell = "--latest", .kind = LVD_OPT_FLAG, LVD_AT(latest), .form = LVD_FORM(2),
     .help = "the newest published build (printed): llama.cpp publishes every build as a prerelease from b"
             LVD_STRINGIFY(BUILDS_PRERELEASE_FROM) " on; before it a prerelease is skipped"},
    {.spell = "--min-age", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 0, .hi = 365 * LVD_DAY, LVD_AT(min_age),
     .form = LVD_FORM(2), .def = "1h", .help = "at least this old"},
    {LVD_OPT_BUILDS_DIR, LVD_AT(builds_dir), RELEASE},
    {.spell = "--register", .arg = "DIR", .kind = LVD_OPT_STR, LVD_AT(register_dir), REGISTER,
     .help = "register a locally built directory instead (e.g. CUDA on Linux, which has no release archive): DIR "
             "must hold an executable llama-server and/or llama-bench; its digest is one SHA-256 over the engine's "
             "whole file set (launchers, libllama/libggml, backend modules), its build, commit and version what its `--version` says (any era's line: \"version: 9749 (d32676d77)\", "
             "\"version: 0.4.1-dev (build 10991, commit ...)\"). Registering DIR again updates it"},
    {.spell = "--build", .arg = "ID", .kind = LVD_OPT_STR, LVD_AT(register_build), REGISTER,
     .help = "the build id, e.g. b9749 (what counts; default: b<N> of its --version; needed for a build made "
             "without git history, which reports build 0)"},
    {.spell = "--name", .arg = "NAME", .kind = LVD_OPT_STR, LVD_AT(name), REGISTER,
     .help = "engine name (default: BUILD-<last directory name other than bin/build>)"},
    {.spell = "--no-probe", .kind = LVD_OPT_FLAG, LVD_AT(no_probe),
     .help = "register the engine without asking it for its devices"},
    {.spell = "--probe-timeout", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 1, .hi = LVD_DAY,
     LVD_AT(probe_timeout_s), .def = LVD_STRINGIFY(ENGINE_PROBE_TIMEOUT_S) "s",
     .help = "limit for the probe's --list-devices"},
    {LVD_OPT_JSON, .help = "print the result as JSON"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Downloads llama.cpp release BUILD (b<number>, e.g. b10715), verifies it, unpacks it into "
             "$XDG_DATA_HOME/llama-verdict/builds/BUILD-FLAVOUR/, registers it as an engine and probes it "
             "(--list-devices). A SemVer release (v0.4.1) is the build its nightly-tag.txt names (llama.cpp's stable "
             "releases carry no archive of their own): that build's assets and digests are fetched and verified as "
             "any build's. Without BUILD, the pin file's build (or release) is fetched.\n\n"
             "Verification: the recorded digest (pin file, --expect) and the digest the release API publishes are "
             "both checked where both exist; if they disagree nothing is fetched. With the API unreachable or "
             "rate-limited, a recorded digest stands alone; with neither, the build is refused. An unpinned build is "
             "verified against the API's digest, which is printed so that promoting it is recording that line.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, "[BUILD]"}, {"--register", NULL}, {"--latest", NULL}, {NULL, NULL}},
    .more = "environment: GITHUB_TOKEN (used for the API when set, never printed), LVD_RELEASES_API (default "
            FETCH_DEFAULT_API "), LVD_RELEASES_DOWNLOAD (default " FETCH_DEFAULT_DOWNLOAD ").",
    .exits = "0 fetched (or already in place) or registered, and probed; 5 fetched or registered but the probe "
             "could not ask it; 2 usage; 3 bad pin file or bad --register directory; 4 store; 6 not verified "
             "(digests disagree, wrong bytes, nothing to verify against); 7 network or HTTP failure; 1 anything "
             "else (disk full, refused archive, engine name clash).",
    .examples = "lvd fetch b10715 --flavour bin-ubuntu-vulkan-x64 \\\n"
                "    --expect 1246c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87\n"
                "lvd fetch --register ~/src/llama.cpp/build/bin --build b9749 --name b9749-cuda",
};

/* --register DIR: registers and probes it (engine/registration.c), prints. */
static int register_dir(const options *o)
{
    store *s;
    int code = store_tool_open(TOOL, o->t.store, STORE_OPEN_CREATE, &s);
    if (code != LVD_EXIT_OK)
        return code;
    engine_register_opts ro = {.dir = o->register_dir, .build = o->register_build, .name = o->name,
                              .timeout_ms = (int)(o->probe_timeout_s * 1000)};
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
            fetch_registered_print(stdout, &r);
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
    options o = {0};
    lvd_opt_result pr;
    int rc = lvd_opt_parse(&tool, argc, argv, &o, &pr);
    const char *build = pr.n_operands ? argv[1] : NULL;
    if (rc == 0 && pr.n_operands > 1)
        rc = lvd_usage_error(TOOL, "unexpected argument '%s'", argv[2]);
    else if (rc == 0 && build && !builds_name_valid(build))
        rc = lvd_usage_error(TOOL, "'%s' is not a llama.cpp build (expected b<number>, e.g. b10715, or a release "
                                   "v<x.y.z>, e.g. v0.4.1)",
                             build);
    if (rc != 0)
        return rc < 0 ? LVD_EXIT_OK : rc;
    if (o.register_dir)
        return register_dir(&o);

    lvd_err err = {""};
    fetch_resolve_opts ro = {.build = build, .latest = o.latest, .min_age = o.min_age,
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
        .probe_timeout_ms = (int)(o.probe_timeout_s * 1000),
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
        fetch_result_print(stdout, &res, t.from_latest);
    }
    fetch_result_free(&res);
    fetch_target_free(&t);
    return exit_code;
}
