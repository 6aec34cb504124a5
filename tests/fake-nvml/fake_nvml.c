/* fake_nvml.c: a fake libnvidia-ml.so.1 with the few entry points
 * energy/nvml.c uses, for tests without a GPU: load it with
 * LVD_NVML_LIBRARY. Its devices are the lines of the file $FAKE_NVML_DEVICES:
 *     NAME|BUS_ID|MEM_MIB|IDLE_W|MODE|COUNTER_FILE
 * MODE counter: nvmlDeviceGetTotalEnergyConsumption answers (mJ) the idle
 *      draw since nvmlInit by wall clock plus COUNTER_FILE's uJ (what the
 *      fake engine adds as it "computes": tests/fake-engine/energy.c);
 *      power: no counter (NOT_SUPPORTED), power usage in mW (idle plus the
 *      counter file's rate since the last call); stall: a counter that never
 *      moves; none: neither. Not a model of NVML's update rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK 0
#define ERR_UNINITIALIZED 1
#define ERR_INVALID 2
#define ERR_NOT_SUPPORTED 3
#define MAX_DEV 16

typedef struct dev {
    char name[96], bus[32], mode[16], file[512];
    unsigned long long mem_mib;
    double idle_w;
    double last_uj, last_ms;
} dev;

static dev devs[MAX_DEV];
static unsigned n_devs;
static double t0_ms;
static int inited;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double busy_uj(const dev *d)
{
    FILE *f = fopen(d->file, "r");
    double v = 0;
    if (f) {
        if (fscanf(f, "%lf", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

int nvmlInit_v2(void)
{
    const char *p = getenv("FAKE_NVML_DEVICES");
    FILE *f = p ? fopen(p, "r") : NULL;
    if (!f)
        return ERR_UNINITIALIZED;
    char line[1024];
    n_devs = 0;
    while (n_devs < MAX_DEV && fgets(line, sizeof line, f)) {
        dev *d = &devs[n_devs];
        memset(d, 0, sizeof *d);
        if (sscanf(line, "%95[^|]|%31[^|]|%llu|%lf|%15[^|]|%511[^|\n]", d->name, d->bus, &d->mem_mib, &d->idle_w,
                   d->mode, d->file) >= 5)
            n_devs++;
    }
    fclose(f);
    t0_ms = now_ms();
    inited = 1;
    return OK;
}

int nvmlShutdown(void)
{
    inited = 0;
    return OK;
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
    if (!inited)
        return ERR_UNINITIALIZED;
    *n = n_devs;
    return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d)
{
    if (!inited || i >= n_devs)
        return ERR_INVALID;
    *d = &devs[i];
    return OK;
}

int nvmlDeviceGetName(void *h, char *buf, unsigned len)
{
    snprintf(buf, len, "%s", ((dev *)h)->name);
    return OK;
}

typedef struct pci {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} pci;

int nvmlDeviceGetPciInfo_v3(void *h, pci *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->bus_id, sizeof p->bus_id, "%s", ((dev *)h)->bus);
    return OK;
}

typedef struct memory {
    unsigned long long total, free, used;
} memory;

int nvmlDeviceGetMemoryInfo(void *h, memory *m)
{
    m->total = ((dev *)h)->mem_mib * 1024ULL * 1024ULL;
    m->free = m->total;
    m->used = 0;
    return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj)
{
    dev *d = h;
    if (!strcmp(d->mode, "stall")) {
        *mj = 1000;
        return OK;
    }
    if (strcmp(d->mode, "counter"))
        return ERR_NOT_SUPPORTED;
    *mj = (unsigned long long)(d->idle_w * (now_ms() - t0_ms) + busy_uj(d) / 1000.0);
    return OK;
}

int nvmlDeviceGetPowerUsage(void *h, unsigned *mw)
{
    dev *d = h;
    if (strcmp(d->mode, "power"))
        return ERR_NOT_SUPPORTED;
    double t = now_ms(), uj = busy_uj(d);
    double busy_mw = d->last_ms > 0 && t > d->last_ms ? (uj - d->last_uj) / (t - d->last_ms) : 0;
    d->last_uj = uj;
    d->last_ms = t;
    *mw = (unsigned)(d->idle_w * 1000.0 + busy_mw);
    return OK;
}
