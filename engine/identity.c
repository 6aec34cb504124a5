/* identity.c: a probe's record of its engine's files and the check that it
 * still describes them (see identity.h). */
#include "engine/identity.h"

#include "engine/backends.h"
#include "engine/help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* e's newest probe that is not "unknown": 0 with *out, 1 none, -1 error.
 * Only the newest is looked at: an unknown newest probe means "none". */
static int newest_known(store *s, const lvd_engine *e, lvd_probe *out, lvd_err *err)
{
    int rc = store_probe_latest(s, e->id, out, err);
    if (rc == 0 && !strcmp(out->backend, LVD_BACKEND_UNKNOWN)) {
        lvd_probe_free(out);
        rc = 1;
    }
    return rc;
}

int engine_identity_changed(store *s, const lvd_engine *e, const lvd_probe *cached, const engine_fileset *fs,
                            char **why, lvd_err *err)
{
    *why = NULL;
    lvd_probe latest;
    int rc = 0;
    if (!cached) {
        rc = newest_known(s, e, &latest, err);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
    }
    const lvd_probe *p = cached ? cached : &latest;
    engine_files_change ch;
    if (!engine_files_compare(p->files, fs, &ch)) {
        char text[512];
        engine_files_change_text(&ch, "the last probe", text, sizeof text);
        *why = lvd_xstrdup(text);
    }
    if (!cached)
        lvd_probe_free(&latest);
    return 0;
}

/* The flags out's engine e lists (engine/help.h record): prev's (e's newest
 * known probe, or NULL) when it recorded the same files and a current
 * record, else read from e's tools now. NULL for an unknown probe. */
static char *flags_of(const lvd_engine *e, const lvd_probe *prev, const lvd_probe *out)
{
    if (!strcmp(out->backend, LVD_BACKEND_UNKNOWN))
        return NULL;
    if (prev && prev->files && prev->flags && !strcmp(prev->files, out->files) && engine_help_current(prev->flags))
        return lvd_xstrdup(prev->flags);
    engine_help h;
    engine_help_read(e->dir, &h);
    char *record = engine_help_record(&h);
    engine_help_free(&h);
    return record;
}

int engine_identity_record(store *s, const lvd_engine *e, const engine_fileset *fs, lvd_probe *out,
                           lvd_err *err)
{
    free(out->files);
    out->files = engine_files_key(fs);
    engine_backends_of(fs, out->backends, sizeof out->backends);
    free(out->no_device);
    out->no_device = strcmp(out->backend, LVD_BACKEND_UNKNOWN)
                         ? engine_backends_no_device(out->backends, out->devices, out->n_devices)
                         : NULL;
    lvd_probe prev;
    int rc = newest_known(s, e, &prev, err);
    if (rc < 0)
        return -1;
    if (!out->flags) /* read once per identity: carried while the files are the same */
        out->flags = flags_of(e, rc == 0 ? &prev : NULL, out);
    if (rc == 0 && !out->cuda_archs[0] && prev.files && !strcmp(prev.files, out->files))
        snprintf(out->cuda_archs, sizeof out->cuda_archs, "%s", prev.cuda_archs);
    if (rc == 0)
        lvd_probe_free(&prev);
    return 0;
}

int engine_identity_complete(store *s, const lvd_engine *e, lvd_probe *out, lvd_err *err)
{
    engine_fileset fs;
    if (engine_files_list(e->dir, &fs, NULL) != 0)
        memset(&fs, 0, sizeof fs);
    int rc = engine_identity_record(s, e, &fs, out, err);
    engine_fileset_free(&fs);
    return rc;
}
