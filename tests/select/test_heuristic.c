/* test_heuristic.c: the device-name table and selection rule 3
 * (select/heuristic.h) on real device names: those of man lvd-select's HEURISTIC
 * **Heuristic table**, the H200
 * captures in tests/fixtures (read from the files), and the names
 * --list-devices prints for CUDA, Vulkan (RADV, ANV), ROCm, SYCL and Metal. */
#include "common/util.h"
#include "select/heuristic.h"
#include "tests/support/testutil.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct expect {
    const char *name;
    sel_vendor vendor;
    const char *generation;
    int cc_major, cc_minor; /* -1 unknown */
    int integrated;
} names[] = {
    /* the cards the heuristic was written for. */
    {"NVIDIA GeForce GTX 1060 6GB", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"Tesla P40", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"NVIDIA GeForce RTX 3060", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"NVIDIA H200", SEL_VENDOR_NVIDIA, "Hopper", 9, 0, 0},
    {"AMD Radeon RX 7900 XTX", SEL_VENDOR_AMD, "RDNA3", -1, -1, 0},
    {"AMD Radeon RX 7900 XTX (RADV NAVI31)", SEL_VENDOR_AMD, "RDNA3", -1, -1, 0},
    {"Intel(R) Arc(TM) A770 Graphics", SEL_VENDOR_INTEL, "Alchemist", -1, -1, 0},
    {"Intel(R) Arc(tm) A770 Graphics (DG2)", SEL_VENDOR_INTEL, "Alchemist", -1, -1, 0},
    {"Radeon RX 580 Series", SEL_VENDOR_AMD, "GCN4", -1, -1, 0},
    {"AMD Radeon RX 580 2048SP (RADV POLARIS10)", SEL_VENDOR_AMD, "GCN4", -1, -1, 0},
    {"Tesla V100-SXM2-16GB", SEL_VENDOR_NVIDIA, "Volta", 7, 0, 0},
    {"Tesla T4", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"NVIDIA RTX A6000", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"NVIDIA GeForce RTX 4090", SEL_VENDOR_NVIDIA, "Ada", 8, 9, 0},
    {"NVIDIA H100 80GB HBM3", SEL_VENDOR_NVIDIA, "Hopper", 9, 0, 0},
    {"H100", SEL_VENDOR_NVIDIA, "Hopper", 9, 0, 0},
    {"NVIDIA A100-SXM4-80GB", SEL_VENDOR_NVIDIA, "Ampere", 8, 0, 0},
    {"A100", SEL_VENDOR_NVIDIA, "Ampere", 8, 0, 0},
    {"Apple M2", SEL_VENDOR_APPLE, "", -1, -1, 1},
    {"Apple M2 Max", SEL_VENDOR_APPLE, "", -1, -1, 1},
    {"M4 Pro", SEL_VENDOR_APPLE, "", -1, -1, 1},
    /* More of each family. */
    {"NVIDIA GeForce GTX 1050 Ti", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"NVIDIA GeForce GT 1030", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"Tesla P100-PCIE-16GB", SEL_VENDOR_NVIDIA, "Pascal", 6, 0, 0},
    {"Tesla P4", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"Quadro P2000", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"NVIDIA TITAN Xp", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"NVIDIA TITAN X (Pascal)", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"NVIDIA GeForce MX150", SEL_VENDOR_NVIDIA, "Pascal", 6, 1, 0},
    {"GeForce GTX TITAN X", SEL_VENDOR_NVIDIA, "Maxwell", 5, 2, 0},
    {"NVIDIA GeForce GTX 980 Ti", SEL_VENDOR_NVIDIA, "Maxwell", 5, 2, 0},
    {"Tesla M40 24GB", SEL_VENDOR_NVIDIA, "Maxwell", 5, 2, 0},
    {"NVIDIA GeForce GTX 750 Ti", SEL_VENDOR_NVIDIA, "Maxwell", 5, 0, 0},
    {"Tesla K80", SEL_VENDOR_NVIDIA, "Kepler", 3, 5, 0},
    {"NVIDIA TITAN V", SEL_VENDOR_NVIDIA, "Volta", 7, 0, 0},
    {"NVIDIA GeForce RTX 2080 Ti", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"NVIDIA GeForce GTX 1660 SUPER", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"Quadro RTX 8000", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"NVIDIA T1000 8GB", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"NVIDIA TITAN RTX", SEL_VENDOR_NVIDIA, "Turing", 7, 5, 0},
    {"NVIDIA GeForce RTX 3090", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"NVIDIA GeForce RTX 3060 Laptop GPU", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"NVIDIA A10G", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"NVIDIA A30", SEL_VENDOR_NVIDIA, "Ampere", 8, 0, 0},
    {"NVIDIA RTX A4000", SEL_VENDOR_NVIDIA, "Ampere", 8, 6, 0},
    {"Orin", SEL_VENDOR_NVIDIA, "Ampere", 8, 7, 1},
    {"NVIDIA L4", SEL_VENDOR_NVIDIA, "Ada", 8, 9, 0},
    {"NVIDIA L40S", SEL_VENDOR_NVIDIA, "Ada", 8, 9, 0},
    {"NVIDIA RTX 6000 Ada Generation", SEL_VENDOR_NVIDIA, "Ada", 8, 9, 0},
    {"NVIDIA GeForce RTX 4060 Ti", SEL_VENDOR_NVIDIA, "Ada", 8, 9, 0},
    {"NVIDIA GH200 480GB", SEL_VENDOR_NVIDIA, "Hopper", 9, 0, 0},
    {"NVIDIA B200", SEL_VENDOR_NVIDIA, "Blackwell", 10, 0, 0},
    {"NVIDIA GeForce RTX 5090", SEL_VENDOR_NVIDIA, "Blackwell", 12, 0, 0},
    {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", SEL_VENDOR_NVIDIA, "Blackwell", 12, 0, 0},
    {"NVIDIA GB10", SEL_VENDOR_NVIDIA, "Blackwell", 12, 1, 1},
    {"NVIDIA Graphics Device", SEL_VENDOR_NVIDIA, "", -1, -1, 0},
    {"AMD Radeon RX 6800 XT", SEL_VENDOR_AMD, "RDNA2", -1, -1, 0},
    {"AMD Radeon RX 5700 XT", SEL_VENDOR_AMD, "RDNA1", -1, -1, 0},
    {"AMD Radeon RX 9070 XT", SEL_VENDOR_AMD, "RDNA4", -1, -1, 0},
    {"AMD Radeon RX Vega 64", SEL_VENDOR_AMD, "GCN5", -1, -1, 0},
    {"AMD Radeon Pro W7900", SEL_VENDOR_AMD, "RDNA3", -1, -1, 0},
    {"AMD Instinct MI300X", SEL_VENDOR_AMD, "CDNA", -1, -1, 0},
    {"AMD Radeon Graphics (RADV RENOIR)", SEL_VENDOR_AMD, "", -1, -1, 1},
    {"AMD Radeon 780M (RADV PHOENIX)", SEL_VENDOR_AMD, "", -1, -1, 1},
    {"AMD Radeon(TM) Vega 8 Graphics", SEL_VENDOR_AMD, "", -1, -1, 1},
    {"Intel(R) Arc(TM) B580 Graphics", SEL_VENDOR_INTEL, "Battlemage", -1, -1, 0},
    {"Intel(R) Arc(TM) A380 Graphics", SEL_VENDOR_INTEL, "Alchemist", -1, -1, 0},
    {"Intel(R) Data Center GPU Max 1100", SEL_VENDOR_INTEL, "Ponte Vecchio", -1, -1, 0},
    {"Intel(R) UHD Graphics 770", SEL_VENDOR_INTEL, "", -1, -1, 1},
    {"Intel(R) Iris(R) Xe Graphics", SEL_VENDOR_INTEL, "", -1, -1, 1},
    {"Intel(R) Arc(TM) Graphics", SEL_VENDOR_INTEL, "", -1, -1, 1},
    {"llvmpipe (LLVM 15.0.6, 256 bits)", SEL_VENDOR_NONE, "software", -1, -1, 0},
    {"Adreno (TM) 740", SEL_VENDOR_OTHER, "", -1, -1, 0},
    {"", SEL_VENDOR_OTHER, "", -1, -1, 0},
};

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < LVD_ARRAY_LEN(names); i++) {
        const struct expect *e = &names[i];
        sel_gpu g;
        sel_classify(e->name, NULL, NULL, &g);
        if (g.vendor != e->vendor || strcmp(g.generation, e->generation) != 0 ||
            g.cc_major != e->cc_major || g.cc_minor != e->cc_minor ||
            g.integrated != e->integrated)
            fail_msg("'%s': got %s %s cc %d.%d integrated %d", e->name, sel_vendor_name(g.vendor),
                     g.generation, g.cc_major, g.cc_minor, g.integrated);
        assert_int_equal(g.cc_source, e->cc_major >= 0 ? SEL_CC_TABLE : SEL_CC_UNKNOWN);
    }
}

