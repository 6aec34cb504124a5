/* heuristic.c: the device-name table and selection rule 3 of heuristic.h.
 * The table is the only place that knows device names; the rule only knows
 * vendors and compute capabilities. Not for parsing --list-devices output
 * (bench/ records lvd_device) nor for the rest of the selection order. */
#include "select/heuristic.h"

#include "common/util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* First matching row wins, so specific rows come before general ones. cc
 * "" = unknown for the row's vendor. Patterns are matched caseless. */
static const struct row {
    const char *pattern;
    sel_vendor vendor;
    const char *generation;
    const char *cc;
    int integrated;
} rows[] = {
    /* Apple silicon, as Metal names it ("Apple M2 Max"), before any "M4" below. */
    {"^\\s*Apple\\b|^\\s*M[1-9](\\s+(Pro|Max|Ultra))?\\s*$", SEL_VENDOR_APPLE, "", "", 1},

    /* NVIDIA, newest first. Compute capabilities from NVIDIA's CUDA GPU list. */
    {"\\bRTX\\s+PRO\\s+\\d+\\b.*Blackwell|\\bRTX\\s+50[5-9]0\\b", SEL_VENDOR_NVIDIA, "Blackwell", "12.0", 0},
    {"\\bGB10\\b|DGX\\s+Spark", SEL_VENDOR_NVIDIA, "Blackwell", "12.1", 1},
    {"\\bG?B300\\b", SEL_VENDOR_NVIDIA, "Blackwell", "10.3", 0},
    {"\\bG?B(100|200)\\b", SEL_VENDOR_NVIDIA, "Blackwell", "10.0", 0},
    {"\\bG?H(100|200|800)\\b|\\bH20\\b", SEL_VENDOR_NVIDIA, "Hopper", "9.0", 0},
    {"\\bRTX\\s+40[5-9]0\\b|\\bRTX\\s+\\d{4}\\b.*\\bAda\\b|\\bL(4|20|40S?)\\b", SEL_VENDOR_NVIDIA, "Ada", "8.9", 0},
    {"\\bOrin\\b", SEL_VENDOR_NVIDIA, "Ampere", "8.7", 1},
    {"\\bA(100|800|30)\\b", SEL_VENDOR_NVIDIA, "Ampere", "8.0", 0},
    {"\\bRTX\\s+30[5-9]0\\b|\\bRTX\\s+A\\d{3,4}\\b|\\bA(2|10G?|10M|16|40)\\b", SEL_VENDOR_NVIDIA, "Ampere", "8.6", 0},
    {"\\bRTX\\s+20[6-8]0\\b|\\bGTX\\s+16[5-6]0\\b|\\bTITAN\\s+RTX\\b|\\bQuadro\\s+RTX\\b|\\bT(4|400|600|1000|1200)\\b|\\bMX[45]50\\b",
     SEL_VENDOR_NVIDIA, "Turing", "7.5", 0},
    {"\\bXavier\\b", SEL_VENDOR_NVIDIA, "Volta", "7.2", 1},
    {"\\bG?V100\\b|\\bTITAN\\s+V\\b", SEL_VENDOR_NVIDIA, "Volta", "7.0", 0},
    {"\\bP100\\b", SEL_VENDOR_NVIDIA, "Pascal", "6.0", 0},
    {"\\bGTX\\s+10[5-8]0|\\bGT\\s+10[13]0\\b|\\bTITAN\\s+Xp\\b|\\bTITAN\\s+X\\s*\\(Pascal\\)|\\bMX[123]50\\b|"
     "\\bP(4|6|40|400|600|620|1000|2000|2200|4000|5000|6000)\\b",
     SEL_VENDOR_NVIDIA, "Pascal", "6.1", 0},
    {"\\bGTX\\s+(9[5-8]0|TITAN\\s+X)\\b|\\b(Tesla|Quadro|GRID)\\s+M\\d+", SEL_VENDOR_NVIDIA, "Maxwell", "5.2", 0},
    {"\\bGTX\\s+7[45]0\\b", SEL_VENDOR_NVIDIA, "Maxwell", "5.0", 0},
    {"\\bK(20|40|80)\\b|\\bGTX\\s+(6[5-9]0|7[6-8]0|TITAN)\\b", SEL_VENDOR_NVIDIA, "Kepler", "3.5", 0},
    {"NVIDIA|GeForce|Quadro|Tesla|TITAN", SEL_VENDOR_NVIDIA, "", "", 0},

    /* AMD: integrated first (an APU's "Radeon Graphics", "Radeon 780M"). */
    {"\\bRadeon(\\(TM\\))?\\s+(Vega\\s+\\d+\\s+)?Graphics\\b|\\bRadeon(\\(TM\\))?\\s+\\d{3}M\\b", SEL_VENDOR_AMD, "", "", 1},
    {"\\bRX\\s+9\\d{3}\\b|\\bR9700\\b", SEL_VENDOR_AMD, "RDNA4", "", 0},
    {"\\bRX\\s+7\\d{3}\\b|\\bPRO\\s+W7\\d{3}\\b", SEL_VENDOR_AMD, "RDNA3", "", 0},
    {"\\bRX\\s+6\\d{3}\\b|\\bPRO\\s+W6\\d{3}\\b", SEL_VENDOR_AMD, "RDNA2", "", 0},
    {"\\bRX\\s+5[3-7]00\\b|\\bPRO\\s+W5\\d{3}\\b", SEL_VENDOR_AMD, "RDNA1", "", 0},
    {"\\bMI\\d{2,3}[A-Z]?\\b|\\bInstinct\\b", SEL_VENDOR_AMD, "CDNA", "", 0},
    {"\\bRadeon\\s+VII\\b|\\bVega\\b", SEL_VENDOR_AMD, "GCN5", "", 0},
    {"\\bRX\\s+(4[6-8]0|5[5-9]0)\\b", SEL_VENDOR_AMD, "GCN4", "", 0},
    {"\\bAMD\\b|\\bRadeon\\b|\\bATI\\b", SEL_VENDOR_AMD, "", "", 0},

    /* Intel: Arc discrete cards by series letter; everything else integrated. */
    {"\\bArc(\\(TM\\))?\\s+(Pro\\s+)?B\\d{2,3}\\b", SEL_VENDOR_INTEL, "Battlemage", "", 0},
    {"\\bArc(\\(TM\\))?\\s+(Pro\\s+)?A\\d{2,3}M?\\b", SEL_VENDOR_INTEL, "Alchemist", "", 0},
    {"Data\\s+Center\\s+GPU\\s+Max", SEL_VENDOR_INTEL, "Ponte Vecchio", "", 0},
    {"Data\\s+Center\\s+GPU\\s+Flex", SEL_VENDOR_INTEL, "Alchemist", "", 0},
    {"\\bIntel\\b", SEL_VENDOR_INTEL, "", "", 1},

};

