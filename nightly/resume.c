/* resume.c: the night's record beside the store and the resume rule (see
 * resume.h). */
#include "nightly/resume.h"

#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *state_path(const char *store)
{
    char *local = store_local_anchor(store);
    char *path = lvd_xasprintf("%s.nightly.state", local);
    free(local);
    return path;
}

/* The record a night left: 1 when there is one (fields filled), else 0. */
static int read_state(const char *path, char *session, size_t len, long *pid, int64_t *started)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[512];
    int have = 0;
    *pid = 0;
    *started = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        long long v;
        if (!strncmp(line, "session ", 8) && line[8]) {
            snprintf(session, len, "%s", line + 8);
            have = 1;
        } else if (sscanf(line, "pid %lld", &v) == 1) {
            *pid = (long)v;
        } else if (sscanf(line, "started %lld", &v) == 1) {
            *started = (int64_t)v;
        }
    }
    fclose(f);
    return have;
}

/* Writes the record whole (a temporary file renamed over it). */
static int write_state(const char *path, const char *session, int64_t started, lvd_err *err)
{
    char *part = lvd_xasprintf("%s.part", path);
    FILE *f = fopen(part, "we");
    int ok = f && fprintf(f, "session %s\npid %ld\nstarted %lld\n", session, (long)getpid(),
                          (long long)started) > 0;
    ok = f && fclose(f) == 0 && ok;
    ok = ok && rename(part, path) == 0;
    if (!ok) {
        lvd_errf(err, "%s: cannot record the night: %s", path, strerror(errno));
        unlink(part);
    }
    free(part);
    return ok ? 0 : -1;
}

int night_resume_begin(const char *store, const char *fresh, int64_t now, int64_t resume_within_s,
                       night_resume *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = state_path(store);
    char prev[512];
    long pid;
    int64_t started;
    int64_t since = now;
    if (read_state(path, prev, sizeof prev, &pid, &started)) {
        int64_t age = now - started;
        if (resume_within_s > 0 && started > 0 && age >= 0 && age <= resume_within_s) {
            out->resumed = 1;
            out->session = lvd_xstrdup(prev);
            since = started;
            out->note = lvd_xasprintf("the night of session %s (pid %ld) was interrupted: this night "
                                      "resumes its session (its recorded runs count, none is measured again)",
                                      prev, pid);
        } else {
            out->note = resume_within_s > 0
                            ? lvd_xasprintf("the night of session %s (pid %ld) was interrupted; it started %llds "
                                            "ago, beyond resume_within (%llds): this night starts a new session",
                                            prev, pid, (long long)age, (long long)resume_within_s)
                            : lvd_xasprintf("the night of session %s (pid %ld) was interrupted; resume_within "
                                            "is 0: this night starts a new session", prev, pid);
        }
    }
    if (!out->session)
        out->session = lvd_xstrdup(fresh);
    int rc = write_state(path, out->session, since, err);
    free(path);
    return rc;
}

void night_resume_end(const char *store)
{
    char *path = state_path(store);
    unlink(path);
    free(path);
}

void night_resume_free(night_resume *r)
{
    if (!r)
        return;
    free(r->session);
    free(r->note);
    memset(r, 0, sizeof *r);
}
