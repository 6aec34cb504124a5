/* energy.c: the fake engine's energy, so tests know the true joules per token
 *. As a llama-bench repetition "computes" for ns nanoseconds on
 * target T, it adds T.watts x ns to the counter file T.energy (uJ as text,
 * relative to the scenario dir; wraps at a max_energy_range_uj file beside
 * it, as RAPL does), and host_watts x ns to cpu.energy when T is a device
 * (the host's part of a GPU run). The watts are above idle: the idle draw is
 * the fake NVML's (tests/fake-nvml/), by wall clock. Not for speeds. */
#include "fake.h"

/* The counter file for key (relative to the scenario dir), or NULL. */
static char *counter_path(const char *key)
{
    const char *p = scn_str(key, NULL);
    if (!p || !*p)
        return NULL;
    if (p[0] == '/' || !G.scn_path)
        return lvd_xstrdup(p);
    char *dir = dir_name(G.scn_path);
    char *full = lvd_xasprintf("%s/%s", dir, p);
    free(dir);
    return full;
}

static uint64_t read_u64(const char *path, uint64_t def)
{
    FILE *f = fopen(path, "r");
    unsigned long long v;
    int ok = f && fscanf(f, "%llu", &v) == 1;
    if (f)
        fclose(f);
    return ok ? (uint64_t)v : def;
}

/* Adds uj to the counter at path (atomically: a reader never sees half a file). */
static void counter_add(const char *path, double uj)
{
    uint64_t v = read_u64(path, 0);
    char *dir = dir_name(path);
    char *range_path = lvd_xasprintf("%s/max_energy_range_uj", dir);
    uint64_t range = read_u64(range_path, 0);
    v += (uint64_t)llround(uj);
    if (range)
        v %= range;
    char *tmp = lvd_xasprintf("%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "%llu\n", (unsigned long long)v);
        fclose(f);
        rename(tmp, path);
    }
    free(tmp);
    free(range_path);
    free(dir);
}

static void add_for(const char *T, const char *what, double ns)
{
    char *wkey = lvd_xasprintf("%s.watts", T), *ekey = lvd_xasprintf("%s.energy", T);
    double w = streq(what, "host") ? scn_dbl("host_watts", 0) : scn_dbl(wkey, 0);
    char *path = counter_path(ekey);
    if (path && w > 0)
        counter_add(path, w * ns / 1e3); /* W x ns = 1e-9 J = 1e-3 uJ */
    free(path);
    free(wkey);
    free(ekey);
}

void energy_compute(const char *T, double ns)
{
    add_for(T, "self", ns);
    if (strcmp(T, "cpu"))
        add_for("cpu", "host", ns);
}
