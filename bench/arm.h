/* arm.h: the canonical identity of a bench arm (engine x device x parameters)
 * as a string key, and the parameters a llama-bench result reports back.
 * Not for choosing arms (bench runner) or comparing them (select/). */
#ifndef LVD_BENCH_ARM_H
#define LVD_BENCH_ARM_H

#include "common/types.h"

#include <stddef.h>

/* Writes p's canonical key, e.g.
 *   "dev=CUDA0 ngl=99 fa=1 ub=512 ctk=f16 ctv=f16 ncmoe=- t=16 env="
 * ("... t=16 fitt=1024 fitc=256 env=" for llama.cpp's own fit: fitt and fitc
 * appear only when -fitt is passed), with "-" for every flag not passed (lvd_params defaults: ngl/fa -1,
 * ub/ncmoe/t 0, strings "") and env's "K=V" entries sorted, so equal arms
 * give equal keys. 0, or -1 when buf is too small (buf then holds "" ). */
int bench_arm_key(const lvd_params *p, char *buf, size_t len);

/* The parameters a result says it ran with: n_gpu_layers, flash_attn,
 * n_ubatch, type_k/type_v, n_cpu_moe, n_threads as reported (-1 for ngl/fa
 * stays "not passed"), the device from the reported "devices" field unless
 * it is "auto", and no environment (llama-bench does not report it). */
void bench_params_from_result(const lvd_result *r, lvd_params *p);

#endif
