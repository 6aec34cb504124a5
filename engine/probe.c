/* probe.c: runs an engine's `--list-devices` through proc_run, caches the
 * answer in the store (served while the engine's files are the ones it
 * recorded: engine/identity.c), and presents probes as a table or JSON (see
 * probe.h). Not for parsing the output (engine/devices.c). */
#include "engine/probe.h"

#include "engine/cards.h"

#include "engine/cudaarch.h"
#include "engine/devices.h"
#include "engine/family.h"
#include "engine/help.h"
#include "engine/identity.h"
#include "engine/startup.h"
#include "engine/visibility.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/proc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What --list-devices prints is a few lines; anything past this is garbage. */
#define PROBE_CAPTURE ((size_t)256 << 10)
#define REASON_DETAIL_MAX 200

char *engine_probe_binary(const lvd_engine *e)
{
    static const char *const names[] = {"llama-bench", "llama-server"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(names); i++) {
        char *path = lvd_xasprintf("%s/%s", e->dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return path;
        free(path);
    }
    return NULL;
}

/* The last non-empty stderr line, trimmed and bounded; "" when none. */
static void last_line(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    char *tail = proc_tail(text, 1);
    char *p = tail;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, "\r\n");
    if (n > REASON_DETAIL_MAX)
        n = REASON_DETAIL_MAX;
    snprintf(buf, len, "%.*s", (int)n, p);
    free(tail);
}

static void set_unknown(lvd_probe *out, char *reason)
{
    snprintf(out->backend, sizeof out->backend, "%s", LVD_BACKEND_UNKNOWN);
    free(out->reason);
    out->reason = reason;
}

void engine_probe_run(const char *binary, int timeout_ms, lvd_probe *out)
{
    if (timeout_ms <= 0)
        timeout_ms = ENGINE_PROBE_TIMEOUT_MS;
    free(out->devices);
    out->devices = NULL;
    out->n_devices = 0;
    free(out->env);
    out->env = engine_visibility_current(); /* what the child inherits */
    const char *argv[] = {binary, "--list-devices", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = timeout_ms, .max_capture = PROBE_CAPTURE};
    proc_result res;
    lvd_err err = {{0}};
    const char *name = lvd_base_name(binary);
    if (proc_run(&spec, &res, &err) != 0) {
        set_unknown(out, lvd_xasprintf("%s --list-devices: %s", name, err.msg));
        proc_result_free(&res);
        return;
    }
    char how[256], detail[REASON_DETAIL_MAX + 1];
    last_line(lvd_sb_str(&res.err), detail, sizeof detail);
    if (!res.spawned) {
        set_unknown(out, lvd_xasprintf("cannot execute %s: %s", binary, strerror(res.spawn_errno)));
    } else if (res.timed_out) {
        set_unknown(out, lvd_xasprintf("%s --list-devices timed out after %.3g s (process group killed)",
                                       name, timeout_ms / 1000.0));
    } else if (!proc_ok(&res)) {
        proc_describe(&res, how, sizeof how);
        set_unknown(out, *detail ? lvd_xasprintf("%s --list-devices: %s: %s", name, how, detail)
                                 : lvd_xasprintf("%s --list-devices: %s", name, how));
    } else if (engine_devices_parse(lvd_sb_str(&res.out), lvd_sb_str(&res.err), &out->devices,
                                   &out->n_devices, &err) != 0) {
        set_unknown(out, lvd_xasprintf("%s %s", name, err.msg));
    } else {
        engine_devices_label(out->devices, out->n_devices, out->backend, sizeof out->backend);
        engine_cuda_archs_parse(lvd_sb_str(&res.err), out->cuda_archs, sizeof out->cuda_archs);
        free(out->reason);
        out->reason = NULL;
    }
    proc_result_free(&res);
}

/* 1 when a tool of dir whose --help was read (llama-server's, llama-perplexity's)
 * lists -ngl: ik_llama.cpp's list it only in a build with GPU offload;
 * -1 when neither could be read. */