static void test_probe_and_backend_override(void **state)
{
    (void)state;
    sel_gpu g;
    /* The probe's capability beats the name's. */
    sel_classify("NVIDIA GeForce GTX 1060 6GB", "cuda", "6.1", &g);
    assert_int_equal(g.cc_source, SEL_CC_PROBE);
    assert_int_equal(g.cc_major, 6);
    sel_classify("NVIDIA Graphics Device", "cuda", "12.0", &g);
    assert_int_equal(g.vendor, SEL_VENDOR_NVIDIA);
    assert_int_equal(g.cc_major, 12);
    assert_int_equal(g.cc_minor, 0);
    /* A name no row knows, settled by the backend. */
    sel_classify("Device 7550", "rocm", NULL, &g);
    assert_int_equal(g.vendor, SEL_VENDOR_AMD);
    sel_classify("Device 7550", "cuda", "", &g);
    assert_int_equal(g.vendor, SEL_VENDOR_NVIDIA);
    assert_int_equal(g.cc_source, SEL_CC_UNKNOWN);
    sel_classify("Device 7550", "vulkan", NULL, &g);
    assert_int_equal(g.vendor, SEL_VENDOR_OTHER);
    /* A capability that is not one is ignored. */
    sel_classify("Tesla P40", "cuda", "sm_61", &g);
    assert_int_equal(g.cc_source, SEL_CC_TABLE);
    sel_classify("Tesla P40", "cuda", "6.", &g);
    assert_int_equal(g.cc_source, SEL_CC_TABLE);
    assert_string_equal(sel_vendor_name(SEL_VENDOR_INTEL), "intel");
    assert_string_equal(sel_vendor_name(SEL_VENDOR_OTHER), "other");
}

