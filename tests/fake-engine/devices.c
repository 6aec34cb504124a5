/* devices.c: the build and device facts every persona prints: the --version
 * lines, --list-devices (with its faults), ggml's backend init lines, the
 * backends and gpu_info strings, the target a run goes on and the no-GPU
 * warning. Not for any persona's argument parsing. */
#include "fake.h"

/* ------------------------------------------------------ build and devices */

static int ignore_ngl(void)
{
    const char *v = scn_str("ignore_ngl", "0");
    return streq(v, "1") ? 1 : streq(v, "speed") ? 2 : 0;
}

/* 1 when llama_supports_gpu_offload() would be true. */
int gpu_build(void)
{
    return G.ndev > 0 && ignore_ngl() != 1;
}

const char *split_modes(void)
{
    return scn_str("split_modes", "none,layer,row,tensor");
}

const char *build_commit(void)
{
    return scn_str("build_commit", "d32676d77");
}

int fake_ik(void)
{
    return streq(scn_str("family", "llama.cpp"), "ik_llama.cpp");
}

long build_number(void)
{
    return scn_long("build_number", 9749);
}

static void print_devices(void)
{
    fputs("Available devices:\n", stdout);
    if (G.ndev == 0)
        fputs("  (none)\n", stdout);
    for (size_t i = 0; i < G.ndev; i++)
        printf("  %s: %s (%ld MiB, %ld MiB free)\n", G.dev[i].name, G.dev[i].desc,
               G.dev[i].total_mib, G.dev[i].free_mib);
}

/* 1 when the scenario's `backends` list names backend b (case-insensitive). */
static int carried(const char *b)
{
    size_t n;
    char **v = lvd_split(scn_str("backends", ""), ',', &n);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        found = strcasecmp(trim(v[i]), b) == 0;
    lvd_strv_free(v);
    return found;
}

/* What ggml's backends print on stderr when they load (before any logging is
 * configured), per backend, as in gpu-h200/{cuda,vulkan}-list-devices.stderr
 * (ik_llama.cpp's CUDA header without the total, its Vulkan silent:
 * cuda-ik4840-reconstructed/);
 * a backend the scenario carries (`backends`) with no device says so, as
 * vulkan-lavapipe-b9749/list-devices-hidden.stderr does. */
void print_backend_init(void)
{
    static const char *const bks[] = { "CUDA", "ROCm", "Vulkan", NULL };
    for (size_t b = 0; bks[b]; b++) {
        int n = 0;
        long total = 0;
        for (size_t i = 0; i < G.ndev; i++)
            if (strcmp(G.dev[i].backend, bks[b]) == 0) {
                n++;
                total += G.dev[i].total_mib;
            }
        if (!n && carried(bks[b]))
            fputs(b == 2 ? "ggml_vulkan: No devices found.\n"
                         : "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n",
                  stderr);
        if (!n)
            continue;
        if (b == 2 && fake_ik()) /* ik's Vulkan says nothing before a model loads */
            continue;
        if (b == 2)
            fprintf(stderr, "ggml_vulkan: Found %d Vulkan devices:\n", n);
        else if (fake_ik()) /* ggml_cuda_init of ik_llama.cpp (cuda-ik4840-reconstructed/) */
            fprintf(stderr, "ggml_cuda_init: found %d %s devices:\n", n, bks[b]);
        else
            fprintf(stderr, "ggml_cuda_init: found %d %s devices (Total VRAM: %ld MiB):\n", n, bks[b], total);
        int k = 0;
        for (size_t i = 0; i < G.ndev; i++) {
            const fake_dev *d = &G.dev[i];
            if (strcmp(d->backend, bks[b]) != 0)
                continue;
            if (b == 0)
                fprintf(stderr, "  Device %d: %s, compute capability %s, VMM: yes, VRAM: %ld MiB\n", k, d->desc,
                        d->extra, d->total_mib);
            else if (b == 1)
                fprintf(stderr, "  Device %d: %s, %s (0x%s), VMM: no, Wave Size: 32, VRAM: %ld MiB\n", k, d->desc,
                        d->extra, lvd_starts_with(d->extra, "gfx") ? d->extra + 3 : d->extra, d->total_mib);
            else
                fprintf(stderr,
                        "ggml_vulkan: %d = %s (%s) | uma: 0 | fp16: 1 | bf16: 0 | fp4: 0 | warp size: 32 | "
                        "shared memory: 49152 | int dot: 0 | matrix cores: none\n",
                        k, d->desc, d->extra);
            k++;
        }
    }
}

void backends_str(lvd_sb *sb)
{
    if (!G.ndev || ignore_ngl() == 1) {
        lvd_sb_adds(sb, "CPU");
        return;
    }
    for (size_t i = 0; i < G.ndev; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(G.dev[j].backend, G.dev[i].backend) == 0;
        if (seen)
            continue;
        if (sb->len)
            lvd_sb_addc(sb, ',');
        lvd_sb_adds(sb, G.dev[i].backend);
    }
}

void gpu_info_str(lvd_sb *sb)
{
    if (ignore_ngl() == 1)
        return;
    for (size_t i = 0; i < G.ndev; i++) {
        if (i)
            lvd_sb_adds(sb, ", ");
        lvd_sb_adds(sb, G.dev[i].desc);
    }
}

/* The run's target: "cpu" or "dev.NAME". devs: NULL/"auto", "none", or a list
 * of names separated by sep; ngl_zero: the run asked for no offload. */
char *pick_target(const char *devs, char sep, int ngl_zero)
{
    if (!G.ndev || ignore_ngl() || ngl_zero || streq(devs, "none"))
        return lvd_xstrdup("cpu");
    if (!devs || streq(devs, "auto"))
        return lvd_xasprintf("dev.%s", G.dev[0].name);
    size_t n = strcspn(devs, (char[]){ sep, '\0' });
    char *first = lvd_xstrndup(devs, n);
    char *t = lvd_xasprintf("dev.%s", trim(first));
    free(first);
    return t;
}

void version_lines(void)
{
    const char *semver = scn_str("version", "");
    if (*semver)
        fprintf(stderr, "version: %s (build %ld, commit %s)\n", semver, build_number(), build_commit());
    else
        fprintf(stderr, "version: %ld (%s)\n", build_number(), build_commit());
    fprintf(stderr, "built with %s\n", scn_str("built_with", "GNU 12.2.0 for Linux x86_64"));
}

void no_gpu_warning(void)
{
    fputs("warning: no usable GPU found, --gpu-layers option will be ignored\n"
          "warning: one possible reason is that llama.cpp was compiled without GPU support\n"
          "warning: consult docs/build.md for compilation instructions\n",
          stderr);
}

void bench_list_devices(void)
{
    fault_t f = fault_for("list_devices", NULL);
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stdout);
    if (f == F_EXIT1) {
        fputs("ggml_backend_load_all: failed to initialize the backends (fake exit1)\n", stderr);
        flush_all();
        _exit(1);
    }
    if (f == F_CRASH || f == F_TRUNCATED) {
        fputs("Available devices:\n", stdout);
        partial_now(stdout, G.ndev ? G.dev[0].desc : "  (none)", f);
    }
    print_devices();
}
