/* arm.h: the canonical identity of a bench arm (engine x device x parameters)
 * as a string key, written and read back in one place, and the parameters a
 * llama-bench result reports back.
 * Not for choosing arms (bench runner) or comparing them (select/). */
#ifndef LVD_BENCHIO_ARM_H
#define LVD_BENCHIO_ARM_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>

/* Writes p's canonical key, e.g.
 *   "dev=CUDA0 ngl=99 fa=1 ub=512 ctk=f16 ctv=f16 ncmoe=- t=16 env="
 *   "dev=CUDA0/CUDA1 sm=row ts=0.60/0.40 ngl=99 ..." (sm and ts appear only
 *   when passed, so single-device keys are unchanged), and "... t=16
 *   fitt=1024 fitc=256 env=" for llama.cpp's own fit (fitt and fitc appear
 *   only when -fitt is passed), "... t=- np=4 env=" for a serving arm
 *   (llama-server -np: lvd serve; np appears only when passed), "... np=4 fmoe=0
 *   rtr=1 env=" for ik_llama.cpp's knobs (each only when passed), with "-" for every flag not passed (lvd_params defaults: ngl/fa -1,
 * ub/ncmoe/t 0, strings "") and env's "K=V" entries sorted, so equal arms
 * give equal keys. 0, or -1 when buf is too small (buf then holds "" ). */
int benchio_arm_key(const lvd_params *p, char *buf, size_t len);

/* The parameters of a key benchio_arm_key wrote, into *p (lvd_params_init
 * first; "-" is "not passed"; fitc without fitt is 0, as the key has no
 * fitc then): benchio_arm_key of the result is key again. 0, or -1 with err
 * (a word that is not one of the key's NAME=VALUE fields, a value out of
 * range or too long, no env= field). */
int benchio_arm_key_parse(const char *key, lvd_params *p, lvd_err *err);

/* The parameters a result says it ran with: n_gpu_layers, flash_attn,
 * n_ubatch, type_k/type_v, n_cpu_moe, n_threads as reported (-1 for ngl/fa
 * stays "not passed"), the device from the reported "devices" field unless
 * it is "auto", split_mode and tensor_split only when devices names several
 * (llama-bench reports "layer" and "0.00" for flags not passed; an all-zero
 * split is "not passed"), ik_llama.cpp's fused_moe and repack as -fmoe and
 * -rtr, and no environment (llama-bench does not report it). */
void benchio_params_from_result(const lvd_result *r, lvd_params *p);

#endif