static lvd_device dev(const char *selector, const char *name, int64_t total_mib, const char *cc)
{
    lvd_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.selector, sizeof d.selector, "%s", selector);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.total_mib = total_mib;
    d.free_mib = total_mib;
    snprintf(d.compute_cap, sizeof d.compute_cap, "%s", cc ? cc : "");
    return d;
}

/* The devices of one --list-devices capture: "  SEL: NAME (T MiB, F MiB free)". */
static size_t read_capture(const char *rel, lvd_device *out, size_t max)
{
    char *path = tu_fixture(rel);
    char *text = tu_read(path, NULL);
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR) "^\\s+(\\w+): (.+) \\((\\d+) MiB, (\\d+) MiB free\\)$",
                                   PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE, &code, &off, NULL);
    assert_non_null(re);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    size_t n = 0, at = 0, len = strlen(text);
    while (n < max && pcre2_match(re, (PCRE2_SPTR)text, len, at, 0, md, NULL) > 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        char sel[64], name[256];
        snprintf(sel, sizeof sel, "%.*s", (int)(ov[3] - ov[2]), text + ov[2]);
        snprintf(name, sizeof name, "%.*s", (int)(ov[5] - ov[4]), text + ov[4]);
        out[n++] = dev(sel, name, strtoll(text + ov[6], NULL, 10), NULL);
        at = ov[1];
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    free(text);
    free(path);
    return n;
}

/* The H200 box of the captures: the CUDA build's log printed "compute
 * capability 9.0" (the probe records it), the Vulkan build lists the same
 * card, the CPU build lists "(none)". Modern NVIDIA: CUDA. */