static int offers_offload(const char *dir)
{
    engine_help h;
    engine_help_read(dir, &h);
    static const engine_tool tools[] = {ENGINE_TOOL_SERVER, ENGINE_TOOL_PERPLEXITY};
    int known = 0, offers = 0;
    for (size_t i = 0; i < LVD_ARRAY_LEN(tools); i++) {
        known |= h.known[tools[i]];
        offers |= engine_help_opt(&h, tools[i], "-ngl") || engine_help_opt(&h, tools[i], "--gpu-layers") ||
                  engine_help_opt(&h, tools[i], "--n-gpu-layers");
    }
    engine_help_free(&h);
    return known ? offers : -1;
}

/* A build with no --list-devices in any tool (ik_llama.cpp): the devices its
 * backends announce while its llama-bench starts (`llama-bench --help`:
 * engine/startup.h); where none announces itself, the CPU when its tools'
 * --help offer no GPU offload, else "unknown" saying why. out->reason holds
 * the refusal on entry. */
static void ask_startup(const char *binary, int timeout_ms, lvd_probe *out)
{
    if (timeout_ms <= 0)
        timeout_ms = ENGINE_PROBE_TIMEOUT_MS;
    const char *argv[] = {binary, "--help", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = timeout_ms, .max_capture = PROBE_CAPTURE};
    proc_result res;
    lvd_err err = {{0}};
    if (proc_run(&spec, &res, &err) != 0 || !res.spawned || res.timed_out || res.signaled) {
        proc_result_free(&res);
        return; /* the refusal stands as the reason */
    }
    lvd_device *devs = NULL;
    size_t n = 0;
    int announced = engine_startup_devices(lvd_sb_str(&res.err), &devs, &n, NULL, 0);
    proc_result_free(&res);
    char *dir = lvd_xstrndup(binary, (size_t)(lvd_base_name(binary) - binary));
    int offload = announced ? 0 : offers_offload(dir);
    free(dir);
    if (announced || offload == 0) {
        free(out->devices);
        out->devices = devs;
        out->n_devices = n;
        engine_devices_label(devs, n, out->backend, sizeof out->backend);
        free(out->reason);
        out->reason = NULL;
        return;
    }
    free(devs);
    set_unknown(out, lvd_xasprintf("%s has no --list-devices and no backend announced a device as it started; "
                                   "%s", lvd_base_name(binary),
                                   offload > 0 ? "its --help offers -ngl (GPU offload), so its devices cannot be told"
                                               : "its tools' --help could not be read"));
}

void engine_probe_ask(const char *binary, int timeout_ms, lvd_probe *out)
{
    engine_probe_run(binary, timeout_ms, out);
    /* only a llama-bench that said it does not know the option: a hung or
     * crashing one is not asked twice through its neighbour */
    if (strcmp(out->backend, LVD_BACKEND_UNKNOWN) || strcmp(lvd_base_name(binary), "llama-bench") || !out->reason ||
        !strstr(out->reason, "invalid parameter for argument: --list-devices"))
        return;
    char *server = lvd_xasprintf("%.*sllama-server", (int)(lvd_base_name(binary) - binary), binary);
    struct stat st;
    if (stat(server, &st) == 0 && S_ISREG(st.st_mode)) {
        lvd_probe other = {0};
        engine_probe_run(server, timeout_ms, &other);
        if (strcmp(other.backend, LVD_BACKEND_UNKNOWN)) { /* its answer, bench's identity */
            memcpy(out->backend, other.backend, sizeof out->backend);
            memcpy(out->cuda_archs, other.cuda_archs, sizeof out->cuda_archs);
            free(out->devices);
            out->devices = other.devices;
            out->n_devices = other.n_devices;
            other.devices = NULL;
            free(out->reason);
            out->reason = NULL;
        }
        lvd_probe_free(&other);
    }
    free(server);
    if (!strcmp(out->backend, LVD_BACKEND_UNKNOWN)) /* no tool lists devices */
        ask_startup(binary, timeout_ms, out);
}

