/* pplout.h: reads what llama-perplexity prints: the running estimate per
 * chunk on stdout ("[1]32495.6345,[2]32498.5601,..."), the final estimate on
 * stderr ("Final estimate: PPL = 32813.2123 +/- 800.98189"), and with
 * --kl-divergence the statistics block (Mean PPL(Q), Mean PPL(base),
 * Mean PPL(Q)/PPL(base), Mean KLD, Same top p), plus the warning a build
 * without a usable GPU prints when -ngl is asked ("--gpu-layers option will
 * be ignored"). Both streams are searched for everything, so a build that
 * moves a line to the other stream still parses. Not for running the tool
 * (check/check.h) or judging the numbers. */
#ifndef LVD_CHECK_PPLOUT_H
#define LVD_CHECK_PPLOUT_H

#include "common/util.h"

#include <stddef.h>

typedef struct check_ppl {
    double *chunks;        /* running estimate after chunk 1, 2, ... (stdout) */
    size_t n_chunks;
    int has_final;         /* "Final estimate: PPL = X +/- Y" was printed */
    double ppl, ppl_err;   /* the final estimate; NAN without one */
    int has_kld;           /* the --kl-divergence statistics were printed */
    double ppl_q, ppl_q_err;        /* Mean PPL(Q) */
    double ppl_base, ppl_base_err;  /* Mean PPL(base) */
    double ppl_ratio, ppl_ratio_err;/* Mean PPL(Q)/PPL(base) */
    double mean_kld, mean_kld_err;  /* Mean KLD */
    double same_top_p, same_top_p_err; /* Same top p, percent */
    int gpu_ignored;       /* the build warned that -ngl would be ignored */
} check_ppl;

/* Parses llama-perplexity's stdout (out) and stderr (err_text; either may be
 * NULL) into res; name (the engine or file) prefixes errors. Values printed
 * as nan or -nan (llama.cpp's uncertainty of a zero difference) parse as
 * NAN. Returns 0, or -1 with err when no perplexity was printed at all
 * (neither chunks, nor a final estimate, nor Mean PPL(Q)), or when the KL
 * divergence header was printed but its Mean KLD line is missing (a
 * truncated run). Free res with check_ppl_free. */
int check_ppl_parse(const char *out, const char *err_text, const char *name, check_ppl *res,
                    lvd_err *err);
void check_ppl_free(check_ppl *res);

/* The run's perplexity: the final estimate, else Mean PPL(Q), else the last
 * chunk's running estimate; NAN when none. */
double check_ppl_value(const check_ppl *res);

#endif