static void test_h200_captures(void **state)
{
    (void)state;
    lvd_device cuda[4], vk[4], cpu[4];
    assert_int_equal(read_capture("llama.cpp/gpu-h200/cuda-list-devices.stdout", cuda, 4), 1);
    assert_int_equal(read_capture("llama.cpp/gpu-h200/vulkan-list-devices.stdout", vk, 4), 1);
    assert_int_equal(read_capture("llama.cpp/gpu-h200/cpu-list-devices.stdout", cpu, 4), 0);
    assert_string_equal(cuda[0].name, "NVIDIA H200");
    snprintf(cuda[0].compute_cap, sizeof cuda[0].compute_cap, "9.0");
    sel_candidate c[] = {
        {1, "b9749-cpu", "cpu", NULL, 0},
        {2, "b9749-vulkan", "vulkan", vk, 1},
        {3, "cuda-local", "cuda", cuda, 1},
    };
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 3, &ch), 1);
    assert_int_equal(ch.engine_id, 3);
    assert_int_equal(ch.candidate, 2);
    assert_int_equal(ch.device, 0);
    assert_string_equal(ch.selector, "CUDA0");
    assert_int_equal(ch.gpu.cc_source, SEL_CC_PROBE);
    assert_non_null(strstr(ch.reason, "NVIDIA H200"));
    assert_non_null(strstr(ch.reason, "9.0 (probed)"));
    assert_non_null(strstr(ch.reason, "cuda-local (engine 3)"));
    /* Without the CUDA engine the same card goes to Vulkan, and says why. */
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_string_equal(ch.selector, "Vulkan0");
    assert_non_null(strstr(ch.reason, "no engine lists it under CUDA"));
    /* The Vulkan build with no driver: "(none)" like the CPU build. */
    lvd_device none[2];
    assert_int_equal(read_capture("llama.cpp/gpu-h200/vulkan-build-no-driver/list-devices.stdout",
                                  none, 2), 0);
}

/* Seed 000's box: a GTX 1060 that both CUDA and Vulkan see, a CPU build. */
static void test_gtx1060_prefers_vulkan(void **state)
{
    (void)state;
    lvd_device cuda[] = {dev("CUDA0", "NVIDIA GeForce GTX 1060 6GB", 6069, NULL)};
    lvd_device vk[] = {dev("Vulkan0", "NVIDIA GeForce GTX 1060 6GB", 6245, NULL)};
    sel_candidate c[] = {
        {7, NULL, "cpu", NULL, 0},
        {8, NULL, "cuda", cuda, 1},
        {9, NULL, "vulkan", vk, 1},
    };
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 3, &ch), 1);
    assert_int_equal(ch.engine_id, 9);
    assert_string_equal(ch.selector, "Vulkan0");
    assert_int_equal(ch.gpu.cc_major, 6);
    assert_int_equal(ch.gpu.cc_source, SEL_CC_TABLE);
    assert_non_null(strstr(ch.reason, "Pascal"));
    assert_non_null(strstr(ch.reason, "from the name"));
    assert_non_null(strstr(ch.reason, "engine 9"));
    /* The seed's own failure: the CUDA build saw nothing; Vulkan still wins. */
    c[1].n_devices = 0;
    assert_int_equal(sel_heuristic(c, 3, &ch), 1);
    assert_int_equal(ch.engine_id, 9);
    /* Only CUDA sees it: CUDA, never the CPU. */
    c[1].n_devices = 1;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 8);
    assert_string_equal(ch.selector, "CUDA0");
    assert_non_null(strstr(ch.reason, "no engine lists it under Vulkan"));
}

