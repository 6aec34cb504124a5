/* hostfacts.c: reading the host facts (engine/hostfacts.h). Not for storing
 * them (store/store_facts.c). */
#include "engine/hostfacts.h"

#include "common/proc.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void engine_facts_set(engine_facts *f, const char *name, const char *value)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->names[i], name)) {
            free(f->values[i]);
            f->values[i] = lvd_xstrdup(value);
            return;
        }
    if (f->n == ENGINE_FACTS_MAX)
        return;
    f->names[f->n] = lvd_xstrdup(name);
    f->values[f->n++] = lvd_xstrdup(value);
}

const char *engine_facts_get(const engine_facts *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->names[i], name))
            return f->values[i];
    return NULL;
}

void engine_facts_free(engine_facts *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->names[i]);
        free(f->values[i]);
    }
    memset(f, 0, sizeof *f);
}

/* The first line of ROOT/rel (ROOT from env, else dflt), trimmed; malloc'd or NULL. */
static char *read_line(const char *env, const char *dflt, const char *rel, const char *prefix)
{
    const char *root = getenv(env) && *getenv(env) ? getenv(env) : dflt;
    char *path = lvd_xasprintf("%s/%s", root, rel);
    lvd_sb sb = {0};
    lvd_err err = {0};
    char *out = NULL;
    if (lvd_read_file(path, 1 << 16, &sb, &err) == 0) {
        const char *s = lvd_sb_str(&sb);
        const char *line = s;
        while (prefix && line && strncmp(line, prefix, strlen(prefix)))
            line = (line = strchr(line, '\n')) ? line + 1 : NULL;
        if (line) {
            line += prefix ? strlen(prefix) : 0;
            line += strspn(line, " \t:");
            size_t n = strcspn(line, "\n");
            while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
                n--;
            out = n ? lvd_xasprintf("%.*s", (int)n, line) : NULL;
        }
    }
    lvd_sb_free(&sb);
    free(path);
    return out;
}

static void set_owned(engine_facts *f, const char *name, char *value)
{
    if (value)
        engine_facts_set(f, name, value);
    free(value);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03  Fri Aug 16 ..." -> "560.35.03" */
static char *nvidia_proc_version(void)
{
    char *line = read_line("LVD_PROC_ROOT", "/proc", "driver/nvidia/version", "NVRM version");
    char *mod = line ? strstr(line, "Kernel Module") : NULL;
    char *out = NULL;
    if (mod) {
        mod += strlen("Kernel Module");
        mod += strspn(mod, " ");
        out = lvd_xasprintf("%.*s", (int)strcspn(mod, " "), mod);
    }
    free(line);
    return out;
}

static char *find_smi(void)
{
    const char *e = getenv("LVD_NVIDIA_SMI");
    if (e)
        return *e ? lvd_xstrdup(e) : NULL;
    if (getenv("LVD_PROC_ROOT"))
        return NULL; /* a faked host: never ask the real GPU */
    size_t n = 0;
    char **dirs = lvd_split(getenv("PATH") ? getenv("PATH") : "", ':', &n);
    char *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        char *p = lvd_xasprintf("%s/nvidia-smi", dirs[i]);
        if (access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    lvd_strv_free(dirs);
    return found;
}

/* nvidia-smi's driver, power limit and max SM clock of GPU 0. */
static void nvidia_smi(engine_facts *f)
{
    char *smi = find_smi();
    if (!smi)
        return;
    const char *argv[] = {smi, "--query-gpu=driver_version,power.limit,clocks.max.sm",
                          "--format=csv,noheader", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = 10000, .max_capture = 1 << 16};
    proc_result r;
    lvd_err err = {0};
    if (proc_run(&spec, &r, &err) == 0 && proc_ok(&r)) {
        size_t n = 0;
        char *line = lvd_xasprintf("%.*s", (int)strcspn(lvd_sb_str(&r.out), "\n"), lvd_sb_str(&r.out));
        char **v = lvd_split(line, ',', &n);
        const char *names[] = {"driver", "power_limit", "clock_max_sm"};
        for (size_t i = 0; i < n && i < 3; i++) {
            const char *s = v[i] + strspn(v[i], " ");
            if (*s && strncmp(s, "[N/A]", 5) && strncmp(s, "[Not Supported]", 15) &&
                !(i == 0 && engine_facts_get(f, "driver")))
                engine_facts_set(f, names[i], s);
        }
        lvd_strv_free(v);
        free(line);
    }
    proc_result_free(&r);
    free(smi);
}

void engine_host_facts(engine_facts *f)
{
    set_owned(f, "driver", nvidia_proc_version());
    set_owned(f, "amdgpu", read_line("LVD_SYSFS_ROOT", "/sys", "module/amdgpu/version", NULL));
    char *kernel = read_line("LVD_PROC_ROOT", "/proc", "sys/kernel/osrelease", NULL);
    struct utsname u;
    if (!kernel && !getenv("LVD_PROC_ROOT") && uname(&u) == 0)
        kernel = lvd_xstrdup(u.release);
    set_owned(f, "kernel", kernel);
    set_owned(f, "cpu", read_line("LVD_PROC_ROOT", "/proc", "cpuinfo", "model name"));
    set_owned(f, "governor",
              read_line("LVD_SYSFS_ROOT", "/sys", "devices/system/cpu/cpu0/cpufreq/scaling_governor", NULL));
    set_owned(f, "gpu_power_cap", /* amdgpu, microwatts */
              read_line("LVD_SYSFS_ROOT", "/sys", "class/drm/card0/device/hwmon/hwmon0/power1_cap", NULL));
    nvidia_smi(f);
}

void engine_facts_from_log(engine_facts *f, const char *log)
{
    const char *p = log ? strstr(log, "ggml_vulkan: 0 = ") : NULL;
    if (!p || engine_facts_get(f, "vulkan_driver"))
        return;
    const char *end = p + strcspn(p, "\n|");
    const char *open = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '(')
            open = q;
    const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
    if (open && close && close > open + 1) {
        char *v = lvd_xasprintf("%.*s", (int)(close - open - 1), open + 1);
        engine_facts_set(f, "vulkan_driver", v);
        free(v);
    }
}
