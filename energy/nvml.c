/* nvml.c: the NVIDIA source through NVML, loaded at run time (energy.h):
 * dlopen of $LVD_NVML_LIBRARY or libnvidia-ml.so.1, the few entry points
 * used declared here (no NVML header needed to build), one source per device
 * with its PCI bus id, name and memory; the total-energy counter where it
 * answers, else power usage. Not for sysfs sources (sysfs.c). */
#include "energy/energy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_ret;           /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef void *nvml_device;      /* nvmlDevice_t */

typedef struct nvml_pci {       /* nvmlPciInfo_t (v3) */
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci;

typedef struct nvml_memory {    /* nvmlMemory_t */
    unsigned long long total, free, used;
} nvml_memory;

struct energy_nvml {
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*count)(unsigned *);
    nvml_ret (*handle)(unsigned, nvml_device *);
    nvml_ret (*name)(nvml_device, char *, unsigned);
    nvml_ret (*pci)(nvml_device, nvml_pci *);
    nvml_ret (*memory)(nvml_device, nvml_memory *);
    nvml_ret (*energy)(nvml_device, unsigned long long *);
    nvml_ret (*power)(nvml_device, unsigned *);
};

/* Resolves every entry point; 0 when all are there. */
static int resolve(struct energy_nvml *n)
{
    struct { void **fn; const char *sym; } t[] = {
        {(void **)&n->init, "nvmlInit_v2"},
        {(void **)&n->shutdown, "nvmlShutdown"},
        {(void **)&n->count, "nvmlDeviceGetCount_v2"},
        {(void **)&n->handle, "nvmlDeviceGetHandleByIndex_v2"},
        {(void **)&n->name, "nvmlDeviceGetName"},
        {(void **)&n->pci, "nvmlDeviceGetPciInfo_v3"},
        {(void **)&n->memory, "nvmlDeviceGetMemoryInfo"},
        {(void **)&n->energy, "nvmlDeviceGetTotalEnergyConsumption"},
        {(void **)&n->power, "nvmlDeviceGetPowerUsage"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(t); i++) {
        *t[i].fn = dlsym(n->lib, t[i].sym);
        if (!*t[i].fn)
            return -1;
    }
    return 0;
}

/* One device as a source: the counter when it answers, else power. */
static void add_device(energy_set *set, unsigned i)
{
    struct energy_nvml *n = set->nvml;
    nvml_device d;
    if (n->handle(i, &d))
        return;
    energy_source src;
    memset(&src, 0, sizeof src);
    snprintf(src.kind, sizeof src.kind, "nvml");
    src.nvml_index = i;
    src.nvml_dev = d;
    src.mem_mib = -1;
    if (n->name(d, src.name, sizeof src.name))
        src.name[0] = 0;
    nvml_pci pci;
    memset(&pci, 0, sizeof pci);
    if (!n->pci(d, &pci))
        snprintf(src.id, sizeof src.id, "%.*s", (int)sizeof pci.bus_id, pci.bus_id);
    nvml_memory mem;
    if (!n->memory(d, &mem))
        src.mem_mib = (int64_t)(mem.total / (1024 * 1024));
    unsigned long long mj;
    unsigned mw;
    if (!n->energy(d, &mj)) {
        src.counter = 1;
    } else if (!n->power(d, &mw)) {
        src.counter = 0;
        energy_note(set, "energy: NVIDIA %s (%s) has no energy counter: power sampled, which covers "
                    "only part of the time on some cards", src.name, src.id);
    } else {
        energy_note(set, "energy: NVIDIA %s (%s) reports neither energy nor power: not measured", src.name,
                    src.id);
        return;
    }
    energy_add_source(set, &src);
}

void energy_nvml_open(energy_set *set)
{
    const char *path = getenv("LVD_NVML_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return; /* no NVIDIA source: nothing to say */
    struct energy_nvml *n = lvd_xcalloc(1, sizeof *n);
    n->lib = lib;
    unsigned count = 0;
    if (resolve(n) || n->init() || n->count(&count)) {
        energy_note(set, "energy: %s loaded but NVML did not initialise: no NVIDIA source",
                    path && *path ? path : "libnvidia-ml.so.1");
        dlclose(lib);
        free(n);
        return;
    }
    set->nvml = n;
    for (unsigned i = 0; i < count; i++)
        add_device(set, i);
}

void energy_nvml_close(energy_set *set)
{
    if (!set->nvml)
        return;
    set->nvml->shutdown();
    dlclose(set->nvml->lib);
    free(set->nvml);
    set->nvml = NULL;
}

int energy_nvml_raw(energy_set *set, const energy_source *src, uint64_t *raw)
{
    if (!set->nvml)
        return -1;
    if (src->counter) {
        unsigned long long mj;
        if (set->nvml->energy(src->nvml_dev, &mj))
            return -1;
        *raw = mj;
        return 0;
    }
    unsigned mw;
    if (set->nvml->power(src->nvml_dev, &mw))
        return -1;
    *raw = mw;
    return 0;
}
