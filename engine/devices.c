/* devices.c: the `--list-devices` parser (see devices.h). Line by line with
 * PCRE2, against the real formats captured in tests/fixtures/llama.cpp/
 * (cpu-build-b9749/list-devices, gpu-h200/{cuda,vulkan}-list-devices). Not for
 * running anything. */
#include "engine/devices.h"

#include "engine/rx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 256 /* bound on hostile output; no box has more */

/* A selector as ggml names devices: "CUDA0", "Vulkan1", "MTL0", "BLAS",
 * "RPC[10.0.0.2:50052]". */
#define SELECTOR "([A-Za-z][A-Za-z0-9_]*(?:\\[[^\\]\\s]*\\])?[0-9]*)"

static const char RX_HEADER[] = "^\\s*Available devices:\\s*$";
static const char RX_NONE[] = "^\\s*\\(none\\)\\s*$";
/* "  CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free)" */
static const char RX_DEVICE_MEM[] =
    "^\\s*" SELECTOR ":\\s+(\\S.*?)\\s+\\((\\d{1,15}) MiB, (\\d{1,15}) MiB free\\)\\s*$";
/* "  BLAS: Accelerate" inside the list, when no memory was printed */
static const char RX_DEVICE_BARE[] = "^\\s+" SELECTOR ":\\s+(\\S.*?)\\s*$";
/* CUDA's init log: "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes" */
static const char RX_CC[] = "^\\s*Device (\\d{1,4}): .*?, compute capability (\\d{1,3}\\.\\d{1,3})\\b";

typedef engine_rx rx;

static int64_t rx_int(rx *r, const char *s, int g)
{
    char buf[32];
    int64_t v = -1;
    if (engine_rx_group(r, s, g, buf, sizeof buf) == 0 && lvd_parse_i64(buf, &v) != 0)
        v = -1;
    return v;
}

void engine_backend_of_selector(const char *selector, char *buf, size_t len)
{
    static const char *const known[][2] = {
        {"cuda", "cuda"}, {"vulkan", "vulkan"}, {"rocm", "rocm"}, {"hip", "rocm"},
        {"mtl", "metal"}, {"metal", "metal"}, {"sycl", "sycl"},
    };
    char prefix[64];
    size_t k = 0;
    while (selector[k] && isalpha((unsigned char)selector[k]) && k < sizeof prefix - 1) {
        prefix[k] = (char)tolower((unsigned char)selector[k]);
        k++;
    }
    prefix[k] = '\0';
    for (size_t i = 0; i < LVD_ARRAY_LEN(known); i++)
        if (!strcmp(prefix, known[i][0])) {
            snprintf(buf, len, "%s", known[i][1]);
            return;
        }
    if (len && k >= len)
        k = len - 1; /* truncate, never overflow */
    snprintf(buf, len, "%.*s", (int)k, prefix);
}

void engine_devices_label(const lvd_device *devs, size_t n, char *buf, size_t len)
{
    if (!len)
        return;
    if (n == 0) {
        snprintf(buf, len, "%s", LVD_BACKEND_CPU);
        return;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(devs[j].backend, devs[i].backend);
        size_t used = strlen(buf);
        size_t need = strlen(devs[i].backend) + (used ? 1 : 0);
        if (seen || used + need >= len)
            continue;
        snprintf(buf + used, len - used, "%s%s", used ? "+" : "", devs[i].backend);
    }
}

/* ggml's host accelerators (GGML_BACKEND_DEVICE_TYPE_ACCEL: BLAS, as
 * "BLAS: Accelerate (0 MiB, 0 MiB free)" on a Mac, ZenDNN, zDNN), listed by
 * llama.cpp from b6470 on: they speed up the CPU's own work, hold no layers
 * and take no GPU flags. */
static int host_accelerator(const char *backend)
{
    static const char *const host[] = {"blas", "zendnn", "zdnn"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(host); i++)
        if (!strcmp(backend, host[i]))
            return 1;
    return 0;
}

typedef struct parse_ctx {
    rx header, none, dev_mem, dev_bare, cc;
    int in_list;     /* after "Available devices:" */
    int saw_header, saw_none, saw_device;
    lvd_device *devs;
    size_t n, cap;
    lvd_err *err;
} parse_ctx;

static lvd_device *find(parse_ctx *c, const char *selector)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->devs[i].selector, selector))
            return &c->devs[i];
    return NULL;
}

