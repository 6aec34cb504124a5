/* check_import.c: lvd check --import (see check_import in check.h):
 * one check recorded from captured llama-perplexity stdout/stderr, judged
 * like a live run against a captured CPU reference, or recorded as that
 * reference. Not for running llama-perplexity or printing the report
 * (check.c). */
#include "check/check.h"
#include "check/check_item.h"

#include "common/cli.h"
#include "common/sha256.h"
#include "engine/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void check_import_opts_init(check_import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kld_max = CHECK_KLD_MAX;
    o->ppl_tol = CHECK_PPL_TOL;
    o->top_p_min = -1.0;
}

#define CAPTURE_MAX_BYTES ((size_t)64 << 20)

/* Reads and parses one run's captured stdout and stderr (log may be NULL). */
static int parse_capture(const char *output, const char *log, check_ppl *res, lvd_err *err)
{
    lvd_sb out = {0}, log_text = {0};
    int rc = lvd_read_file(output, CAPTURE_MAX_BYTES, &out, err);
    if (rc == 0 && log)
        rc = lvd_read_file(log, CAPTURE_MAX_BYTES, &log_text, err);
    if (rc == 0)
        rc = check_ppl_parse(lvd_sb_str(&out), log ? lvd_sb_str(&log_text) : NULL, output, res, err);
    lvd_sb_free(&out);
    lvd_sb_free(&log_text);
    return rc;
}

static int import_fail(int *exit_code, int code)
{
    *exit_code = code;
    return -1;
}

/* The device the check is recorded under, checked against the engine's
 * probe; *dev gets the probe's record of it when there is one. */
static int import_device(store *s, const check_import_opts *o, const lvd_engine *e, char *out,
                         size_t len, lvd_device *dev, int *exit_code, lvd_err *err)
{
    memset(dev, 0, sizeof *dev);
    lvd_probe probe;
    int rc = store_probe_latest(s, e->id, &probe, err);
    if (rc < 0)
        return import_fail(exit_code, LVD_EXIT_STORE);
    lvd_params p;
    lvd_params_init(&p);
    p.ngl = 99;
    snprintf(p.device, sizeof p.device, "%s", o->device ? o->device : "");
    engine_check_device(rc == 0 ? &probe : NULL, &p, out, len);
    int found = 0;
    for (size_t i = 0; rc == 0 && i < probe.n_devices && !found; i++)
        if (!strcmp(probe.devices[i].selector, out)) {
            *dev = probe.devices[i];
            found = 1;
        }
    int listed = rc == 0 && probe.n_devices > 0;
    if (rc == 0)
        lvd_probe_free(&probe);
    if (listed && !found) {
        lvd_errf(err, "engine %s's probe lists no device %s; give one of its selectors with --device", e->name,
                 out);
        return import_fail(exit_code, LVD_EXIT_USAGE);
    }
    return 0;
}

/* 0 when the options make sense together, else -1 with err. */
static int import_options(const check_import_opts *o, lvd_err *err)
{
    if (!o->artifact || !lvd_sha256_valid(o->artifact))
        return lvd_errf(err, "--artifact wants the model's sha256 (64 lowercase hex digits)");
    if (!o->engine)
        return lvd_errf(err, "--engine NAME is required: the engine whose llama-perplexity wrote the capture");
    if (!o->output)
        return lvd_errf(err, "--output FILE is required: llama-perplexity's stdout");
    if (!o->base_output && o->base_log)
        return lvd_errf(err, "--base-log needs --base-output (the reference's stdout)");
    if (!o->base_output && o->device)
        return lvd_errf(err, "--device %s without --base-output: the CPU reference has no device", o->device);
    return 0;
}

