/* sysfs.c: the sysfs sources under the sysfs root (energy.h): AMD GPUs
 * through hwmon (energy1_input, else power1_average) and the CPU through RAPL
 * powercap (package domains and their dram children, energy_uj wrapping at
 * max_energy_range_uj), and one raw reading of either. A RAPL counter that
 * cannot be read for lack of permission is said once, in the notes. Not for
 * NVML (nvml.c) or unfolding wraps (meter.c). */
#include "energy/energy.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *energy_sysfs_root(void)
{
    const char *r = getenv("LVD_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

/* The first line of path into buf (newline cut). 0, or -1 with errno. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    int e = errno;
    fclose(f);
    if (!ok) {
        errno = e ? e : EIO;
        return -1;
    }
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
    char buf[64], *end;
    if (read_line(path, buf, sizeof buf))
        return -1;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf) {
        errno = EINVAL;
        return -1;
    }
    *v = x;
    return 0;
}

int energy_sysfs_raw(const energy_source *src, uint64_t *raw)
{
    return read_u64(src->path, raw);
}

/* snprintf for paths and labels: a too long one is cut (and then not found). */
static void pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static int skip_dot(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* One hwmon directory: an amdgpu one becomes a source. */
static void hwmon_one(energy_set *set, const char *dir, const char *base)
{
    char path[PATH_MAX], buf[128];
    pathf(path, sizeof path, "%s/name", dir);
    if (read_line(path, buf, sizeof buf) || strcmp(buf, "amdgpu"))
        return;
    energy_source src;
    memset(&src, 0, sizeof src);
    pathf(src.kind, sizeof src.kind, "hwmon");
    pathf(src.name, sizeof src.name, "amdgpu");
    src.mem_mib = -1;
    pathf(path, sizeof path, "%s/device", dir);
    char real[PATH_MAX];
    pathf(src.id, sizeof src.id, "%s", realpath(path, real) ? lvd_base_name(real) : base);
    uint64_t v;
    pathf(path, sizeof path, "%s/device/mem_info_vram_total", dir);
    if (!read_u64(path, &v))
        src.mem_mib = (int64_t)(v / (1024 * 1024));
    pathf(src.path, sizeof src.path, "%s/energy1_input", dir);
    src.counter = read_u64(src.path, &v) == 0;
    if (!src.counter) {
        pathf(src.path, sizeof src.path, "%s/power1_average", dir);
        if (read_u64(src.path, &v)) {
            energy_note(set, "energy: AMD GPU %s has neither energy1_input nor power1_average: not measured",
                        src.id);
            return;
        }
    }
    energy_add_source(set, &src);
}

static void hwmon_scan(energy_set *set)
{
    char dir[PATH_MAX];
    pathf(dir, sizeof dir, "%s/class/hwmon", energy_sysfs_root());
    struct dirent **e;
    int n = scandir(dir, &e, skip_dot, alphasort);
    for (int i = 0; i < n; i++) {
        char sub[PATH_MAX];
        pathf(sub, sizeof sub, "%s/%s", dir, e[i]->d_name);
        hwmon_one(set, sub, e[i]->d_name);
        free(e[i]);
    }
    if (n >= 0)
        free(e);
}

/* One RAPL zone (package or dram child); *denied set on EACCES/EPERM. */
static void rapl_one(energy_set *set, const char *dir, int child, int *denied)
{
    char path[PATH_MAX], name[64];
    pathf(path, sizeof path, "%s/name", dir);
    if (read_line(path, name, sizeof name))
        return;
    if (child && strcmp(name, "dram"))
        return; /* core/uncore are inside the package already */
    energy_source src;
    memset(&src, 0, sizeof src);
    pathf(src.kind, sizeof src.kind, "rapl");
    pathf(src.name, sizeof src.name, "%s", name);
    pathf(src.id, sizeof src.id, "%s", name);
    src.mem_mib = -1;
    src.cpu = 1;
    src.counter = 1;
    pathf(src.path, sizeof src.path, "%s/energy_uj", dir);
    pathf(path, sizeof path, "%s/max_energy_range_uj", dir);
    if (read_u64(path, &src.range))
        src.range = 0;
    uint64_t v;
    if (read_u64(src.path, &v)) {
        if (errno == EACCES || errno == EPERM)
            *denied = 1;
        return;
    }
    energy_add_source(set, &src);
}

static void rapl_scan(energy_set *set)
{
    char dir[PATH_MAX];
    pathf(dir, sizeof dir, "%s/class/powercap", energy_sysfs_root());
    struct dirent **e;
    int n = scandir(dir, &e, skip_dot, alphasort), denied = 0;
    for (int i = 0; i < n; i++) {
        const char *d = e[i]->d_name;
        if (lvd_starts_with(d, "intel-rapl:")) {
            char sub[PATH_MAX];
            pathf(sub, sizeof sub, "%s/%s", dir, d);
            rapl_one(set, sub, strchr(d + strlen("intel-rapl:"), ':') != NULL, &denied);
        }
        free(e[i]);
    }
    if (n >= 0)
        free(e);
    if (denied)
        energy_note(set, "energy: RAPL energy_uj under %s is readable by root only on this kernel: no CPU "
                    "source (sudo chmod a+r %s/intel-rapl:*/energy_uj to measure it)", dir, dir);
}

void energy_sysfs_open(energy_set *set)
{
    hwmon_scan(set);
    rapl_scan(set);
}