/* Adds the device the last match (of r) describes; memory groups 3/4 if with_mem. */
static int add_device(parse_ctx *c, rx *r, const char *line, int with_mem)
{
    lvd_device d;
    memset(&d, 0, sizeof d);
    if (engine_rx_group(r, line, 1, d.selector, sizeof d.selector))
        return lvd_errf(c->err, "--list-devices: device selector longer than %zu bytes",
                        sizeof d.selector - 1);
    if (find(c, d.selector))
        return 0; /* printed twice: keep the first */
    if (c->n >= MAX_DEVICES)
        return lvd_errf(c->err, "--list-devices: more than %d devices", MAX_DEVICES);
    if (engine_rx_group(r, line, 2, d.name, sizeof d.name)) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
        snprintf(d.name, sizeof d.name, "%.*s", (int)(sizeof d.name - 1), line + ov[4]);
    }
    d.total_mib = with_mem ? rx_int(r, line, 3) : -1;
    d.free_mib = with_mem ? rx_int(r, line, 4) : -1;
    engine_backend_of_selector(d.selector, d.backend, sizeof d.backend);
    if (host_accelerator(d.backend)) {
        c->saw_device = 1; /* a list, though not of a device to offload to */
        return 0;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->devs = lvd_xrealloc(c->devs, c->cap * sizeof *c->devs);
    }
    c->devs[c->n++] = d;
    return 0;
}

static int out_line(void *ctx, const char *line, size_t len)
{
    parse_ctx *c = ctx;
    if (engine_rx_match(&c->header, line, len)) {
        c->saw_header = c->in_list = 1;
        return 0;
    }
    if (engine_rx_match(&c->none, line, len)) {
        c->saw_none = 1;
        return 0;
    }
    if (engine_rx_match(&c->dev_mem, line, len))
        return add_device(c, &c->dev_mem, line, 1);
    if (c->in_list && engine_rx_match(&c->dev_bare, line, len))
        return add_device(c, &c->dev_bare, line, 0);
    return 0; /* noise */
}

static int err_line(void *ctx, const char *line, size_t len)
{
    parse_ctx *c = ctx;
    if (!engine_rx_match(&c->cc, line, len))
        return 0;
    char sel[64], cc[16];
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->cc.md);
    snprintf(sel, sizeof sel, "CUDA%.*s", (int)(ov[3] - ov[2]), line + ov[2]);
    lvd_device *d = find(c, sel);
    if (d && !strcmp(d->backend, "cuda") && engine_rx_group(&c->cc, line, 2, cc, sizeof cc) == 0)
        snprintf(d->compute_cap, sizeof d->compute_cap, "%s", cc);
    return 0;
}

int engine_devices_parse(const char *out_text, const char *err_text, lvd_device **devs, size_t *n,
                        lvd_err *err)
{
    *devs = NULL;
    *n = 0;
    parse_ctx c;
    memset(&c, 0, sizeof c);
    c.err = err;
    int rc = -1;
    if (engine_rx_compile(&c.header, RX_HEADER, 0, "devices", err) ||
        engine_rx_compile(&c.none, RX_NONE, 0, "devices", err) ||
        engine_rx_compile(&c.dev_mem, RX_DEVICE_MEM, 0, "devices", err) ||
        engine_rx_compile(&c.dev_bare, RX_DEVICE_BARE, 0, "devices", err) ||
        engine_rx_compile(&c.cc, RX_CC, 0, "devices", err))
        goto out;
    if (engine_rx_each_line(out_text, out_line, &c))
        goto out;
    /* "Available devices:" and nothing after it is a list too: llama-server's
     * of a build that sees no accelerator before "(none)" was printed (b10156),
     * or of one whose GPU backend failed to load */
    if (c.n == 0 && !c.saw_header && !c.saw_none && !c.saw_device) {
        lvd_errf(err, "--list-devices: no device list in the output");
        goto out;
    }
    /* CUDA's init lines: on stderr, or in one text with the list (2>&1) */
    if ((err_text && engine_rx_each_line(err_text, err_line, &c)) || engine_rx_each_line(out_text, err_line, &c))
        goto out;
    *devs = c.devs;
    *n = c.n;
    c.devs = NULL;
    rc = 0;
out:
    free(c.devs);
    rx *all[] = {&c.header, &c.none, &c.dev_mem, &c.dev_bare, &c.cc};
    for (size_t i = 0; i < LVD_ARRAY_LEN(all); i++)
        engine_rx_free(all[i]);
    return rc;
}

void engine_check_device(const lvd_probe *probe, const lvd_params *p, char *out, size_t len)
{
    const char *d = "";
    if (p->device[0])
        d = p->device;
    else if (p->ngl != 0 && probe && probe->n_devices > 0)
        d = probe->devices[0].selector;
    else if (p->ngl > 0)
        d = ENGINE_DEVICE_DEFAULT;
    snprintf(out, len, "%s", d);
}

int engine_device_is_software(const char *name)
{
    static const char pattern[] = "llvmpipe|lavapipe|softpipe|SwiftShader|Microsoft Basic Render";
    static pcre2_code *re;
    const char *n = name ? name : "";
    return engine_rx_fixed(&re, pattern, PCRE2_CASELESS, "software-device", n, strlen(n), NULL);
}
