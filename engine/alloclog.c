/* alloclog.c: the allocation-line parser of alloclog.h. Line by line with
 * PCRE2 (as engine/devices.c), against the real formats captured in
 * tests/fixtures/llama.cpp/alloc-b9749/ and the cpu-bench-v captures of
 * cpu-build-b4547/ and cpu-build-b10587/. Not for running anything. */
#include "engine/alloclog.h"

#include "engine/rx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096 /* longer lines are not llama.cpp's allocation lines */

enum { K_MODEL, K_KV, K_COMPUTE, N_KINDS };

/* "load_tensors:   CPU_Mapped model buffer size =     8.30 MiB" */
#define BUF "([A-Za-z][A-Za-z0-9_]{0,62})"
#define NUM "([0-9]{1,9}(?:\\.[0-9]{1,6})?) MiB\\s*$"
/* The function names have changed over the eras: the KV cache was
 * llama_kv_cache_init (b4547), llama_kv_cache_unified (b5970), llama_kv_cache
 * (2026), a recurrent state's llama_memory_recurrent ("RS buffer", summed
 * with the KV of a hybrid: one branch-reset group names the buffer); the
 * compute buffer llama_new_context_with_model, then llama_init_from_model
 * (b4547), llama_context, sched_reserve (2026). */
static const char *const RX_KIND[N_KINDS] = {
    "\\bload_tensors:\\s+" BUF " model buffer size\\s*=\\s*" NUM,
    "\\b(?|llama_kv_cache(?:_init|_unified)?:\\s+" BUF " KV|llama_memory_recurrent:\\s+" BUF " RS)"
    " buffer size\\s*=\\s*" NUM,
    "\\b(?:sched_reserve|llama_context|llama_new_context_with_model|llama_init_from_model):\\s+" BUF
    " compute buffer size\\s*=\\s*" NUM,
};
static const char RX_OOM[] =
    "failed to allocate|out of memory|ErrorOutOfDeviceMemory|cudaMalloc failed";

typedef engine_rx rx;

const char *engine_alloc_device(const char *buffer)
{
    size_t n = strlen(buffer);
    /* ggml-cpu's own (CPU, CPU_Mapped, CPU_REPACK, CPU_KLEIDIAI), its AMX
     * repacking's ("AMX", on hosts with AMX tiles), a device's pinned host memory */
    if (!strncmp(buffer, "CPU", 3) || !strcmp(buffer, "AMX") || (n >= 5 && !strcmp(buffer + n - 5, "_Host")))
        return "CPU";
    return buffer;
}

typedef struct acc {
    char device[64];
    int64_t cur[N_KINDS], max[N_KINDS];
} acc;

static acc *find(acc *v, size_t *n, const char *device)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i].device, device))
            return &v[i];
    if (*n >= ENGINE_ALLOC_MAX_DEVICES)
        return NULL;
    acc *a = &v[(*n)++];
    memset(a, 0, sizeof *a);
    snprintf(a->device, sizeof a->device, "%s", device);
    for (int k = 0; k < N_KINDS; k++)
        a->cur[k] = a->max[k] = -1;
    return a;
}

/* A new group of kind k begins: every device's running sum of k is closed. */
static void close_group(acc *v, size_t n, int k)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].cur[k] > v[i].max[k])
            v[i].max[k] = v[i].cur[k];
        v[i].cur[k] = -1;
    }
}

static void add_line(rx *r, const char *line, int k, acc *v, size_t *n, int *last)
{
    char buf[64], num[32];
    if (engine_rx_group(r, line, 1, buf, sizeof buf) || engine_rx_group(r, line, 2, num, sizeof num))
        return;
    double mib = strtod(num, NULL);
    if (!isfinite(mib) || mib < 0)
        return;
    if (*last != k)
        close_group(v, *n, k);
    *last = k;
    acc *a = find(v, n, engine_alloc_device(buf));
    if (!a)
        return;
    int64_t bytes = (int64_t)llround(mib * 1048576.0);
    a->cur[k] = (a->cur[k] < 0 ? 0 : a->cur[k]) + bytes;
}

int engine_alloc_parse(const char *text, size_t len, lvd_alloc **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    rx r[N_KINDS] = {{0}};
    for (int k = 0; k < N_KINDS; k++) {
        if (engine_rx_compile(&r[k], RX_KIND[k], 0, "alloclog", err)) {
            for (int j = 0; j < k; j++)
                engine_rx_free(&r[j]);
            return -1;
        }
    }
    acc *v = lvd_xcalloc(ENGINE_ALLOC_MAX_DEVICES, sizeof *v);
    size_t nv = 0;
    int last = -1;
    char line[MAX_LINE];
    for (size_t at = 0; text && at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, ll = end - at;
        if (ll && text[end - 1] == '\r')
            ll--;
        if (ll < sizeof line && !memchr(text + at, '\0', ll)) {
            memcpy(line, text + at, ll);
            line[ll] = '\0';
            for (int k = 0; k < N_KINDS; k++) {
                if (engine_rx_match(&r[k], line, ll)) {
                    add_line(&r[k], line, k, v, &nv, &last);
                    break;
                }
            }
        }
        at = end + 1;
    }
    for (int k = 0; k < N_KINDS; k++) {
        close_group(v, nv, k);
        engine_rx_free(&r[k]);
    }
    if (nv) {
        *out = lvd_xcalloc(nv, sizeof **out);
        for (size_t i = 0; i < nv; i++) {
            lvd_alloc *a = &(*out)[i];
            snprintf(a->device, sizeof a->device, "%s", v[i].device);
            a->model = v[i].max[K_MODEL];
            a->kv = v[i].max[K_KV];
            a->compute = v[i].max[K_COMPUTE];
            a->pred_model = a->pred_kv = a->pred_compute = -1;
        }
        *n = nv;
    }
    free(v);
    return 0;
}

char *engine_alloc_oom_line(const char *text, size_t len)
{
    rx r;
    lvd_err ignored = {0};
    if (!text || engine_rx_compile(&r, RX_OOM, PCRE2_CASELESS, "alloclog", &ignored))
        return NULL;
    char *found = NULL;
    if (engine_rx_match(&r, text, len)) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r.md);
        size_t s = ov[0], e = ov[1];
        while (s > 0 && text[s - 1] != '\n')
            s--;
        while (e < len && text[e] != '\n' && text[e] != '\r')
            e++;
        if (e - s > 512)
            e = s + 512;
        found = lvd_xasprintf("%.*s", (int)(e - s), text + s);
    }
    engine_rx_free(&r);
    return found;
}
