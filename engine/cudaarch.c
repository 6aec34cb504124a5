/* cudaarch.c: the CUDA archs of a build from its log, the flag for a device
 * they do not serve, and their record with the probe (see cudaarch.h). */
#include "engine/cudaarch.h"

#include "engine/files.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int engine_cuda_archs_parse(const char *log, char *buf, size_t len)
{
    static const char key[] = "CUDA : ARCHS = ";
    if (len)
        buf[0] = '\0';
    const char *p = log ? strstr(log, key) : NULL;
    if (!p || !len)
        return 0;
    p += strlen(key);
    size_t n = 0;
    while ((isalnum((unsigned char)p[n]) || p[n] == ',') && n + 1 < len)
        n++;
    if (n == 0 || !isdigit((unsigned char)p[0]))
        return 0;
    snprintf(buf, len, "%.*s", (int)n, p);
    return 1;
}

int engine_cuda_arch_missing(const char *archs, const lvd_device *d)
{
    int major, minor;
    if (!archs || !*archs || strcmp(d->backend, "cuda") || sscanf(d->compute_cap, "%d.%d", &major, &minor) != 2)
        return 0;
    size_t n;
    char **v = lvd_split(archs, ',', &n);
    int served = 0;
    for (size_t i = 0; i < n && !served; i++) {
        int a = atoi(v[i]); /* 890, or 900 of "900a" */
        served = a / 100 == major && (a % 100) / 10 <= minor;
    }
    lvd_strv_free(v);
    return !served;
}

void engine_cuda_arch_flag(const char *archs, const lvd_device *d, char *buf, size_t len)
{
    if (engine_cuda_arch_missing(archs, d))
        snprintf(buf, len, "cc %s is not among the build's CUDA archs (%s): it would JIT-compile for minutes or fail",
                 d->compute_cap, archs);
    else if (len)
        buf[0] = '\0';
}

int engine_cuda_archs_note(store *s, const lvd_engine *e, const char *log, lvd_err *err)
{
    char archs[64];
    if (!engine_cuda_archs_parse(log, archs, sizeof archs))
        return 0;
    lvd_probe p;
    int rc = store_probe_latest(s, e->id, &p, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    engine_fileset fs;
    engine_files_change ch;
    if (strcmp(p.backend, LVD_BACKEND_UNKNOWN) && strcmp(p.cuda_archs, archs) &&
        engine_files_list(e->dir, &fs, NULL) == 0) {
        if (engine_files_compare(p.files, &fs, &ch))
            rc = store_probe_set_cuda_archs(s, p.id, archs, err);
        engine_fileset_free(&fs);
    }
    lvd_probe_free(&p);
    return rc;
}
