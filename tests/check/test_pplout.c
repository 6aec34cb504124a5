/* test_pplout.c: check/pplout.h against every llama-perplexity capture in
 * tests/fixtures/llama.cpp (cpu-build-b9749/perplexity*, the same runs of
 * cpu-build-b4547/ and cpu-build-b10587/, gpu-h200/ppl-*,
 * gpu-h200/vulkan-build-no-driver/ppl), and against the broken
 * outputs a crashing or lying engine produces. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/pplout.h"

/* Parses the capture REL.{out_ext,err_ext}; fails the test on an error. */
static void parse_capture(const char *rel_out, const char *rel_err, check_ppl *res)
{
    char *po = tu_fixture(rel_out), *pe = tu_fixture(rel_err);
    char *out = tu_read(po, NULL), *errt = tu_read(pe, NULL);
    lvd_err err = {0};
    int rc = check_ppl_parse(out, errt, rel_out, res, &err);
    free(out);
    free(errt);
    free(po);
    free(pe);
    if (rc)
        fail_msg("%s", err.msg);
}

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.10g, want %.10g (+- %g)", got, want, tol);
}

#define CPU "llama.cpp/cpu-build-b9749/"
#define H200 "llama.cpp/gpu-h200/"

static void test_cpu_plain(void **state)
{
    (void)state;
    check_ppl r;
    parse_capture(CPU "perplexity.stdout", CPU "perplexity.stderr", &r);
    assert_int_equal(r.n_chunks, 4);
    assert_near(r.chunks[0], 32495.6345, 1e-9);
    assert_near(r.chunks[1], 32498.5601, 1e-9);
    assert_near(r.chunks[3], 32813.2123, 1e-9);
    assert_true(r.has_final);
    assert_near(r.ppl, 32813.2123, 1e-9);
    assert_near(r.ppl_err, 800.98171, 1e-9);
    assert_false(r.has_kld);
    assert_true(isnan(r.mean_kld));
    assert_false(r.gpu_ignored);
    assert_near(check_ppl_value(&r), 32813.2123, 1e-9);
    check_ppl_free(&r);
}

static void test_cpu_kld_base(void **state)
{
    (void)state;
    check_ppl r;
    parse_capture(CPU "perplexity-kld-base.stdout", CPU "perplexity-kld-base.stderr", &r);
    assert_int_equal(r.n_chunks, 4);
    assert_near(r.chunks[0], 32495.6315, 1e-9);
    assert_true(r.has_final);
    assert_near(r.ppl, 32813.2123, 1e-9);
    assert_near(r.ppl_err, 800.98189, 1e-9);
    assert_false(r.has_kld);
    check_ppl_free(&r);
}

/* The --kl-divergence run: no chunk list and no final estimate, the
 * statistics block on stdout with -nan uncertainties. */
static void test_cpu_kld(void **state)
{
    (void)state;
    check_ppl r;
    parse_capture(CPU "perplexity-kld.stdout", CPU "perplexity-kld.stderr", &r);
    assert_true(r.has_kld);
    assert_false(r.has_final);
    assert_near(r.ppl_q, 32813.212282, 1e-9);
    assert_near(r.ppl_q_err, 800.981551, 1e-9);
    assert_near(r.ppl_base, 32813.225197, 1e-9);
    assert_near(r.ppl_ratio, 1.0, 1e-12);
    assert_true(isnan(r.ppl_ratio_err)); /* printed as -nan */
    assert_near(r.mean_kld, 0.0, 1e-12);
    assert_near(r.mean_kld_err, 0.0, 1e-12);
    assert_near(r.same_top_p, 100.0, 1e-12);
    assert_near(r.same_top_p_err, 0.0, 1e-12);
    assert_near(check_ppl_value(&r), 32813.212282, 1e-9);
    assert_false(r.gpu_ignored);
    check_ppl_free(&r);
}

/* The same base and --kl-divergence runs of the small llama on the CPU builds
 * of the other eras: b4547 (Jan 2025) and the SemVer build b10587. */
static void test_kld_eras(void **state)
{
    (void)state;
    static const struct {
        const char *dir;
        double chunk1, ppl, ppl_err, ppl_q, ppl_q_err, ppl_base;
    } eras[] = {
        {"llama.cpp/cpu-build-b4547/", 32514.2625, 32831.2483, 801.44470, 32831.248282, 801.444944, 32831.256482},
        {"llama.cpp/cpu-build-b10587/", 32495.6315, 32813.2123, 800.98189, 32813.212282, 800.981551, 32813.225197},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(eras); i++) {
        char *o = lvd_xasprintf("%sperplexity-kld-base.stdout", eras[i].dir);
        char *e = lvd_xasprintf("%sperplexity-kld-base.stderr", eras[i].dir);
        check_ppl r;
        parse_capture(o, e, &r);
        assert_int_equal(r.n_chunks, 4);
        assert_near(r.chunks[0], eras[i].chunk1, 1e-9);
        assert_true(r.has_final);
        assert_near(r.ppl, eras[i].ppl, 1e-9);
        assert_near(r.ppl_err, eras[i].ppl_err, 1e-9);
        assert_false(r.has_kld);
        check_ppl_free(&r);
        free(o);
        free(e);
        o = lvd_xasprintf("%sperplexity-kld.stdout", eras[i].dir);
        e = lvd_xasprintf("%sperplexity-kld.stderr", eras[i].dir);
        parse_capture(o, e, &r);
        assert_true(r.has_kld);
        assert_false(r.has_final);
        assert_near(r.ppl_q, eras[i].ppl_q, 1e-9);
        assert_near(r.ppl_q_err, eras[i].ppl_q_err, 1e-9);
        assert_near(r.ppl_base, eras[i].ppl_base, 1e-9);
        assert_near(r.ppl_ratio, 1.0, 1e-12);
        assert_true(isnan(r.ppl_ratio_err));
        assert_near(r.mean_kld, 0.0, 1e-12);
        assert_near(r.same_top_p, 100.0, 1e-12);
        assert_near(r.same_top_p_err, 0.0, 1e-12);
        assert_false(r.gpu_ignored);
        check_ppl_free(&r);
        free(o);
        free(e);
    }
}

