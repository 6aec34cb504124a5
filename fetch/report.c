/* report.c: what lvd fetch prints: a fetched build (its digest, asset,
 * directory, engine, backend, and the pin lines that would record it) and a
 * registered directory (fetch.h). Not for the JSON (fetch.c,
 * engine/registration.c). */
#include "fetch/fetch.h"

#include "builds/names.h"
#include "engine/probe.h"
#include "engine/registration.h"
#include "fetch/download.h"

void fetch_result_print(FILE *f, const fetch_result *r, int resolved_latest)
{
    char size[32];
    if (resolved_latest)
        fprintf(f, "--latest resolved to %s\n", r->build);
    if (r->release)
        fprintf(f, "%s is build %s (the build its %s names): the assets and digests of release %s\n", r->release,
                r->build, BUILDS_NIGHTLY_TAG_ASSET, r->build);
    fprintf(f, "%s %s: %s\n", r->build, r->flavour, r->note);
    fprintf(f, "  sha256  %s\n", r->sha256);
    if (r->reused)
        fprintf(f, "  asset   %s (already in place)\n", r->asset ? r->asset : "?");
    else
        fprintf(f, "  asset   %s (%s)\n", r->asset, fetch_human_bytes((double)r->bytes, size, sizeof size));
    fprintf(f, "  dir     %s\n", r->engine_dir);
    if (r->semver || r->commit)
        fprintf(f, "  version %s%s%s\n", r->semver ? r->semver : "", r->semver && r->commit ? ", commit " : "",
                r->commit ? r->commit : "");
    if (r->engine_id)
        fprintf(f, "  engine  %s (id %lld)\n", r->engine_name, (long long)r->engine_id);
    if (r->probed && r->probe_reason)
        fprintf(f, "  backend %s (%s)\n", r->backend, r->probe_reason);
    else if (r->probed)
        fprintf(f, "  backend %s (%zu device%s)\n", r->backend, r->n_devices, r->n_devices == 1 ? "" : "s");
    if (r->verdict == FETCH_TRUST_API)
        fprintf(f, "  to pin it, record:\n    build = %s\n    flavour = %s\n    sha256.%s = %s\n",
                r->build, r->flavour, r->flavour, r->sha256);
}

void fetch_registered_print(FILE *f, const engine_registration *r)
{
    const lvd_engine *e = &r->engine;
    fprintf(f, "registered engine %s (id %lld)\n", e->name, (long long)e->id);
    fprintf(f, "  dir     %s\n  build   %s\n  family  %s\n", e->dir, e->build, lvd_engine_family(e));
    if (e->semver)
        fprintf(f, "  version %s\n", e->semver);
    fprintf(f, "  commit  %s\n  sha256  %s\n", e->commit ? e->commit : "(unknown)", e->digest);
    if (r->probed) {
        fputc('\n', f);
        engine_probe_table(f, e, &r->probe, &r->cached, 1);
    }
}