static pcre2_code *compiled[LVD_ARRAY_LEN(rows)];

/* The table is fixed: a pattern that does not compile is a bug, caught by
 * every test run. */
static pcre2_code *compile_one(const char *pattern, size_t row)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &code,
                                   &off, NULL);
    if (!re) {
        fprintf(stderr, "fatal: heuristic table row %zu does not compile at %zu\n", row, (size_t)off);
        abort();
    }
    return re;
}

static void compile_rows(void)
{
    if (compiled[0])
        return;
    for (size_t i = 0; i < LVD_ARRAY_LEN(rows); i++)
        compiled[i] = compile_one(rows[i].pattern, i + 1);
}

/* 1 when re matches name. */
static int matches(pcre2_code *re, const char *name)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) {
        fprintf(stderr, "fatal: out of memory for a regex match\n");
        abort();
    }
    int rc = pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

void sel_device_label(const lvd_device *d, char *out, size_t n)
{
    if (!d) {
        snprintf(out, n, "%s", LVD_BACKEND_CPU);
        return;
    }
    lvd_sb sb = {0};
    char backend[sizeof d->selector];
    sel_device_backend(d, backend, sizeof backend);
    lvd_sb_adds(&sb, backend);
    if (engine_device_is_software(d->name))
        lvd_sb_adds(&sb, " (software)");
    snprintf(out, n, "%s", lvd_sb_str(&sb)); /* cut at n: 32 hold every label */
    lvd_sb_free(&sb);
}

const char *sel_vendor_name(sel_vendor v)
{
    switch (v) {
    case SEL_VENDOR_NVIDIA: return "nvidia";
    case SEL_VENDOR_AMD: return "amd";
    case SEL_VENDOR_INTEL: return "intel";
    case SEL_VENDOR_APPLE: return "apple";
    case SEL_VENDOR_NONE: return "none";
    case SEL_VENDOR_OTHER: break;
    }
    return "other";
}

