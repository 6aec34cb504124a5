/* test_armkey.c: the arm key (benchio/arm.h) written and read back by one
 * codec: every field of lvd_params survives the round trip (the device,
 * split mode and fractions, -ngl, -fa, -ub, cache types, -ncmoe, -t,
 * llama.cpp's fit target and context, a serving arm's -np, ik_llama.cpp's
 * -fmoe and -rtr, the environment), "-" reads as "not passed", the keys of today's arms are the
 * ones stored before (the fields written only when passed), and a word that
 * is no field is refused. */
#include "tests/support/testutil.h"

#include "benchio/arm.h"

#include <stdio.h>
#include <string.h>

static void assert_same_params(const lvd_params *a, const lvd_params *b)
{
    assert_string_equal(a->device, b->device);
    assert_string_equal(a->split_mode, b->split_mode);
    assert_string_equal(a->tensor_split, b->tensor_split);
    assert_int_equal(a->ngl, b->ngl);
    assert_int_equal(a->fa, b->fa);
    assert_int_equal(a->ubatch, b->ubatch);
    assert_string_equal(a->type_k, b->type_k);
    assert_string_equal(a->type_v, b->type_v);
    assert_int_equal(a->n_cpu_moe, b->n_cpu_moe);
    assert_int_equal(a->threads, b->threads);
    assert_string_equal(a->env, b->env);
    assert_int_equal(a->fit_target, b->fit_target);
    assert_int_equal(a->fit_ctx, b->fit_ctx);
    assert_int_equal(a->parallel, b->parallel);
    assert_int_equal(a->fused_moe, b->fused_moe);
    assert_int_equal(a->repack, b->repack);
}

/* key of p, parsed back: the same parameters, and the same key again. */
static void round_trip(const lvd_params *p, const char *want_key)
{
    char key[320], again[320];
    assert_int_equal(benchio_arm_key(p, key, sizeof key), 0);
    assert_string_equal(key, want_key);
    lvd_params back;
    lvd_err err = {{0}};
    if (benchio_arm_key_parse(key, &back, &err) != 0)
        fail_msg("%s", err.msg);
    assert_same_params(&back, p);
    assert_int_equal(benchio_arm_key(&back, again, sizeof again), 0);
    assert_string_equal(again, key);
}

static void test_every_field(void **state)
{
    (void)state;
    lvd_params p;
    lvd_params_init(&p);
    round_trip(&p, "dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- env=");
    p = tu_params_every();
    p.fa = 0;
    snprintf(p.type_v, sizeof p.type_v, "q4_0");
    snprintf(p.env, sizeof p.env, "CUDA_VISIBLE_DEVICES=0 GGML_VK_PREFER_HOST_MEMORY=1");
    round_trip(&p, "dev=CUDA0/CUDA1 sm=row ts=0.60/0.40 ngl=99 fa=0 ub=256 ctk=q8_0 ctv=q4_0 ncmoe=4 t=8"
                   " fitt=1024 fitc=4096 env=CUDA_VISIBLE_DEVICES=0 GGML_VK_PREFER_HOST_MEMORY=1");
    p.fit_ctx = 0; /* fitc is written with fitt, 0 included */
    round_trip(&p, "dev=CUDA0/CUDA1 sm=row ts=0.60/0.40 ngl=99 fa=0 ub=256 ctk=q8_0 ctv=q4_0 ncmoe=4 t=8"
                   " fitt=1024 fitc=0 env=CUDA_VISIBLE_DEVICES=0 GGML_VK_PREFER_HOST_MEMORY=1");
    p.ngl = 0; /* 0 is a value, not "not passed" */
    p.fa = 1;
    round_trip(&p, "dev=CUDA0/CUDA1 sm=row ts=0.60/0.40 ngl=0 fa=1 ub=256 ctk=q8_0 ctv=q4_0 ncmoe=4 t=8"
                   " fitt=1024 fitc=0 env=CUDA_VISIBLE_DEVICES=0 GGML_VK_PREFER_HOST_MEMORY=1");
    lvd_params_init(&p); /* a serving arm (lvd serve): its slots, written only then */
    p.parallel = 4;
    round_trip(&p, "dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- np=4 env=");
    lvd_params_init(&p); /* ik_llama.cpp's knobs, each written only when passed; 0 is a value */
    p.fused_moe = 0;
    round_trip(&p, "dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=0 env=");
    p.repack = 1;
    round_trip(&p, "dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=0 rtr=1 env=");
}

/* A single-device arm's key as stored before split or fit arms existed;
 * the environment's words come back sorted, as the key holds them. */
static void test_stored_keys(void **state)
{
    (void)state;
    lvd_params p;
    lvd_err err = {{0}};
    const char *key = "dev=Vulkan0 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- env=A=1 B=2";
    assert_int_equal(benchio_arm_key_parse(key, &p, &err), 0);
    assert_string_equal(p.device, "Vulkan0");
    assert_int_equal(p.ngl, 99);
    assert_int_equal(p.fa, 1);
    assert_int_equal(p.ubatch, 0);
    assert_int_equal(p.fit_target, 0);
    assert_string_equal(p.split_mode, "");
    assert_string_equal(p.env, "A=1 B=2");
    char back[320];
    snprintf(p.env, sizeof p.env, "B=2 A=1");
    assert_int_equal(benchio_arm_key(&p, back, sizeof back), 0);
    assert_string_equal(back, key);
    /* fitc without fitt has no field: it reads back as 0 */
    lvd_params_init(&p);
    p.fit_ctx = 4096;
    assert_int_equal(benchio_arm_key(&p, back, sizeof back), 0);
    assert_null(strstr(back, "fitc"));
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "dev=- ngl=- fa=-",                          /* no env= */
        "dev=- colour=red env=",                     /* no such field */
        "dev=- ngl=many env=",                       /* not a number */
        "dev=- ngl=99999999999 env=",                /* out of range */
        "dev=- fitc=- env=",                         /* fitc is always a number */
        "dev=- ngl env=",                            /* not NAME=VALUE */
        "dev=- ctk=a_cache_type_name_far_too_long env=",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lvd_params p;
        lvd_err err = {{0}};
        if (benchio_arm_key_parse(bad[i], &p, &err) == 0)
            fail_msg("'%s' was read", bad[i]);
        assert_non_null(strstr(err.msg, "arm key"));
    }
    char key[16];
    lvd_params p;
    lvd_params_init(&p);
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), -1); /* too small a buffer */
    assert_string_equal(key, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field),
        cmocka_unit_test(test_stored_keys),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
