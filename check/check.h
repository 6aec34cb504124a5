/* check.h: correctness before speed. A device is admitted for a model only
 * when its llama-perplexity result reproduces the CPU's on a fixed text.
 *
 * Reference (recorded with status "base"): the first CPU-only engine (probe
 * saw no device) that has llama-perplexity, run without any GPU flag; when
 * there is none, the first GPU engine run with `-ngl 0 -dev none` (no layer
 * and no op on a device). It writes the CPU's logits:
 *   PPL -m MODEL -f TEXT -c 128 --chunks 4 --kl-divergence-base FILE [-ngl 0 -dev none]
 * Each device of every GPU engine (selector verbatim from that engine's
 * probe), and every other CPU-only engine, is then compared with them:
 *   PPL -m MODEL -f TEXT -c 128 --chunks 4 --kl-divergence-base FILE --kl-divergence
 *       [-ngl 99 -dev SEL]
 * and recorded with mean KLD, same-top-p %, its PPL, the base PPL and
 * Mean PPL(Q)/PPL(base) (check/pplout.h).
 *
 * Verdict of one device (check_judge):
 *   pass   mean KLD <= kld_max and |PPL ratio - 1| <= ppl_tol (and same top p
 *          >= top_p_min when that is set);
 *   fail   any of those out of bounds, a NaN statistic, or a build that
 *          warned that it ignores -ngl (it ran on the CPU: the device proved
 *          nothing);
 *   error  the run could not be judged: it could not execute, timed out,
 *          crashed, exited non-zero, printed no KL divergence statistics, or
 *          the reference itself failed. lvd-select excludes fail and error.
 * Captured output (lvd check --import, check_import) may come from a
 * plain llama-perplexity run without --kl-divergence: then only the PPL
 * ratio is judged (KLD recorded as not measured, NAN, and the reason says
 * so) instead of "error"; the -ngl warning still fails it.
 * Defaults (man lvd-check, THE THRESHOLDS, has the reasoning): kld_max 0.01, ppl_tol 0.01, no same-
 * top-p floor. On the H200 captures (random-weight F16 model) correct devices
 * differ from the CPU by PPL ratios 1.0006 (CUDA) and 1.0013 (Vulkan); for
 * scale, llama.cpp's published LLaMA 3 8B table has quantization KLDs of
 * 0.0014 (q8_0), 0.0055 (q6_K), 0.031 (q4_K_M) and 0.072 (q4_0) against F16:
 * a device must agree with the CPU better than 4-bit quantization agrees
 * with F16, with room for kernel rounding 7x larger than q8_0's.
 * Not for parsing the output (pplout.h) or choosing a winner (select/). */
#ifndef LVD_CHECK_CHECK_H
#define LVD_CHECK_CHECK_H

#include "check/pplout.h"
#include "common/types.h"
#include "common/util.h"
#include "engine/argv.h"
#include "store/store.h"

#include <stddef.h>
#include <stdio.h>

struct cJSON;

#define CHECK_KLD_MAX 0.01
#define CHECK_PPL_TOL 0.01
#define CHECK_CTX 128
#define CHECK_CHUNKS 4
#define CHECK_TIMEOUT_S 600
#define CHECK_TEXT "perplexity-input.txt" /* in lvd_datadir() (common/paths.h) */

typedef struct check_opts {
    const char *model;
    const char *text;          /* the fixed text (-f) */
    const char *artifact;      /* sha256 of the model */
    const char *host;
    double kld_max;            /* CHECK_KLD_MAX */
    double ppl_tol;            /* CHECK_PPL_TOL */
    double top_p_min;          /* percent; < 0 = no floor */
    int timeout_ms;            /* per llama-perplexity run */
    int ppl_only;              /* judge a run without KL divergence statistics on its
                                  PPL ratio alone (captures), not "error" */
} check_opts;

/* Fills o with the defaults (no model, text or identity). */
void check_opts_init(check_opts *o);

/* Judges one comparison run's parsed output against o: sets c->status
 * ("pass" / "fail"), the statistics (mean_kld, same_top_p, ppl, ppl_base,
 * ppl_ratio; ppl_ratio falls back to ppl / ppl_base when not printed) and
 * c->reason (NULL on pass, else one line naming every bound broken). A run
 * whose build warned that -ngl is ignored fails. A run without KL
 * divergence statistics is "error", or with o->ppl_only judged on the PPL
 * ratio alone (a pass then has a reason saying KLD was not measured).
 * base_ppl is the reference run's perplexity (used when the output has no
 * Mean PPL(base)). */
void check_judge(const check_ppl *out, double base_ppl, const check_opts *o, lvd_check *c);