/* "8.6" -> 8, 6; anything else -> 0. */
static int parse_cc(const char *s, int *major, int *minor)
{
    if (!s || !*s)
        return 0;
    char *end;
    long ma = strtol(s, &end, 10);
    if (end == s || *end != '.' || ma < 1 || ma > 99)
        return 0;
    const char *m = end + 1;
    long mi = strtol(m, &end, 10);
    if (end == m || *end || mi < 0 || mi > 9)
        return 0;
    *major = (int)ma;
    *minor = (int)mi;
    return 1;
}

static sel_vendor vendor_of_backend(const char *backend)
{
    if (!backend)
        return SEL_VENDOR_OTHER;
    if (strcasecmp(backend, "cuda") == 0)
        return SEL_VENDOR_NVIDIA;
    if (strcasecmp(backend, "rocm") == 0 || strcasecmp(backend, "hip") == 0)
        return SEL_VENDOR_AMD;
    if (strcasecmp(backend, "metal") == 0)
        return SEL_VENDOR_APPLE;
    if (strcasecmp(backend, "sycl") == 0)
        return SEL_VENDOR_INTEL;
    return SEL_VENDOR_OTHER;
}

void sel_classify(const char *name, const char *backend, const char *compute_cap, sel_gpu *out)
{
    memset(out, 0, sizeof *out);
    out->vendor = SEL_VENDOR_OTHER;
    out->generation = "";
    out->cc_major = out->cc_minor = -1;
    compile_rows();
    if (!name)
        name = "";
    if (engine_device_is_software(name)) {
        out->vendor = SEL_VENDOR_NONE;
        out->generation = "software";
    }
    for (size_t i = 0; i < LVD_ARRAY_LEN(rows) && out->vendor != SEL_VENDOR_NONE; i++) {
        if (!matches(compiled[i], name))
            continue;
        out->vendor = rows[i].vendor;
        out->generation = rows[i].generation;
        out->integrated = rows[i].integrated;
        if (parse_cc(rows[i].cc, &out->cc_major, &out->cc_minor))
            out->cc_source = SEL_CC_TABLE;
        break;
    }
    sel_vendor by_backend = vendor_of_backend(backend);
    if (out->vendor == SEL_VENDOR_OTHER && by_backend != SEL_VENDOR_OTHER)
        out->vendor = by_backend;
    int ma, mi;
    if (parse_cc(compute_cap, &ma, &mi)) {
        /* Only CUDA reports a compute capability: the device is NVIDIA. */
        out->vendor = SEL_VENDOR_NVIDIA;
        out->cc_major = ma;
        out->cc_minor = mi;
        out->cc_source = SEL_CC_PROBE;
    }
}

void sel_device_backend(const lvd_device *d, char *out, size_t n)
{
    const char *src = d->backend[0] ? d->backend : d->selector;
    size_t len = strnlen(src, sizeof d->selector);
    if (!d->backend[0])
        while (len > 0 && isdigit((unsigned char)src[len - 1]))
            len--;
    /* Metal's selectors are "MTL0": one name for the backend everywhere. */
    if (len == 3 && strncasecmp(src, "mtl", 3) == 0) {
        src = "metal";
        len = 5;
    }
    size_t i = 0;
    for (; i < len && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)src[i]);
    if (n)
        out[i] = '\0';
}

void sel_classify_device(const lvd_device *d, sel_gpu *out)
{
    char backend[sizeof d->selector];
    sel_device_backend(d, backend, sizeof backend);
    char name[sizeof d->name];
    snprintf(name, sizeof name, "%s", d->name);
    char cc[sizeof d->compute_cap];
    snprintf(cc, sizeof cc, "%s", d->compute_cap);
    sel_classify(name, backend, cc, out);
}

/* The name engines agree on: lower case, "(r)" and "(tm)" dropped, a
 * trailing parenthesised tag dropped, runs of spaces collapsed. */
static void identity(const char *name, char *out, size_t n)
{
    char tmp[256];
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < sizeof tmp; i++) {
        if (strncasecmp(name + i, "(r)", 3) == 0) {
            i += 2;
            continue;
        }
        if (strncasecmp(name + i, "(tm)", 4) == 0) {
            i += 3;
            continue;
        }
        tmp[j++] = (char)tolower((unsigned char)name[i]);
    }
    tmp[j] = '\0';
    while (j > 0 && isspace((unsigned char)tmp[j - 1]))
        tmp[--j] = '\0';
    if (j > 0 && tmp[j - 1] == ')') {
        char *open = strrchr(tmp, '(');
        if (open && open > tmp)
            *open = '\0';
    }
    size_t k = 0;
    int space = 1;
    for (size_t i = 0; tmp[i] && k + 1 < n; i++) {
        if (isspace((unsigned char)tmp[i])) {
            space = 1;
            continue;
        }
        if (space && k > 0)
            out[k++] = ' ';
        if (k + 1 < n)
            out[k++] = tmp[i];
        space = 0;
    }
    out[k] = '\0';
}

