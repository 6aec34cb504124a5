/* startup.c: devices from the start-up lines of a build's backends (see
 * startup.h), line by line with PCRE2 (engine/rx.h), against ik_llama.cpp's
 * ggml-cuda.cu (ggml_cuda_init) and the captures of gpu-h200/ and
 * cuda-ik4840/. Not for running anything. */
#include "engine/startup.h"

#include "engine/rx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "ggml_cuda_init: found 1 CUDA devices:" (and "(Total VRAM: N MiB):") */
#define RX_FOUND "^ggml_cuda_init: found (\\d{1,3}) (CUDA|ROCm|MUSA) devices\\b"
/* "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes[, VRAM: 143156 MiB]" */
#define RX_DEVICE "^\\s+Device (\\d{1,3}): (.+?), compute capability (\\d{1,3}\\.\\d{1,3})(?:, VMM: \\w+)?" \
                  "(?:, VRAM: (\\d{1,9}) MiB)?\\s*$"
/* "ggml_cuda_init: failed to initialize CUDA: REASON" */
#define RX_FAILED "^ggml_cuda_init: (failed to initialize (CUDA|ROCm|MUSA): .{0,160})"

typedef struct ctx {
    engine_rx found, device, failed;
    char prefix[8];  /* the backend the last "found" line named: "CUDA" */
    lvd_device *devs;
    size_t n;
    int announced;
    char *note;
    size_t note_len;
} ctx;

/* A device line of the backend c->prefix names. */
static void add_device(ctx *c, const char *line)
{
    char idx[8], name[256], cap[16], vram[16];
    if (engine_rx_group(&c->device, line, 1, idx, sizeof idx) || engine_rx_group(&c->device, line, 2, name, sizeof name) ||
        engine_rx_group(&c->device, line, 3, cap, sizeof cap))
        return;
    c->devs = lvd_xrealloc(c->devs, (c->n + 1) * sizeof *c->devs);
    lvd_device *d = &c->devs[c->n++];
    memset(d, 0, sizeof *d);
    snprintf(d->selector, sizeof d->selector, "%s%s", c->prefix, idx);
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->compute_cap, sizeof d->compute_cap, "%s", cap);
    for (size_t i = 0; c->prefix[i] && i + 1 < sizeof d->backend; i++) /* "CUDA" -> "cuda" */
        d->backend[i] = (char)tolower((unsigned char)c->prefix[i]);
    d->total_mib = engine_rx_group(&c->device, line, 4, vram, sizeof vram) == 0 && vram[0] ? atoll(vram) : -1;
    d->free_mib = -1;
}

static int on_line(void *arg, const char *line, size_t len)
{
    ctx *c = arg;
    if (engine_rx_match(&c->found, line, len)) {
        engine_rx_group(&c->found, line, 2, c->prefix, sizeof c->prefix);
        c->announced = 1;
    } else if (engine_rx_match(&c->failed, line, len)) {
        c->announced = 1;
        char why[200];
        if (c->note && c->note_len && !c->note[0] && engine_rx_group(&c->failed, line, 1, why, sizeof why) == 0)
            snprintf(c->note, c->note_len, "%s", why);
    } else if (c->prefix[0] && engine_rx_match(&c->device, line, len)) {
        add_device(c, line);
    }
    return 0;
}

int engine_startup_devices(const char *text, lvd_device **devs, size_t *n, char *note, size_t len)
{
    ctx c = {.note = note, .note_len = len};
    if (note && len)
        note[0] = '\0';
    *devs = NULL;
    *n = 0;
    lvd_err err = {{0}};
    if (engine_rx_compile(&c.found, RX_FOUND, 0, "startup", &err) == 0) {
        if (engine_rx_compile(&c.device, RX_DEVICE, 0, "startup", &err) == 0) {
            if (engine_rx_compile(&c.failed, RX_FAILED, 0, "startup", &err) == 0) {
                engine_rx_each_line(text ? text : "", on_line, &c);
                engine_rx_free(&c.failed);
            }
            engine_rx_free(&c.device);
        }
        engine_rx_free(&c.found);
    }
    *devs = c.devs;
    *n = c.n;
    return c.announced;
}