static void test_p40_probed_cc(void **state)
{
    (void)state;
    lvd_device cuda[] = {dev("CUDA0", "Tesla P40", 24438, "6.1")};
    lvd_device vk[] = {dev("Vulkan0", "Tesla P40", 24576, NULL)};
    sel_candidate c[] = {{1, NULL, "cuda", cuda, 1}, {2, NULL, "vulkan", vk, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_int_equal(ch.gpu.cc_source, SEL_CC_PROBE); /* carried over from the CUDA entry */
    assert_non_null(strstr(ch.reason, "6.1 (probed)"));
}

/* The probe's capability decides over the name: a name the table does not
 * know, which the CUDA log places at 7.0, goes to Vulkan. */
static void test_probed_cc_decides(void **state)
{
    (void)state;
    lvd_device cuda[] = {dev("CUDA0", "NVIDIA Graphics Device", 16000, "7.0")};
    lvd_device vk[] = {dev("Vulkan0", "NVIDIA Graphics Device", 16000, NULL)};
    sel_candidate c[] = {{1, NULL, "cuda", cuda, 1}, {2, NULL, "vulkan", vk, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    /* Unknown and unprobed: assumed modern, CUDA. */
    cuda[0].compute_cap[0] = '\0';
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 1);
    assert_non_null(strstr(ch.reason, "assumed modern"));
}

static void test_rtx3060_cuda(void **state)
{
    (void)state;
    lvd_device vk[] = {dev("Vulkan0", "NVIDIA GeForce RTX 3060", 12288, NULL)};
    lvd_device cuda[] = {dev("CUDA0", "NVIDIA GeForce RTX 3060", 12044, NULL)};
    sel_candidate c[] = {{1, NULL, "vulkan", vk, 1}, {2, NULL, "cuda", cuda, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_string_equal(ch.selector, "CUDA0");
    assert_non_null(strstr(ch.reason, "Ampere"));
}

static void test_amd_intel_vulkan(void **state)
{
    (void)state;
    lvd_device rocm[] = {dev("ROCm0", "AMD Radeon RX 7900 XTX", 24560, NULL)};
    lvd_device vk[] = {dev("Vulkan0", "AMD Radeon RX 7900 XTX (RADV NAVI31)", 24560, NULL)};
    sel_candidate c[] = {{1, NULL, "rocm", rocm, 1}, {2, NULL, "vulkan", vk, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_string_equal(ch.selector, "Vulkan0");
    assert_int_equal(ch.gpu.vendor, SEL_VENDOR_AMD);
    assert_int_equal(sel_heuristic(c, 1, &ch), 1); /* only ROCm: ROCm */
    assert_int_equal(ch.engine_id, 1);

    lvd_device sycl[] = {dev("SYCL0", "Intel(R) Arc(TM) A770 Graphics", 16225, NULL)};
    lvd_device ivk[] = {dev("Vulkan0", "Intel(R) Arc(tm) A770 Graphics (DG2)", 16288, NULL)};
    sel_candidate i[] = {{3, NULL, "sycl", sycl, 1}, {4, NULL, "vulkan", ivk, 1}};
    assert_int_equal(sel_heuristic(i, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 4);
    assert_int_equal(ch.gpu.vendor, SEL_VENDOR_INTEL);
    assert_non_null(strstr(ch.reason, "Alchemist"));

    lvd_device rx580[] = {dev("Vulkan0", "Radeon RX 580 Series", 8192, NULL)};
    sel_candidate r[] = {{5, NULL, "cpu", NULL, 0}, {6, NULL, "vulkan", rx580, 1}};
    assert_int_equal(sel_heuristic(r, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 6);
}

static void test_apple_metal(void **state)
{
    (void)state;
    lvd_device mtl[] = {dev("MTL0", "Apple M2", 21845, NULL)};
    sel_candidate c[] = {{1, NULL, "cpu", NULL, 0}, {2, NULL, "metal", mtl, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_string_equal(ch.selector, "MTL0");
}

/* No accelerator: the CPU engine; llvmpipe is not an accelerator; an engine
 * that could not be asked is not a CPU engine. */
static void test_no_accelerator(void **state)
{
    (void)state;
    lvd_device llvm[] = {dev("Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", 64000, NULL)};
    sel_candidate c[] = {
        {1, NULL, "vulkan", llvm, 1},
        {2, NULL, LVD_BACKEND_UNKNOWN, NULL, 0},
        {3, "b9749-cpu", LVD_BACKEND_CPU, NULL, 0},
    };
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 3, &ch), 1);
    assert_int_equal(ch.engine_id, 3);
    assert_int_equal(ch.device, -1);
    assert_string_equal(ch.selector, "");
    assert_int_equal(ch.gpu.vendor, SEL_VENDOR_NONE);
    assert_non_null(strstr(ch.reason, "b9749-cpu (engine 3), a CPU engine"));
    assert_int_equal(sel_heuristic(c, 2, &ch), 0);
    assert_non_null(strstr(ch.reason, "none is a CPU engine"));
    assert_int_equal(sel_heuristic(NULL, 0, &ch), 0);
}

/* A vendor without a rule: no decision (rule 4 goes next). */
static void test_unknown_vendor(void **state)
{
    (void)state;
    lvd_device vk[] = {dev("Vulkan0", "Adreno (TM) 740", 8000, NULL)};
    sel_candidate c[] = {{1, NULL, "cpu", NULL, 0}, {2, NULL, "vulkan", vk, 1}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 0);
    assert_non_null(strstr(ch.reason, "Adreno"));
    assert_non_null(strstr(ch.reason, "no rule"));
    /* An AMD card only an OpenCL engine lists: no backend the rule names. */
    lvd_device cl[] = {dev("OpenCL0", "AMD Radeon RX 6800 XT", 16000, NULL)};
    sel_candidate o[] = {{3, NULL, "opencl", cl, 1}};
    assert_int_equal(sel_heuristic(o, 1, &ch), 0);
    assert_non_null(strstr(ch.reason, "no engine lists it"));
}

/* Several devices: discrete before integrated whatever the memory, then the
 * larger. */
static void test_target_device(void **state)
{
    (void)state;
    lvd_device vk[] = {
        dev("Vulkan0", "Intel(R) UHD Graphics 770 (ADL-S GT1)", 31000, NULL),
        dev("Vulkan1", "NVIDIA GeForce GTX 1060 6GB", 6144, NULL),
        dev("Vulkan2", "NVIDIA GeForce RTX 3060", 12288, NULL),
    };
    lvd_device cuda[] = {
        dev("CUDA0", "NVIDIA GeForce GTX 1060 6GB", 6069, "6.1"),
        dev("CUDA1", "NVIDIA GeForce RTX 3060", 12044, "8.6"),
    };
    sel_candidate c[] = {{1, NULL, "vulkan", vk, 3}, {2, NULL, "cuda", cuda, 2}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_string_equal(ch.selector, "CUDA1");
    assert_int_equal(ch.device, 1);
    /* Without the 3060 the 1060 is the target: Vulkan1, not the iGPU. */
    c[0].n_devices = 2;
    c[1].n_devices = 1;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 1);
    assert_string_equal(ch.selector, "Vulkan1");
    /* Only the iGPU: Intel -> Vulkan0. */
    c[0].n_devices = 1;
    assert_int_equal(sel_heuristic(c, 1, &ch), 1);
    assert_string_equal(ch.selector, "Vulkan0");
    assert_int_equal(ch.gpu.integrated, 1);
}

/* One binary built with CUDA and Vulkan lists both for one card. */
static void test_multi_backend_binary(void **state)
{
    (void)state;
    lvd_device both[] = {
        dev("CUDA0", "NVIDIA GeForce GTX 1060 6GB", 6069, NULL),
        dev("Vulkan0", "NVIDIA GeForce GTX 1060 6GB", 6245, NULL),
    };
    sel_candidate c[] = {{4, NULL, "cuda", both, 2}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 1, &ch), 1);
    assert_int_equal(ch.engine_id, 4);
    assert_string_equal(ch.selector, "Vulkan0");
    assert_int_equal(ch.device, 1);
}

static void test_device_backend(void **state)
{
    (void)state;
    char b[16];
    lvd_device d = dev("Vulkan12", "x", 1, NULL);
    sel_device_backend(&d, b, sizeof b);
    assert_string_equal(b, "vulkan");
    snprintf(d.backend, sizeof d.backend, "CUDA");
    sel_device_backend(&d, b, sizeof b);
    assert_string_equal(b, "cuda");
    sel_device_backend(&d, b, 3);
    assert_string_equal(b, "cu");
    d = dev("MTL0", "Apple M2", 1, NULL);
    sel_device_backend(&d, b, sizeof b);
    assert_string_equal(b, "metal");
}

/* Software rasterizers are no accelerators: the one rule
 * (engine_device_is_software) knows Mesa's and Google's names, and no real
 * GPU's; the label says "vulkan (software)". */
static void test_software_devices(void **state)
{
    (void)state;
    static const char *const soft[] = {
        "llvmpipe (LLVM 15.0.6, 256 bits)", "lavapipe", "Mesa lavapipe (LLVM 17.0.6)",
        "SwiftShader Device (Subzero) (0x0000C0DE)", "Google SwiftShader", "softpipe",
        "Microsoft Basic Render Driver",
    };
    static const char *const real[] = {
        "NVIDIA GeForce RTX 4090", "AMD Radeon RX 7900 XTX (RADV NAVI31)",
        "Intel(R) Arc(tm) A770 Graphics (DG2)", "NVIDIA H200", "Apple M2 Max", "Adreno (TM) 740",
        "AMD Radeon Graphics (RADV RAPHAEL_MENDOCINO)", "",
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(soft); i++) {
        sel_gpu g;
        if (!engine_device_is_software(soft[i]))
            fail_msg("'%s' is a software rasterizer", soft[i]);
        sel_classify(soft[i], "vulkan", NULL, &g);
        assert_int_equal(g.vendor, SEL_VENDOR_NONE);
        assert_string_equal(g.generation, "software");
    }
    for (size_t i = 0; i < LVD_ARRAY_LEN(real); i++) {
        sel_gpu g;
        if (engine_device_is_software(real[i]))
            fail_msg("'%s' is no software rasterizer", real[i]);
        sel_classify(real[i], "vulkan", NULL, &g);
        assert_int_not_equal(g.vendor, SEL_VENDOR_NONE);
    }
    assert_false(engine_device_is_software(NULL));
    /* the real capture: the b9749 Vulkan build with GGML_VK_VISIBLE_DEVICES=0 */
    lvd_device vk[2];
    assert_int_equal(read_capture("llama.cpp/vulkan-lavapipe-b9749/list-devices.stdout", vk, 2), 1);
    assert_string_equal(vk[0].name, "llvmpipe (LLVM 15.0.6, 256 bits)");
    char label[32];
    sel_device_label(&vk[0], label, sizeof label);
    assert_string_equal(label, "vulkan (software)");
    lvd_device rtx = dev("Vulkan0", "NVIDIA GeForce RTX 4090", 24000, NULL);
    sel_device_label(&rtx, label, sizeof label);
    assert_string_equal(label, "vulkan");
    sel_device_label(NULL, label, sizeof label);
    assert_string_equal(label, "cpu");
    /* rule 3 on that box: the CPU engine, and the reason names what it passed over */
    sel_candidate c[] = {{1, "b9749-vulkan", "vulkan", vk, 1}, {2, "b9749-cpu", LVD_BACKEND_CPU, NULL, 0}};
    sel_choice ch;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_int_equal(ch.engine_id, 2);
    assert_int_equal(ch.device, -1);
    assert_string_equal(ch.reason, "no engine lists an accelerator (a software rasterizer, not an accelerator:"
                                   " Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits) of b9749-vulkan (engine 1) is"
                                   " vulkan (software)): b9749-cpu (engine 2), a CPU engine");
    /* without the CPU engine rule 3 has no answer (rule 4 runs it on the CPU) */
    assert_int_equal(sel_heuristic(c, 1, &ch), 0);
    assert_non_null(strstr(ch.reason, "vulkan (software)) and none is a CPU engine"));
    /* a real accelerator beside it is the target */
    lvd_device two[] = {vk[0], dev("Vulkan1", "AMD Radeon RX 7900 XTX (RADV NAVI31)", 24000, NULL)};
    c[0].devices = two;
    c[0].n_devices = 2;
    assert_int_equal(sel_heuristic(c, 2, &ch), 1);
    assert_string_equal(ch.selector, "Vulkan1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_probe_and_backend_override),
        cmocka_unit_test(test_h200_captures),
        cmocka_unit_test(test_gtx1060_prefers_vulkan),
        cmocka_unit_test(test_p40_probed_cc),
        cmocka_unit_test(test_probed_cc_decides),
        cmocka_unit_test(test_rtx3060_cuda),
        cmocka_unit_test(test_amd_intel_vulkan),
        cmocka_unit_test(test_apple_metal),
        cmocka_unit_test(test_no_accelerator),
        cmocka_unit_test(test_unknown_vendor),
        cmocka_unit_test(test_target_device),
        cmocka_unit_test(test_multi_backend_binary),
        cmocka_unit_test(test_device_backend),
        cmocka_unit_test(test_software_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