/* Where a device sits: candidate and index. */
typedef struct loc {
    size_t cand;
    size_t dev;
} loc;

static int is_accelerator(const lvd_device *d, const sel_gpu *g)
{
    char backend[sizeof d->selector];
    sel_device_backend(d, backend, sizeof backend);
    return g->vendor != SEL_VENDOR_NONE && strcmp(backend, "cpu") != 0 &&
           strcmp(backend, "blas") != 0;
}

/* 1 when device a is a better target than device b (see heuristic.h). */
static int better(const lvd_device *a, const sel_gpu *ga, const lvd_device *b, const sel_gpu *gb)
{
    if (ga->integrated != gb->integrated)
        return gb->integrated;
    int ka = ga->vendor != SEL_VENDOR_OTHER, kb = gb->vendor != SEL_VENDOR_OTHER;
    if (ka != kb)
        return ka;
    return a->total_mib > b->total_mib;
}

static const char *engine_label(const sel_candidate *c, char *buf, size_t n)
{
    if (c->name && *c->name)
        snprintf(buf, n, "%s (engine %lld)", c->name, (long long)c->engine_id);
    else
        snprintf(buf, n, "engine %lld", (long long)c->engine_id);
    return buf;
}

static const char *backend_title(const char *b)
{
    static const struct {
        const char *id, *title;
    } titles[] = {{"cuda", "CUDA"}, {"vulkan", "Vulkan"}, {"rocm", "ROCm"}, {"hip", "HIP"},
                  {"sycl", "SYCL"}, {"metal", "Metal"}};
    for (size_t i = 0; i < LVD_ARRAY_LEN(titles); i++)
        if (strcmp(b, titles[i].id) == 0)
            return titles[i].title;
    return b;
}

/* The backends to look for, best first, and why. */
static size_t preferences(const sel_gpu *g, const char **pref, const char **why)
{
    switch (g->vendor) {
    case SEL_VENDOR_NVIDIA:
        if (g->cc_source != SEL_CC_UNKNOWN && g->cc_major < 8) {
            *why = "pre-Ampere NVIDIA (compute capability < 8.0) decodes faster on Vulkan "
                   "(llama.cpp #19817: +47 % tg on a GTX 1060)";
            pref[0] = "vulkan";
            pref[1] = "cuda";
            return 2;
        }
        *why = g->cc_source != SEL_CC_UNKNOWN
                   ? "modern NVIDIA (compute capability >= 8.0) runs fastest on CUDA"
                   : "NVIDIA of a generation the table does not know: assumed modern, CUDA";
        pref[0] = "cuda";
        pref[1] = "vulkan";
        return 2;
    case SEL_VENDOR_AMD:
        *why = "AMD: Vulkan";
        pref[0] = "vulkan";
        pref[1] = "rocm";
        pref[2] = "hip";
        return 3;
    case SEL_VENDOR_INTEL:
        *why = "Intel: Vulkan";
        pref[0] = "vulkan";
        pref[1] = "sycl";
        return 2;
    case SEL_VENDOR_APPLE:
        *why = "Apple silicon: Metal";
        pref[0] = "metal";
        pref[1] = "vulkan";
        return 2;
    case SEL_VENDOR_OTHER:
    case SEL_VENDOR_NONE:
        break;
    }
    *why = "no rule for this vendor";
    return 0;
}

static void describe_gpu(const lvd_device *d, const sel_gpu *g, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s: %s", d->name, sel_vendor_name(g->vendor));
    if (len < 0 || (size_t)len >= n)
        return;
    if (g->generation[0])
        len += snprintf(buf + len, n - (size_t)len, " %s", g->generation);
    if (len >= 0 && (size_t)len < n && g->cc_source != SEL_CC_UNKNOWN)
        snprintf(buf + len, n - (size_t)len, ", compute capability %d.%d (%s)", g->cc_major,
                 g->cc_minor, g->cc_source == SEL_CC_PROBE ? "probed" : "from the name");
}

