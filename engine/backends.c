/* backends.c: the backends an engine's files carry, and the "present, no
 * device" note (see backends.h). Names only: nothing is run or opened. */
#include "engine/backends.h"

#include "engine/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DT_NEEDED runtimes (prefix of the soname) and the backend each stands for. */
static const char *const runtimes[][2] = {
    {"libcuda.so", "cuda"},       {"libcudart.so", "cuda"}, {"libcublas.so", "cuda"},
    {"libvulkan.so", "vulkan"},   {"libamdhip64.so", "rocm"}, {"libhipblas.so", "rocm"},
    {"librocblas.so", "rocm"},    {"libOpenCL.so", "opencl"}, {"libsycl.so", "sycl"},
    {"libmusa.so", "musa"},       {"libmusart.so", "musa"},
};

/* Accelerator backends (they list devices) and how llama.cpp writes them. */
static const char *const accelerators[][2] = {
    {"cuda", "CUDA"},   {"vulkan", "Vulkan"}, {"rocm", "ROCm"}, {"metal", "Metal"},
    {"sycl", "SYCL"},   {"opencl", "OpenCL"}, {"musa", "MUSA"}, {"cann", "CANN"},
};

static void push_unique(char ***v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], name))
            return;
    lvd_strv_push(v, n, lvd_xstrdup(name));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The backend of a file named libggml-NAME..., into buf; "" when none. */
static void of_file(const char *rel, char *buf, size_t len)
{
    const char *base = lvd_base_name(rel);
    buf[0] = '\0';
    if (!lvd_starts_with(base, "libggml-"))
        return;
    const char *name = base + strlen("libggml-");
    char word[32];
    size_t k = strcspn(name, "-.");
    if (k == 0 || k >= sizeof word)
        return;
    memcpy(word, name, k);
    word[k] = '\0';
    if (strcmp(word, "base") != 0)
        engine_backend_of_selector(word, buf, len);
}

void engine_backends_of(const engine_fileset *fs, char *buf, size_t len)
{
    char **v = NULL;
    size_t n = 0;
    char name[32];
    for (size_t i = 0; i < fs->n; i++) {
        of_file(fs->v[i].rel, name, sizeof name);
        if (*name)
            push_unique(&v, &n, name);
    }
    for (size_t i = 0; i < fs->n_needed; i++)
        for (size_t r = 0; r < LVD_ARRAY_LEN(runtimes); r++)
            if (lvd_starts_with(fs->needed[i], runtimes[r][0]))
                push_unique(&v, &n, runtimes[r][1]);
    if (n)
        qsort(v, n, sizeof *v, by_name);
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(buf), need = strlen(v[i]) + (used ? 1 : 0);
        if (used + need < len)
            snprintf(buf + used, len - used, "%s%s", used ? "," : "", v[i]);
    }
    lvd_strv_free(v);
}

static int is_accelerator(const char *name)
{
    for (size_t a = 0; a < LVD_ARRAY_LEN(accelerators); a++)
        if (!strcmp(name, accelerators[a][0]))
            return 1;
    return 0;
}

void engine_backends_accelerators(const char *backends, char *buf, size_t len)
{
    size_t nb;
    char **names = lvd_split(backends ? backends : "", ',', &nb);
    if (len)
        buf[0] = '\0';
    for (size_t b = 0; b < nb; b++) {
        size_t used = strlen(buf), need = strlen(names[b]) + (used ? 1 : 0);
        if (is_accelerator(names[b]) && used + need < len)
            snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[b]);
    }
    lvd_strv_free(names);
}

char *engine_backends_no_device(const char *backends, const lvd_device *devs, size_t n)
{
    size_t nb;
    char **names = lvd_split(backends ? backends : "", ',', &nb);
    lvd_sb sb = {0};
    for (size_t b = 0; b < nb; b++)
        for (size_t a = 0; a < LVD_ARRAY_LEN(accelerators); a++) {
            if (strcmp(names[b], accelerators[a][0]))
                continue;
            int listed = 0;
            for (size_t d = 0; d < n && !listed; d++)
                listed = !strcmp(devs[d].backend, names[b]);
            if (!listed)
                lvd_sb_addf(&sb, "%s%s backend present, no %s device (driver missing?)", sb.len ? "; " : "",
                            accelerators[a][1], accelerators[a][1]);
        }
    lvd_strv_free(names);
    if (!sb.len) {
        lvd_sb_free(&sb);
        return NULL;
    }
    return lvd_sb_detach(&sb);
}