/* Checks the options and resolves the engine and the artifact. */
static int import_resolve(store *s, const check_import_opts *o, lvd_engine *e, int *exit_code,
                          lvd_err *err)
{
    if (import_options(o, err))
        return import_fail(exit_code, LVD_EXIT_USAGE);
    store_artifact a;
    int rc = store_artifact_get(s, o->artifact, &a, err);
    if (rc < 0)
        return import_fail(exit_code, LVD_EXIT_STORE);
    if (rc == 1) {
        lvd_errf(err, "%s: no artifact %s in the store (lvd store import or lvd store model records it)",
                 store_path(s), o->artifact);
        return import_fail(exit_code, LVD_EXIT_USAGE);
    }
    store_artifact_free(&a);
    rc = store_engine_by_name(s, o->engine, e, err);
    if (rc < 0)
        return import_fail(exit_code, LVD_EXIT_STORE);
    if (rc == 1) {
        lvd_errf(err, "%s: no engine named '%s' in the store", store_path(s), o->engine);
        return import_fail(exit_code, LVD_EXIT_USAGE);
    }
    return 0;
}

/* The two captures of a comparison must score the same text and context. */
static int same_chunks(const check_ppl *base, const check_ppl *dev, const check_import_opts *o,
                       lvd_err *err)
{
    if (base->has_kld)
        return lvd_errf(err, "%s: has KL divergence statistics: it compared against a reference, it is not"
                        " one", o->base_output);
    if (base->n_chunks && dev->n_chunks && base->n_chunks != dev->n_chunks)
        return lvd_errf(err, "%s scored %zu chunks, %s %zu: not the same text and context", o->base_output,
                        base->n_chunks, o->output, dev->n_chunks);
    return 0;
}

int check_import(store *s, const check_import_opts *o, check_report *out, int *exit_code,
                       lvd_err *err)
{
    memset(out, 0, sizeof *out);
    *exit_code = LVD_EXIT_OK;
    lvd_engine e = {0};
    if (import_resolve(s, o, &e, exit_code, err))
        return -1;
    int ret = -1;
    check_ppl dev_ppl = {0}, base_ppl = {0}; /* check_ppl_free is safe on both, parsed or not */
    char device[64] = "";
    lvd_device d;
    memset(&d, 0, sizeof d);
    if (o->base_output && import_device(s, o, &e, device, sizeof device, &d, exit_code, err))
        goto out;
    if (parse_capture(o->output, o->log, &dev_ppl, err)) {
        *exit_code = LVD_EXIT_INPUT;
        goto out;
    }
    if (o->base_output) {
        if (parse_capture(o->base_output, o->base_log, &base_ppl, err) || same_chunks(&base_ppl, &dev_ppl, o, err)) {
            *exit_code = LVD_EXIT_INPUT;
            goto out;
        }
    } else if (dev_ppl.has_kld) {
        lvd_errf(err, "%s: has KL divergence statistics: a comparison run; give its reference with --base-output",
                 o->output);
        *exit_code = LVD_EXIT_INPUT;
        goto out;
    }
    check_opts co;
    check_opts_init(&co);
    co.artifact = o->artifact;
    co.host = o->host ? o->host : lvd_hostname();
    co.kld_max = o->kld_max;
    co.ppl_tol = o->ppl_tol;
    co.top_p_min = o->top_p_min;
    co.ppl_only = 1;
    const char *backend = !o->base_output ? LVD_BACKEND_CPU : d.selector[0] ? d.backend : LVD_BACKEND_UNKNOWN;
    check_item *it = check_add_item(out, &e, backend, d.selector[0] ? &d : NULL, &co);
    snprintf(it->check.device, sizeof it->check.device, "%s", device);
    it->check.ran_at = lvd_now();
    if (o->base_output) {
        check_judge(&dev_ppl, check_ppl_value(&base_ppl), &co, &it->check);
    } else {
        it->reference = 1;
        check_set_base(&it->check, check_ppl_value(&dev_ppl), lvd_xstrdup("reference: imported capture"));
    }
    out->reference_ok = 1;
    if (check_record(s, out, it, err)) {
        *exit_code = LVD_EXIT_STORE;
        goto out;
    }
    ret = 0;
out:
    check_ppl_free(&dev_ppl);
    check_ppl_free(&base_ppl);
    lvd_engine_free(&e);
    return ret;
}