/* The reason line; a long device name may cut it short, never overflow it. */
static void say(sel_choice *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(sel_choice *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
}

/* " (a software rasterizer, not an accelerator: Vulkan0: llvmpipe (...) of
 * ENGINE is vulkan (software); ...)" for every software device the
 * candidates list, into buf ("" when none). */
static void software_note(const sel_candidate *cands, size_t n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < cands[i].n_devices && at < len; j++) {
            const lvd_device *d = &cands[i].devices[j];
            char label[32], eng[160];
            if (!engine_device_is_software(d->name))
                continue;
            sel_device_label(d, label, sizeof label);
            int w = snprintf(buf + at, len - at, "%s %s: %s of %s is %s", at ? ";" : " (a software rasterizer,"
                             " not an accelerator:", d->selector, d->name, engine_label(&cands[i], eng, sizeof eng),
                             label);
            at = w < 0 ? len : at + (size_t)w;
        }
    if (at && at + 1 < len)
        snprintf(buf + at, len - at, ")");
}

static int choose_cpu(const sel_candidate *cands, size_t n, sel_choice *out)
{
    char soft[320];
    software_note(cands, n, soft, sizeof soft);
    for (size_t i = 0; i < n; i++) {
        if (!cands[i].backend || strcmp(cands[i].backend, LVD_BACKEND_CPU) != 0)
            continue;
        char eng[160];
        out->candidate = i;
        out->engine_id = cands[i].engine_id;
        out->device = -1;
        out->gpu.vendor = SEL_VENDOR_NONE;
        say(out, "no engine lists an accelerator%s: %s, a CPU engine", soft,
                 engine_label(&cands[i], eng, sizeof eng));
        return 1;
    }
    say(out, "no engine lists an accelerator%s and none is a CPU engine", soft);
    return 0;
}

int sel_heuristic(const sel_candidate *cands, size_t n, sel_choice *out)
{
    memset(out, 0, sizeof *out);
    out->device = -1;
    out->gpu.generation = "";
    out->gpu.cc_major = out->gpu.cc_minor = -1;

    /* The target: the best accelerator any engine lists. */
    int have = 0;
    loc best = {0, 0};
    sel_gpu best_gpu;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < cands[i].n_devices; j++) {
            sel_gpu g;
            sel_classify_device(&cands[i].devices[j], &g);
            if (!is_accelerator(&cands[i].devices[j], &g))
                continue;
            if (!have || better(&cands[i].devices[j], &g, &cands[best.cand].devices[best.dev],
                                &best_gpu)) {
                have = 1;
                best = (loc){i, j};
                best_gpu = g;
            }
        }
    }
    if (!have)
        return choose_cpu(cands, n, out);

    const lvd_device *target = &cands[best.cand].devices[best.dev];
    char id[256];
    identity(target->name, id, sizeof id);
    /* The same device under another backend may carry what this one lacks:
     * the probed compute capability (only CUDA prints it) and the vendor. */
    for (size_t i = 0; i < n && best_gpu.cc_source != SEL_CC_PROBE; i++) {
        for (size_t j = 0; j < cands[i].n_devices; j++) {
            char other[256];
            identity(cands[i].devices[j].name, other, sizeof other);
            sel_gpu g;
            sel_classify_device(&cands[i].devices[j], &g);
            if (strcmp(other, id) == 0 && g.cc_source == SEL_CC_PROBE) {
                best_gpu = g;
                break;
            }
        }
    }

    const char *pref[3];
    const char *why;
    size_t n_pref = preferences(&best_gpu, pref, &why);
    char desc[320];
    describe_gpu(target, &best_gpu, desc, sizeof desc);
    for (size_t p = 0; p < n_pref; p++) {
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < cands[i].n_devices; j++) {
                const lvd_device *d = &cands[i].devices[j];
                char backend[sizeof d->selector], other[256], eng[160];
                sel_device_backend(d, backend, sizeof backend);
                identity(d->name, other, sizeof other);
                if (strcmp(backend, pref[p]) != 0 || strcmp(other, id) != 0)
                    continue;
                out->candidate = i;
                out->engine_id = cands[i].engine_id;
                out->device = (int)j;
                snprintf(out->selector, sizeof out->selector, "%s", d->selector);
                out->gpu = best_gpu;
                say(out, "%s; %s%s%s: %s on %s", desc, why,
                         p > 0 ? "; no engine lists it under " : "",
                         p > 0 ? backend_title(pref[0]) : "", d->selector,
                         engine_label(&cands[i], eng, sizeof eng));
                return 1;
            }
        }
    }
    out->gpu = best_gpu;
    say(out, "%s; %s%s", desc, why,
             n_pref ? "; no engine lists it under a backend the rule names" : "");
    return 0;
}