/* The H200 captures: CPU, CUDA and Vulkan on the same model and text. The
 * ratios are docs/evidence.md's: CUDA 1.0006, Vulkan 1.0013. */
static void test_h200(void **state)
{
    (void)state;
    check_ppl cpu, cuda, vk, nodrv;
    parse_capture(H200 "ppl-cpu.out", H200 "ppl-cpu.err", &cpu);
    parse_capture(H200 "ppl-cuda.out", H200 "ppl-cuda.err", &cuda);
    parse_capture(H200 "ppl-vulkan.out", H200 "ppl-vulkan.err", &vk);
    parse_capture(H200 "vulkan-build-no-driver/ppl.out", H200 "vulkan-build-no-driver/ppl.err", &nodrv);
    assert_near(check_ppl_value(&cpu), 51588.7878, 1e-9);
    assert_near(check_ppl_value(&cuda), 51619.5225, 1e-9);
    assert_near(check_ppl_value(&vk), 51655.2627, 1e-9);
    assert_near(cuda.ppl_err, 1883.40839, 1e-9);
    assert_int_equal(cuda.n_chunks, 4);
    assert_near(cuda.chunks[0], 56026.8961, 1e-9);
    assert_near(check_ppl_value(&cuda) / check_ppl_value(&cpu), 1.0006, 5e-5);
    assert_near(check_ppl_value(&vk) / check_ppl_value(&cpu), 1.0013, 5e-5);
    /* the Vulkan build that could not reach the driver ran on the CPU: same
     * perplexity to the last digit, and it said so on stderr */
    assert_near(check_ppl_value(&nodrv), check_ppl_value(&cpu), 0.0);
    assert_true(nodrv.gpu_ignored);
    assert_false(cuda.gpu_ignored || vk.gpu_ignored);
    /* the CPU build was given -ngl 99 too, and warned the same way */
    assert_true(cpu.gpu_ignored);
    check_ppl_free(&cpu);
    check_ppl_free(&cuda);
    check_ppl_free(&vk);
    check_ppl_free(&nodrv);
}

static void test_broken(void **state)
{
    (void)state;
    check_ppl r;
    lvd_err err = {0};
    /* nothing at all: an engine that crashed at load */
    char *errt = tu_fixture(CPU "bench-missing-model.stderr");
    char *text = tu_read(errt, NULL);
    assert_int_equal(check_ppl_parse("", text, "crashed", &r, &err), -1);
    assert_non_null(strstr(err.msg, "crashed: no perplexity"));
    free(text);
    free(errt);
    assert_int_equal(check_ppl_parse(NULL, NULL, "none", &r, &err), -1);
    assert_int_equal(check_ppl_parse("garbage \x01\x02 [x]1,", "", "garbage", &r, &err), -1);

    /* the statistics header without its Mean KLD line: truncated */
    char *po = tu_fixture(CPU "perplexity-kld.stdout");
    char *out = tu_read(po, NULL);
    char *cut = strstr(out, "Mean    KLD");
    assert_non_null(cut);
    *cut = '\0';
    assert_int_equal(check_ppl_parse(out, "", "truncated", &r, &err), -1);
    assert_non_null(strstr(err.msg, "truncated: KL divergence statistics without a Mean KLD"));
    free(out);
    free(po);

    /* running estimates that stop half-way still parse (a crash mid-run is
     * the caller's exit-status problem); a gap ends the sequence */
    assert_int_equal(check_ppl_parse("[1]10.5,[2]11.25,[4]99,", NULL, "gap", &r, &err), 0);
    assert_int_equal(r.n_chunks, 2);
    assert_near(check_ppl_value(&r), 11.25, 0);
    assert_false(r.has_final);
    check_ppl_free(&r);

    /* a device that produced NaN logits */
    const char *nan_kld = "====== KL divergence statistics ======\n"
                          "Mean    KLD:        nan \xc2\xb1        nan\n"
                          "Same top p:  1.000 \xc2\xb1 0.500 %\n";
    assert_int_equal(check_ppl_parse(nan_kld, NULL, "nan", &r, &err), 0);
    assert_true(r.has_kld);
    assert_true(isnan(r.mean_kld));
    assert_near(r.same_top_p, 1.0, 0);
    check_ppl_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_plain),
        cmocka_unit_test(test_cpu_kld_base),
        cmocka_unit_test(test_cpu_kld),
        cmocka_unit_test(test_kld_eras),
        cmocka_unit_test(test_h200),
        cmocka_unit_test(test_broken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
