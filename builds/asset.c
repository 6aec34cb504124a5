/* asset.c: release asset names from build + flavour (see asset.h). The table
 * follows upstream's .github/workflows/release.yml: Linux, macOS and Android
 * archives are `llama-<build>-bin-<flavour>.tar.gz` (older releases shipped
 * the same names as `.zip`); Windows archives have always been `.zip`. */
#include "builds/asset.h"

#include <stdlib.h>
#include <string.h>

typedef struct flavour {
    const char *name;  /* canonical, with the "bin-" prefix */
    int zip_only;      /* Windows archives: `.zip` and nothing else */
} flavour;

static const flavour flavours[] = {
    {"bin-ubuntu-x64", 0},
    {"bin-ubuntu-arm64", 0},
    {"bin-ubuntu-s390x", 0},
    {"bin-ubuntu-vulkan-x64", 0},
    {"bin-ubuntu-vulkan-arm64", 0},
    {"bin-ubuntu-rocm-7.2-x64", 0},
    {"bin-ubuntu-openvino-2026.0-x64", 0},
    {"bin-ubuntu-sycl-fp32-x64", 0},
    {"bin-ubuntu-sycl-fp16-x64", 0},
    {"bin-android-arm64", 0},
    {"bin-macos-arm64", 0},
    {"bin-macos-x64", 0},
    {"bin-win-cpu-x64", 1},
    {"bin-win-cpu-arm64", 1},
    {"bin-win-cuda-12.4-x64", 1},
    {"bin-win-cuda-13.3-x64", 1},
    {"bin-win-vulkan-x64", 1},
    {"bin-win-hip-radeon-x64", 1},
    {"bin-win-opencl-adreno-arm64", 1},
    {"bin-win-sycl-x64", 1},
};

int builds_valid(const char *build)
{
    if (!build || build[0] != 'b')
        return 0;
    size_t n = strlen(build + 1);
    if (n == 0 || n > 12)
        return 0;
    return strspn(build + 1, "0123456789") == n;
}

int builds_opt_build(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (!builds_valid(arg))
        return lvd_errf(err, "wants a build like b10715, not '%s'", arg);
    *(const char **)field = arg;
    return 0;
}

int builds_opt_flavour(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (!builds_flavour_canonical(arg)) {
        char *known = builds_flavour_list();
        lvd_errf(err, "wants a known flavour (%s), not '%s'", known, arg);
        free(known);
        return -1;
    }
    *(const char **)field = arg;
    return 0;
}

static const flavour *find_flavour(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < LVD_ARRAY_LEN(flavours); i++) {
        const char *canon = flavours[i].name;
        if (!strcmp(name, canon) || !strcmp(name, canon + strlen("bin-")))
            return &flavours[i];
    }
    return NULL;
}

const char *builds_flavour_canonical(const char *flavour_name)
{
    const flavour *f = find_flavour(flavour_name);
    return f ? f->name : NULL;
}

char *builds_flavour_list(void)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < LVD_ARRAY_LEN(flavours); i++)
        lvd_sb_addf(&sb, "%s%s", i ? ", " : "", flavours[i].name);
    return lvd_sb_detach(&sb);
}

int builds_asset_names(const char *build, const char *flavour_name, char *names[BUILDS_MAX_ASSET_NAMES],
                      size_t *n, lvd_err *err)
{
    *n = 0;
    if (!builds_valid(build))
        return lvd_errf(err, "'%s' is not a llama.cpp build (expected b<number>, e.g. b10715)",
                        build ? build : "");
    const flavour *f = find_flavour(flavour_name);
    if (!f) {
        char *known = builds_flavour_list();
        lvd_errf(err, "unknown flavour '%s'; known flavours: %s", flavour_name ? flavour_name : "",
                 known);
        free(known);
        return -1;
    }
    if (!f->zip_only)
        names[(*n)++] = lvd_xasprintf("llama-%s-%s.tar.gz", build, f->name);
    names[(*n)++] = lvd_xasprintf("llama-%s-%s.zip", build, f->name);
    return 0;
}

void builds_asset_names_free(char *names[BUILDS_MAX_ASSET_NAMES], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
        names[i] = NULL;
    }
}