/* 1 when the cached probe may be served: no newer probe of the engine under
 * the same environment failed. */
static int cache_usable(store *s, const lvd_engine *e, const lvd_probe *fresh, lvd_err *err)
{
    lvd_probe latest;
    int rc = store_probe_latest_env(s, e->id, fresh->env, &latest, err);
    if (rc < 0)
        return -1;
    int usable = rc == 1 || latest.id == fresh->id || strcmp(latest.backend, LVD_BACKEND_UNKNOWN) != 0;
    if (rc == 0)
        lvd_probe_free(&latest);
    return usable;
}

/* Serves the cache into out when it may: 1 served, 0 not (out empty, *changed
 * says why when the engine's files changed), -1 store error. */
static int serve_cached(store *s, const lvd_engine *e, const char *binary, const char *env,
                        const struct stat *st, const engine_fileset *fs, lvd_probe *out, char **changed,
                        lvd_err *err)
{
    int64_t mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    int rc = store_probe_fresh(s, binary, env, mtime_ns, (int64_t)st->st_size, lvd_now(), ENGINE_PROBE_TTL_S,
                               out, err);
    int usable = rc == 0 ? cache_usable(s, e, out, err) : 0;
    if (rc >= 0 && usable >= 0 && engine_identity_changed(s, e, rc == 0 ? out : NULL, fs, changed, err) != 0)
        usable = -1;
    if (usable > 0 && !*changed && !engine_help_current(out->flags)) /* made before flags were recorded */
        *changed = lvd_xstrdup("the last probe did not record the flags its tools list");
    if (usable > 0 && *changed)
        usable = 0;
    if (rc == 0 && usable <= 0)
        lvd_probe_free(out);
    return rc < 0 ? -1 : usable;
}

int engine_probe_engine_ex(store *s, const lvd_engine *e, int refresh, int timeout_ms, lvd_probe *out,
                          int *cached, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (cached)
        *cached = 0;
    engine_fileset fs;
    if (engine_files_list(e->dir, &fs, NULL) != 0)
        memset(&fs, 0, sizeof fs);
    char *binary = engine_probe_binary(e), *changed = NULL;
    char *env = engine_visibility_current(); /* part of the cache key */
    struct stat st;
    int rc = 0;
    if (binary && stat(binary, &st) == 0) {
        rc = refresh ? 0 : serve_cached(s, e, binary, env, &st, &fs, out, &changed, err);
        if (rc != 0) {
            if (cached && rc == 1)
                *cached = 1;
            free(binary);
            free(env);
            engine_fileset_free(&fs);
            return rc < 0 ? -1 : 0;
        }
        out->binary = binary;
        out->bin_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        out->bin_size = (int64_t)st.st_size;
        engine_probe_ask(binary, timeout_ms, out);
    } else {
        /* Nothing to ask: recorded as unknown (for display) against the path expected. */
        out->binary = binary ? binary : lvd_xasprintf("%s/llama-bench", e->dir);
        set_unknown(out, lvd_xasprintf("no llama-bench or llama-server in %s", e->dir));
    }
    free(out->env);
    out->env = env;
    out->engine_id = e->id;
    out->probed_at = lvd_now();
    out->changed = changed;
    rc = engine_identity_record(s, e, &fs, out, err);
    engine_fileset_free(&fs);
    if (rc != 0 || store_probe_put(s, out, err) != 0) {
        lvd_probe_free(out);
        return -1;
    }
    return 0;
}