/* One row of a check session. */
typedef struct check_item {
    int64_t engine_id;
    char *engine;
    char backend[16];          /* "cpu" or the device's backend */
    char device_name[256];
    int reference;             /* the CPU reference (status "base") */
    lvd_check check;           /* as recorded (device "" for CPU engines) */
    char *left_out;            /* the flags the build's --help does not list, left out of its
                                  llama-perplexity run (engine/argv.h note); NULL: none */
} check_item;

typedef struct check_report {
    check_item *items;
    size_t n;
    char **skipped;            /* "ENGINE: reason" of engines not checked */
    size_t n_skipped;
    size_t n_pass, n_fail, n_error;
    int reference_ok;          /* every family's reference ran and wrote its logits */
} check_report;

/* Runs the reference and every comparison for engines[0..n) with probes[i]
 * belonging to engines[i], per family (engine/family.h: ik_llama.cpp's
 * kernels, numerics and logits file are its own, so each family's devices
 * are checked against a CPU reference of that family, and a CPU engine of
 * one family is never judged by another's), records each as a check (store_check_put) as soon
 * as it ends, and fills out (free with check_report_free). Engines
 * whose probe is unknown are skipped (listed in out->skipped). Returns 0
 * when the session ran (failures are in the items), -1 with err when the
 * store failed or no engine has llama-perplexity to serve as reference. */
int check_run(store *s, const lvd_engine *engines, const lvd_probe *probes, size_t n,
                    const check_opts *o, check_report *out, lvd_err *err);
void check_report_free(check_report *r);

/* --- captured output: lvd check --import ----------------------------------- */

typedef struct check_import_opts {
    const char *artifact;      /* sha256 of the model: an artifact in the store */
    const char *engine;        /* the engine that ran it (name in the store) */
    const char *device;        /* its device selector; NULL: engine_check_device's (the probe's
                                  first device, else "auto") */
    const char *host;          /* where it ran; NULL = this machine */
    const char *output, *log;  /* llama-perplexity's stdout and stderr (log may be NULL) */
    const char *base_output, *base_log; /* the CPU reference run's; base_output NULL: output
                                  and log ARE the reference, recorded as "base" (device "") */
    double kld_max, ppl_tol, top_p_min; /* as in check_opts */
} check_import_opts;

/* Fills o with the default tolerances and nothing else. */
void check_import_opts_init(check_import_opts *o);

/* Records one check from captured llama-perplexity output, so results
 * measured elsewhere or earlier can admit a device. With base_output: the
 * device run is judged against the reference's perplexity (check_judge
 * with ppl_only: a capture without KL statistics is judged on the PPL ratio
 * alone) and recorded under (engine, device); without: the run is the CPU
 * reference, recorded as "base" with device "" (a --device is refused).
 * Refused as bad input: unreadable or unparsable files; a reference capture
 * with KL statistics (it was a comparison, not a reference); reference and
 * device scoring a different number of chunks (not the same text and
 * context). ran_at is now. Fills out (one item; free with
 * check_report_free). 0, or -1 with err and *exit_code
 * (LVD_EXIT_USAGE options, unknown engine or artifact, a selector the
 * engine's probe does not list; LVD_EXIT_INPUT the files; LVD_EXIT_STORE). */
int check_import(store *s, const check_import_opts *o, check_report *out, int *exit_code,
                       lvd_err *err);

/* The command of one llama-perplexity run (engine/argv.h, over flags, what
 * the engine's tools list as its probe recorded them; NULL: not known):
 * compare 0 writes base_file, 1 compares with it; device NULL = no GPU flag,
 * "none" = the GPU engine's CPU reference (-ngl 0 -dev none), else -ngl 99
 * -dev DEVICE. 0, or -1 with err when the build lacks a flag it needs. */
int check_cmd(const char *binary, const char *flags, const check_opts *o, const char *base_file, int compare,
              const char *device, engine_argv *out, lvd_err *err);
/* Its argv alone, for a build whose flags are not known (NULL-terminated;
 * lvd_strv_free). */
char **check_argv(const char *binary, const check_opts *o, const char *base_file, int compare, const char *device);

/* Prints the table, a line per item whose build left a flag out
 * ("left out: ENGINE DEVICE: ...") and the tolerances (o->text NULL:
 * imported captures); JSON of the same (left_out only on those items); the
 * exit code
 * (LVD_EXIT_OK all pass or nothing to check, LVD_EXIT_PARTIAL some device
 * failed or errored, LVD_EXIT_FAIL the reference failed). */
void check_print(FILE *f, const check_report *r, const check_opts *o);
struct cJSON *check_json(const check_report *r, const check_opts *o);
int check_exit(const check_report *r);

#endif