int engine_probe_engine(store *s, const lvd_engine *e, int refresh, int timeout_ms, lvd_probe *out,
                       lvd_err *err)
{
    return engine_probe_engine_ex(s, e, refresh, timeout_ms, out, NULL, err);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* What the probe recorded of the engine's files (identity.h). */
static void identity_json(cJSON *o, const lvd_probe *p)
{
    size_t n;
    char **v = lvd_split(p->backends, ',', &n);
    cJSON_AddItemToObject(o, "backends", lvd_json_strings(v, n));
    lvd_strv_free(v);
    cJSON_AddItemToObject(o, "no_device", lvd_json_text(p->no_device));
    cJSON_AddItemToObject(o, "cuda_archs", lvd_json_text(p->cuda_archs));
    cJSON_AddItemToObject(o, "reprobed_because", lvd_json_text(p->changed));
    cJSON_AddNumberToObject(o, "n_files", (double)count_lines(p->files));
}

cJSON *engine_probe_json(const lvd_engine *e, const lvd_probe *p, int cached)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "engine", e->name);
    cJSON_AddNumberToObject(o, "engine_id", (double)e->id);
    cJSON_AddItemToObject(o, "dir", lvd_json_text(e->dir));
    cJSON_AddItemToObject(o, "build", lvd_json_text(e->build));
    cJSON_AddStringToObject(o, "family", lvd_engine_family(e));
    cJSON_AddItemToObject(o, "semver", lvd_json_text(e->semver));
    cJSON_AddItemToObject(o, "binary", lvd_json_text(p->binary));
    cJSON_AddStringToObject(o, "backend", p->backend);
    cJSON_AddItemToObject(o, "reason", lvd_json_text(p->reason));
    cJSON_AddNumberToObject(o, "probed_at", (double)p->probed_at);
    cJSON_AddBoolToObject(o, "cached", cached != 0);
    cJSON_AddItemToObject(o, "env", engine_visibility_json(p->env));
    char ns[32]; /* exact: nanoseconds exceed a double's 53 bits */
    snprintf(ns, sizeof ns, "%lld", (long long)p->bin_mtime_ns);
    cJSON_AddRawToObject(o, "bin_mtime_ns", ns);
    cJSON_AddNumberToObject(o, "bin_size", (double)p->bin_size);
    identity_json(o, p);
    cJSON *devs = cJSON_AddArrayToObject(o, "devices");
    size_t *card = lvd_xcalloc(p->n_devices ? p->n_devices : 1, sizeof *card);
    engine_cards(p->devices, p->n_devices, NULL, card);
    for (size_t i = 0; i < p->n_devices; i++) {
        const lvd_device *d = &p->devices[i];
        cJSON *dj = cJSON_CreateObject();
        cJSON_AddStringToObject(dj, "selector", d->selector);
        cJSON_AddStringToObject(dj, "name", d->name);
        cJSON_AddItemToObject(dj, "total_mib", lvd_json_num_if(d->total_mib >= 0, (double)d->total_mib));
        cJSON_AddItemToObject(dj, "free_mib", lvd_json_num_if(d->free_mib >= 0, (double)d->free_mib));
        cJSON_AddStringToObject(dj, "backend", d->backend);
        cJSON_AddItemToObject(dj, "compute_cap", lvd_json_text(d->compute_cap));
        cJSON_AddBoolToObject(dj, "software", engine_device_is_software(d->name));
        char flag[256];
        engine_cuda_arch_flag(p->cuda_archs, d, flag, sizeof flag);
        cJSON_AddItemToObject(dj, "cuda_arch_flag", lvd_json_text(flag));
        /* engine/cards.h: the first listing of the same physical card; null: its own */
        cJSON_AddItemToObject(dj, "same_card_as", lvd_json_str(card[i] == i ? NULL : p->devices[card[i]].selector));
        cJSON_AddItemToArray(devs, dj);
    }
    free(card);
    return o;
}

/* "CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free), cc 9.0", as llama.cpp
 * prints it, then the CUDA arch flag when the build has no code for it. */
static void device_line(lvd_sb *sb, const lvd_device *d, const char *archs)
{
    lvd_sb_addf(sb, "%s: %s", d->selector, d->name);
    if (d->total_mib >= 0 && d->free_mib >= 0)
        lvd_sb_addf(sb, " (%lld MiB, %lld MiB free)", (long long)d->total_mib, (long long)d->free_mib);
    if (d->compute_cap[0])
        lvd_sb_addf(sb, ", cc %s", d->compute_cap);
    if (engine_device_is_software(d->name))
        lvd_sb_adds(sb, " -- software rasterizer on the CPU, no accelerator");
    char flag[256];
    engine_cuda_arch_flag(archs, d, flag, sizeof flag);
    if (*flag)
        lvd_sb_addf(sb, " -- WARNING: %s", flag);
}

/* The lines under an engine's devices: its family (an engine not of
 * mainline llama.cpp), its SemVer version, its backends, the no-device note
 * and why it was probed again. */
static void identity_lines(FILE *f, int wname, int wback, const lvd_engine *e, const lvd_probe *p)
{
    char family[128];
    engine_family_describe(e, family, sizeof family);
    const char *lines[][2] = {{"family: ", strcmp(lvd_engine_family(e), LVD_FAMILY_MAINLINE) ? family : NULL},
                              {"version: ", e->semver},
                              {"backends: ", p->backends[0] ? p->backends : NULL},
                              {"note: ", p->no_device}, {"re-probed: ", p->changed}};
    for (size_t i = 0; i < LVD_ARRAY_LEN(lines); i++)
        if (lines[i][1])
            fprintf(f, "%-*s  %-*s  %-6s  %s%s\n", wname, "", wback, "", "", lines[i][0], lines[i][1]);
}

void engine_probe_table(FILE *f, const lvd_engine *e, const lvd_probe *p, const int *cached, size_t n)
{
    int wname = (int)strlen("ENGINE"), wback = (int)strlen("BACKEND");
    for (size_t i = 0; i < n; i++) {
        if ((int)strlen(e[i].name) > wname)
            wname = (int)strlen(e[i].name);
        if ((int)strlen(p[i].backend) > wback)
            wback = (int)strlen(p[i].backend);
    }
    fprintf(f, "%-*s  %-*s  %-6s  %s\n", wname, "ENGINE", wback, "BACKEND", "PROBE", "DEVICES");
    const char *red = lvd_ansi(f, "\033[31m"), *reset = lvd_ansi(f, "\033[0m");
    for (size_t i = 0; i < n; i++) {
        int unknown = !strcmp(p[i].backend, LVD_BACKEND_UNKNOWN);
        const char *how = unknown ? "failed" : cached[i] ? "cached" : "probed";
        lvd_sb line = {0};
        if (unknown)
            lvd_sb_adds(&line, p[i].reason ? p[i].reason : "could not be asked");
        else if (p[i].n_devices == 0)
            lvd_sb_adds(&line, "(none)");
        else
            device_line(&line, &p[i].devices[0], p[i].cuda_archs);
        fprintf(f, "%-*s  %s%-*s%s  %-6s  %s\n", wname, e[i].name, unknown ? red : "", wback,
                p[i].backend, unknown ? reset : "", how, lvd_sb_str(&line));
        size_t *card = lvd_xcalloc(p[i].n_devices ? p[i].n_devices : 1, sizeof *card);
        engine_cards(p[i].devices, p[i].n_devices, NULL, card);
        for (size_t d = 1; d < p[i].n_devices; d++) {
            lvd_sb_reset(&line);
            device_line(&line, &p[i].devices[d], p[i].cuda_archs);
            if (card[d] != d)
                lvd_sb_addf(&line, " -- the same card as %s (one device, two backends)",
                            p[i].devices[card[d]].selector);
            fprintf(f, "%-*s  %-*s  %-6s  %s\n", wname, "", wback, "", "", lvd_sb_str(&line));
        }
        free(card);
        identity_lines(f, wname, wback, &e[i], &p[i]);
        lvd_sb_free(&line);
    }
    if (n > 0) { /* every probe shown was made under the same environment */
        char env[320];
        engine_visibility_describe(p[0].env, env, sizeof env);
        fprintf(f, "environment: %s\n", env);
    }
}
