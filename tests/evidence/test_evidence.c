/* test_evidence.c: the evidence page without a store. A synthetic model with
 * known truth (CUDA ~1000 t/s, Vulkan ~700, CPU ~54, a faster arm that
 * failed its check, a crashed arm, one that ignored the GPU flags) goes
 * through ev_model_compute; the markdown table must name the winner, the
 * deltas with their CIs and every excluded arm with why; the SVG must be
 * well-formed XML with the bars and whiskers where the figures say; the same
 * input must give the same bytes; history keeps the last N dates; the fixed
 * formats; and writing is all or none. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "evidence/format.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "evidence/sessions.h"
#include "select/armset.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA "973978067daa0bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* --- a synthetic model ------------------------------------------------------ */

static double *noisy(uint64_t seed, double mean, size_t n)
{
    stats_rng r;
    stats_rng_seed(&r, seed);
    double *v = lvd_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = mean * (1.0 + 0.005 * stats_rng_normal(&r));
    return v;
}

static void add_series(sel_arm *a, const char *test, int np, int ng, double mean, size_t n, size_t warm)
{
    a->series = lvd_xrealloc(a->series, (a->n_series + 1) * sizeof *a->series);
    sel_series *s = &a->series[a->n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->test, sizeof s->test, "%s", test);
    s->n_prompt = np;
    s->n_gen = ng;
    s->ts = n ? noisy((uint64_t)(mean * 10) + a->engine_id, mean, n) : NULL;
    s->n = n;
    s->n_warmup = warm;
}

static void make_arm(sel_arm *a, int64_t engine, const char *device, int fa, const char *env, const char *status,
                     const char *reason)
{
    memset(a, 0, sizeof *a);
    strcpy(a->artifact, SHA);
    a->engine_id = engine;
    lvd_params_init(&a->params);
    snprintf(a->params.device, sizeof a->params.device, "%s", device);
    a->params.ngl = device[0] ? 99 : -1;
    a->params.fa = fa;
    a->params.threads = 16;
    snprintf(a->params.env, sizeof a->params.env, "%s", env);
    a->arm_key = lvd_xasprintf("dev=%s fa=%d env=%s", device, fa, env);
    a->session = lvd_xstrdup("night-1");
    snprintf(a->status, sizeof a->status, "%s", status);
    a->reason = reason ? lvd_xstrdup(reason) : NULL;
    a->n_runs = 1;
    a->n_failed = strcmp(status, "ok") != 0;
}

typedef struct synth {
    sel_armset set;
    ev_arm_in in[7];
    ev_model m;
} synth;

/* Arms in a deliberately unsorted order:
 *   0 vulkan Vulkan0 fa 1    tg 700  pp 17000
 *   1 cpu                    tg32 54 pp128 430 (base check)
 *   2 cuda CUDA0 fa 1        tg 1000 pp 80000 (passed check; the verdict)
 *   3 rocm ROCm0             tg 1200 (fastest, but failed its check)
 *   4 vulkan Vulkan0 fa 0    crashed
 *   5 vulkan Vulkan0 fa 1 with an environment knob: ignored the GPU flags
 *   6 cuda CUDA0 fa 0        tg 810 pp 60000 */
static void synth_build(synth *x)
{
    memset(x, 0, sizeof *x);
    x->set.n = 7;
    x->set.v = lvd_xcalloc(7, sizeof *x->set.v);
    sel_arm *v = x->set.v;
    make_arm(&v[0], 3, "Vulkan0", 1, "", "ok", NULL);
    add_series(&v[0], "pp512", 512, 0, 17000, 8, 1);
    add_series(&v[0], "tg128", 0, 128, 700, 8, 0);
    make_arm(&v[1], 1, "", -1, "", "ok", NULL);
    add_series(&v[1], "pp128", 128, 0, 430, 6, 0);
    add_series(&v[1], "tg32", 0, 32, 54, 6, 0);
    make_arm(&v[2], 2, "CUDA0", 1, "", "ok", NULL);
    add_series(&v[2], "pp512", 512, 0, 80000, 8, 1);
    add_series(&v[2], "tg128", 0, 128, 1000, 8, 0);
    make_arm(&v[3], 4, "ROCm0", 1, "", "ok", NULL);
    add_series(&v[3], "pp512", 512, 0, 90000, 8, 0);
    add_series(&v[3], "tg128", 0, 128, 1200, 8, 0);
    make_arm(&v[4], 3, "Vulkan0", 0, "", "failed", "exit 139 (SIGSEGV)");
    make_arm(&v[5], 3, "Vulkan0", 1, "GGML_VK_PREFER_HOST_MEMORY=1", "gpu_ignored", NULL);
    strcpy(v[5].backends, "CPU");
    make_arm(&v[6], 2, "CUDA0", 0, "", "ok", NULL);
    add_series(&v[6], "pp512", 512, 0, 60000, 8, 1);
    add_series(&v[6], "tg128", 0, 128, 810, 8, 0);
    const char *backend[7] = {"vulkan", "cpu", "cuda", "rocm", "vulkan", "vulkan", "cuda"};
    const char *engine[7] = {"b9749-vulkan", "b9749-cpu", "b9749-cuda", "b9749-rocm",
                             "b9749-vulkan", "b9749-vulkan", "b9749-cuda"};
    for (size_t i = 0; i < 7; i++) {
        x->in[i].arm = &v[i];
        x->in[i].backend = backend[i];
        x->in[i].engine = engine[i];
        x->in[i].build = "b9749";
    }
    x->in[1].check_status = "base";
    x->in[2].check_status = "pass";
    x->in[2].check_text = "PPL ratio 1.0006, KLD 0.0012";
    x->in[2].is_verdict = 1;
    x->in[3].check_status = "fail";
    x->in[3].check_text = "PPL ratio 1.3100, KLD 0.5200";
    snprintf(x->m.sha256, sizeof x->m.sha256, "%s", SHA);
    x->m.name = lvd_xstrdup("dense-1b-f16.gguf");
    x->m.desc = lvd_xstrdup("llama 1B F16");
    lvd_err err = {0};
    if (ev_model_compute(&x->m, x->in, 7, "tg", &err))
        fail_msg("%s", err.msg);
    x->m.has_verdict = 1;
    x->m.verdict_arm = lvd_xstrdup(x->m.arms[0].label);
    x->m.verdict_rule = lvd_xstrdup("win");
    x->m.verdict_explain = lvd_xstrdup("cuda | fa 1 wins on tg128 <against> every other arm");
    strcpy(x->m.verdict_date, "2026-11-30 15:02 UTC");
    x->m.placement = lvd_xstrdup("fully resident on CUDA0 (142629 MiB free, context 4096): fits");
    x->m.launch = lvd_xstrdup("/opt/llama/llama-server -m 'my model.gguf' -ngl 99 -fa on");
}

static void synth_free(synth *x)
{
    ev_model_free(&x->m);
    sel_armset_free(&x->set);
}

static const ev_arm *arm_by_label(const ev_model *m, const char *label)
{
    for (size_t i = 0; i < m->n_arms; i++)
        if (!strcmp(m->arms[i].label, label))
            return &m->arms[i];
    fail_msg("no arm labelled '%s'", label);
    return NULL;
}

/* --- the model ------------------------------------------------------------- */

static void test_model_ranking_and_deltas(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    const ev_model *m = &x.m;
    assert_string_equal(m->objective, "tg");
    assert_string_equal(m->tg_test, "tg128");
    assert_string_equal(m->pp_test, "pp512");
    /* parameters every arm shares are said once; labels carry the rest */
    assert_string_equal(m->common, "t 16");
    assert_int_equal(m->n_arms, 7);
    /* ranked: cuda fa1, cuda fa0, vulkan fa1, cpu; then the three excluded */
    assert_string_equal(m->arms[0].label, "cuda · CUDA0, ngl 99, fa 1");
    assert_int_equal(m->arms[0].rank, 1);
    assert_true(m->arms[0].is_verdict);
    assert_string_equal(m->arms[1].label, "cuda · CUDA0, ngl 99, fa 0");
    assert_string_equal(m->arms[2].label, "vulkan · Vulkan0, ngl 99, fa 1");
    assert_string_equal(m->arms[3].label, "cpu");
    assert_int_equal(m->arms[3].rank, 4);
    assert_true(m->arms[3].is_ref);
    for (size_t i = 4; i < 7; i++)
        assert_int_equal(m->arms[i].rank, 0);
    /* the fastest arm failed its check: excluded, never ranked */
    const ev_arm *rocm = arm_by_label(m, "rocm · ROCm0, ngl 99, fa 1");
    assert_string_equal(rocm->status, "excluded");
    assert_non_null(strstr(rocm->why, "failed its correctness check: fail (PPL ratio 1.3100, KLD 0.5200)"));
    const ev_arm *crash = arm_by_label(m, "vulkan · Vulkan0, ngl 99, fa 0");
    assert_string_equal(crash->status, "failed");
    assert_non_null(strstr(crash->why, "exit 139 (SIGSEGV)"));
    const ev_arm *ign = arm_by_label(m, "vulkan · Vulkan0, ngl 99, fa 1, GGML_VK_PREFER_HOST_MEMORY=1");
    assert_string_equal(ign->status, "gpu_ignored");
    assert_string_equal(ign->why, "GPU flags ignored: llama-bench ran on the CPU");
    assert_false(ign->tg.has);

    /* the leader against the best other backend (vulkan): ~1000/700 */
    const ev_arm *lead = &m->arms[0];
    assert_true(lead->tg_vs_alt.has);
    assert_int_equal(lead->tg_vs_alt.other, 2);
    assert_true(fabs(lead->tg_vs_alt.ratio - 1000.0 / 700.0) < 0.02);
    assert_true(lead->tg_vs_alt.lo <= lead->tg_vs_alt.ratio && lead->tg_vs_alt.ratio <= lead->tg_vs_alt.hi);
    /* ... and against the arm ranked second (cuda fa 0): ~1000/810 */
    assert_true(m->second_tg.has);
    assert_int_equal(m->second_tg.other, 1);
    assert_true(fabs(m->second_tg.ratio - 1000.0 / 810.0) < 0.02);
    /* vulkan's other backend is the leader */
    assert_int_equal(m->arms[2].tg_vs_alt.other, 0);
    assert_true(m->arms[2].tg_vs_alt.ratio < 0.75);
    /* against the CPU: tg128 against tg32, the CPU's own test */
    assert_string_equal(m->arms[3].tg.test, "tg32");
    assert_true(fabs(lead->tg_vs_cpu.ratio - 1000.0 / 54.0) < 0.5);
    assert_false(m->arms[3].tg_vs_cpu.has);
    /* figures: median inside its CI; warm-up counted, not kept */
    assert_true(lead->tg.lo <= lead->tg.median && lead->tg.median <= lead->tg.hi);
    assert_int_equal(lead->pp.n, 8);
    assert_int_equal(lead->pp.n_warmup, 1);
    assert_string_equal(m->state, "win");
    synth_free(&x);
}

static void test_model_objective_pp_and_refusal(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    ev_model m = {0};
    lvd_err err = {0};
    assert_int_equal(ev_model_compute(&m, x.in, 7, "pp", &err), 0);
    assert_string_equal(m.objective, "pp");
    assert_string_equal(m.arms[0].label, "cuda · CUDA0, ngl 99, fa 1");
    assert_int_equal(m.arms[0].pp_vs_alt.other, 2); /* vulkan fa 1 */
    ev_model_free(&m);
    assert_int_equal(ev_model_compute(&m, x.in, 7, "fast", &err), -1);
    ev_model_free(&m);
    synth_free(&x);
}

/* --- markdown ---------------------------------------------------------------- */

static char *render_page(const ev_model *m, int with_pin)
{
    ev_page p = {0};
    p.title = "Backend selection evidence";
    p.host = "h200";
    strcpy(p.first_date, "2026-11-30");
    strcpy(p.last_date, "2026-11-30");
    p.models = (ev_model *)m;
    p.n_models = 1;
    ev_pin_entry hist[2] = {
        {.date = "2026-12-02 03:10 UTC", .pinned = "b100", .candidate = "b101", .decision = "promote",
         .rule = "promote b101: no regression in 1 comparisons", .applied = 1},
        {.date = "2026-12-01 03:10 UTC", .pinned = "b100", .candidate = "b101", .decision = "keep",
         .rule = "first night: needs a second consecutive night"},
    };
    sel_pin_row row = {.artifact = SHA, .backend = "vulkan", .params = "Vulkan0, ngl 99", .test = "tg128",
                       .pinned_median = 700, .candidate_median = 756, .pinned_n = 16, .candidate_n = 16,
                       .ratio = 1.08, .ci_lo = 1.07, .ci_hi = 1.09, .p = 0.00001, .win = 1, .no_regression = 1, .verdict = "win"};
    char *issue[] = {"check cuda CUDA0 (model 973978067daa): fail: PPL ratio 1.3100", NULL};
    if (with_pin) {
        p.pin.hist = hist;
        p.pin.n_hist = 2;
        p.pin.rows = &row;
        p.pin.n_rows = 1;
        p.pin.issues = issue;
        p.pin.n_issues = 1;
    }
    lvd_sb sb = {0};
    ev_render_markdown(&p, "docs/evidence/backend-selection.md", &sb);
    return lvd_sb_detach(&sb);
}

/* The line of text holding needle (fails when none). Caller frees. */
static char *line_with(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at)
        fail_msg("no line with '%s' in:\n%s", needle, text);
    const char *b = at, *e = strchr(at, '\n');
    while (b > text && b[-1] != '\n')
        b--;
    return lvd_xstrndup(b, e ? (size_t)(e - b) : strlen(b));
}

static void expect_in(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("'%s' not in:\n%s", needle, text);
}

static void test_markdown_table(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    char *md = render_page(&x.m, 1);
    /* the summary names the winner and its margin over the runner-up backend */
    char *sum = line_with(md, "](#dense-1b-f16gguf-973978067daa)");
    expect_in(sum, "| cuda · CUDA0, ngl 99, fa 1 | `win` | cuda · CUDA0, ngl 99, fa 1 | +4");
    free(sum);
    /* the leader's row: rank with the verdict star, medians with CI, deltas */
    char *row = line_with(md, "| 1 ★ | cuda · CUDA0, ngl 99, fa 1 | b9749-cuda (b9749) | ");
    lvd_sb want = {0};
    const ev_arm *lead = &x.m.arms[0];
    ev_fmt_ts_ci(&want, lead->tg.median, lead->tg.lo, lead->tg.hi);
    expect_in(row, lvd_sb_str(&want));
    lvd_sb_reset(&want);
    ev_fmt_delta(&want, lead->tg_vs_alt.ratio, lead->tg_vs_alt.lo, lead->tg_vs_alt.hi);
    lvd_sb_adds(&want, " vs #3");
    expect_in(row, lvd_sb_str(&want));
    expect_in(row, "+4"); /* about +43 % */
    expect_in(row, "| ×18."); /* past 2x a factor, not a percentage */
    expect_in(row, "| pp 8 (+1), tg 8 (+0) | pass (PPL ratio 1.0006, KLD 0.0012) |");
    free(row);
    /* the CPU is the reference, with its own tests named */
    row = line_with(md, "| 4 | cpu |");
    expect_in(row, "(tg32)");
    expect_in(row, "(pp128)");
    expect_in(row, "| reference | reference |");
    expect_in(row, "base (CPU reference)");
    free(row);
    /* excluded and failed arms: in the table unranked, and listed with why */
    row = line_with(md, "| excluded | rocm · ROCm0, ngl 99, fa 1 |");
    expect_in(row, "fail (PPL ratio 1.3100, KLD 0.5200)");
    free(row);
    expect_in(md, "| failed | vulkan · Vulkan0, ngl 99, fa 0 |");
    expect_in(md, "| GPU ignored | vulkan · Vulkan0, ngl 99, fa 1, GGML_VK_PREFER_HOST_MEMORY=1 |");
    expect_in(md, "- vulkan · Vulkan0, ngl 99, fa 0 (b9749-vulkan): failed: exit 139 (SIGSEGV)\n");
    expect_in(md, "- rocm · ROCm0, ngl 99, fa 1 (b9749-rocm): failed its correctness check");
    /* verdict, placement, launch; the explanation escaped */
    expect_in(md, "**Verdict:** cuda · CUDA0, ngl 99, fa 1 (rule `win`, objective tg, decided 2026-11-30 15:02 UTC).");
    expect_in(md, "> cuda \\| fa 1 wins on tg128 &lt;against&gt; every other arm");
    expect_in(md, "- Placement: fully resident on CUDA0");
    expect_in(md, "  ```sh\n  /opt/llama/llama-server -m 'my model.gguf' -ngl 99 -fa on\n  ```");
    expect_in(md, "Every arm ran with: t 16.");
    /* charts beside the page, by relative name */
    expect_in(md, "![pp512 t/s per arm, median with 95 % CI](backend-selection-973978067daa-pp.svg)");
    expect_in(md, "](backend-selection-973978067daa-tg.svg)");
    assert_null(strstr(md, "tg-history.svg")); /* no dated point, no history chart */
    /* the pin section */
    expect_in(md, "Newest decision (2026-12-02 03:10 UTC): **promote** — pinned b100, candidate b101; the pin "
                  "file was rewritten.");
    row = line_with(md, "| dense-1b-f16.gguf | vulkan | Vulkan0, ngl 99 | tg128 |");
    expect_in(row, "| 700.0 (n 16) | 756.0 (n 16) | +8.0 % [+7.0, +9.0] | < 0.0001 | win |");
    free(row);
    expect_in(md, "- check cuda CUDA0 (model 973978067daa): fail: PPL ratio 1.3100\n");
    expect_in(md, "| 2026-12-01 03:10 UTC | b100 | b101 | keep | first night: needs a second consecutive night |");
    lvd_sb_free(&want);
    free(md);
    md = render_page(&x.m, 0);
    expect_in(md, "No pin decision recorded in this store");
    free(md);
    synth_free(&x);
}

static void test_markdown_no_verdict(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    x.m.has_verdict = 0;
    x.m.launch_of_leader = 1;
    free(x.m.placement);
    x.m.placement = NULL;
    x.m.placement_unknown = lvd_xstrdup("shape not recorded (the store knows this model by its sha256 only)");
    x.m.launch_note = lvd_xstrdup("MODEL.gguf stands for the model 973978067daa: its path is not in the store");
    char *md = render_page(&x.m, 0);
    expect_in(md, "**Verdict:** none recorded for this model on `h200`");
    expect_in(md, "- Placement unknown for the measured leader (no verdict: `lvd select` decides): shape not"
                  " recorded (the store knows this model by its sha256 only).\n");
    expect_in(md, "  ```\n\n  MODEL.gguf stands for the model 973978067daa: its path is not in the store.\n");
    expect_in(md, "- Launch line of the measured leader (no verdict: `lvd select` decides):");
    expect_in(md, "| model | verdict | rule | measured leader | vs runner-up backend |");
    expect_in(md, "| none recorded | – | cuda · CUDA0, ngl 99, fa 1 | +4");
    free(md);
    synth_free(&x);
}

/* --- SVG ------------------------------------------------------------------------ */

/* A small well-formedness check: declaration, one root <svg>, every element
 * closed in order, attributes quoted, entities known, no raw '<' or '&' in
 * text. Returns the number of elements; fails the test otherwise. */
static size_t xml_check(const char *x)
{
    const char *p = x;
    if (!lvd_starts_with(p, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        fail_msg("no XML declaration");
    p = strchr(p, '\n') + 1;
    char stack[32][32];
    size_t depth = 0, elements = 0, roots = 0;
    while (*p) {
        if (*p == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            int ok = 0;
            for (size_t i = 0; i < LVD_ARRAY_LEN(ents); i++)
                ok |= lvd_starts_with(p, ents[i]);
            if (!ok)
                fail_msg("bad entity at '%.20s'", p);
            p++;
            continue;
        }
        if (*p != '<') {
            if (!depth && !strchr(" \n", *p))
                fail_msg("text outside the root: '%.20s'", p);
            p++;
            continue;
        }
        if (p[1] == '/') {
            size_t n = strcspn(p + 2, ">");
            if (!depth || strncmp(stack[depth - 1], p + 2, n) || strlen(stack[depth - 1]) != n)
                fail_msg("mismatched close '%.*s'", (int)n, p + 2);
            depth--;
            p += n + 3;
            continue;
        }
        size_t n = strcspn(p + 1, " />");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)n, p + 1);
        if (!depth && roots++)
            fail_msg("second root element <%s>", name);
        if (!depth && strcmp(name, "svg"))
            fail_msg("root is <%s>", name);
        p += n + 1;
        while (*p && *p != '>' && !(p[0] == '/' && p[1] == '>')) {
            if (*p == '<')
                fail_msg("'<' inside the tag <%s>", name);
            if (*p == '=') {
                if (p[1] != '"')
                    fail_msg("unquoted attribute in <%s>", name);
                const char *end = strchr(p + 2, '"');
                if (!end)
                    fail_msg("unterminated attribute in <%s>", name);
                for (const char *c = p + 2; c < end; c++)
                    if (*c == '<')
                        fail_msg("'<' in an attribute of <%s>", name);
                p = end + 1;
                continue;
            }
            p++;
        }
        if (!*p)
            fail_msg("unterminated tag <%s>", name);
        elements++;
        if (*p == '/') {
            p += 2;
        } else {
            assert_true(depth < 32);
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
            p++;
        }
    }
    if (depth)
        fail_msg("<%s> never closed", stack[depth - 1]);
    assert_int_equal(roots, 1);
    return elements;
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The x coordinate after `attr="` in the first element holding needle. */
static double attr_after(const char *text, const char *needle, const char *attr)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    const char *a = strstr(at, attr);
    assert_non_null(a);
    return strtod(a + strlen(attr), NULL);
}

static void test_svg_bars(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    /* a label that must be escaped */
    free(x.m.arms[3].label);
    x.m.arms[3].label = lvd_xstrdup("cpu <ref> & \"base\"");
    lvd_sb sb = {0};
    ev_svg_bars(&x.m, 1, &sb);
    const char *svg = lvd_sb_str(&sb);
    size_t elements = xml_check(svg);
    assert_true(elements > 20);
    expect_in(svg, "<title>tg128 t/s per arm (median, 95 % CI): dense-1b-f16.gguf</title>");
    expect_in(svg, "cpu &lt;ref&gt; &amp; &quot;base&quot;");
    /* a bar per arm with figures (cuda x2, vulkan, cpu, the excluded rocm): 5, plus the background */
    assert_int_equal(count(svg, "<rect "), 6);
    assert_int_equal(count(svg, "fill=\"#009E73\""), 2); /* cuda */
    assert_int_equal(count(svg, "fill-opacity=\"0.35\""), 1); /* the excluded rocm arm */
    /* three whisker lines per bar */
    assert_int_equal(count(svg, "stroke=\"#222222\""), 15);
    /* no bar for the crashed and the GPU-ignoring arms: said in words */
    expect_in(svg, ">failed</text>");
    expect_in(svg, ">GPU flags ignored</text>");
    /* bar lengths are proportional to the medians: cuda fa1 / vulkan ~ 1000 / 700 */
    const char *first = strstr(svg, "<rect x=");
    first = strstr(first + 1, "<rect x="); /* skip the background */
    double wc = attr_after(first, "<rect", "width=\"");
    const char *vk = strstr(svg, "fill=\"#D55E00\"");
    while (vk > svg && strncmp(vk, "<rect", 5))
        vk--;
    double wv = attr_after(vk, "<rect", "width=\"");
    assert_true(fabs(wc / wv - x.m.arms[0].tg.median / x.m.arms[2].tg.median) < 0.01);
    lvd_sb_free(&sb);
    synth_free(&x);
}

static void test_svg_history_and_determinism(void **state)
{
    (void)state;
    synth x;
    synth_build(&x);
    /* three nights for the leader, one for vulkan */
    ev_model *m = &x.m;
    m->dates = lvd_xcalloc(4, sizeof *m->dates);
    m->dates[0] = lvd_xstrdup("2026-11-28");
    m->dates[1] = lvd_xstrdup("2026-11-29");
    m->dates[2] = lvd_xstrdup("2026-11-30");
    m->n_dates = 3;
    m->arms[0].hist = lvd_xcalloc(3, sizeof *m->arms[0].hist);
    m->arms[0].n_hist = 3;
    for (int k = 0; k < 3; k++) {
        snprintf(m->arms[0].hist[k].date, 11, "%s", m->dates[k]);
        m->arms[0].hist[k].median = 990 + k;
    }
    m->arms[2].hist = lvd_xcalloc(1, sizeof *m->arms[2].hist);
    m->arms[2].n_hist = 1;
    strcpy(m->arms[2].hist[0].date, "2026-11-30");
    m->arms[2].hist[0].median = 700;
    lvd_sb a = {0}, b = {0};
    ev_svg_history(m, &a);
    xml_check(lvd_sb_str(&a));
    assert_int_equal(count(lvd_sb_str(&a), "<polyline "), 1);
    assert_int_equal(count(lvd_sb_str(&a), "<circle "), 4);
    expect_in(lvd_sb_str(&a), ">2026-11-28</text>");
    expect_in(lvd_sb_str(&a), "cuda · CUDA0, ngl 99, fa 1: 992.0 on 2026-11-30</text>");
    /* the last date label, centred on the plot's right end, fits in the chart
     * (10 characters of at most 7.2 px) */
    const char *svg = lvd_sb_str(&a), *last = strstr(svg, "\">2026-11-30</text>");
    assert_non_null(last);
    while (last > svg && strncmp(last, "<text x=\"", 9))
        last--;
    double lx = 0, width = 0;
    assert_int_equal(sscanf(last, "<text x=\"%lf\"", &lx), 1);
    assert_int_equal(sscanf(strstr(svg, " width=\""), " width=\"%lf\"", &width), 1);
    assert_true(lx + 10 * 7.2 / 2 <= width);
    /* the same model gives the same bytes, for every file */
    ev_svg_history(m, &b);
    assert_string_equal(lvd_sb_str(&a), lvd_sb_str(&b));
    ev_page p = {.title = "T", .host = "h", .models = m, .n_models = 1};
    ev_file *f1, *f2;
    size_t n1, n2;
    ev_render_files(&p, "out/page.md", &f1, &n1);
    ev_render_files(&p, "out/page.md", &f2, &n2);
    assert_int_equal(n1, 4);
    assert_int_equal(n2, 4);
    for (size_t i = 0; i < n1; i++) {
        assert_string_equal(f1[i].path, f2[i].path);
        assert_int_equal(f1[i].len, f2[i].len);
        assert_memory_equal(f1[i].data, f2[i].data, f1[i].len);
    }
    assert_string_equal(f1[0].path, "out/page-973978067daa-pp.svg");
    assert_string_equal(f1[2].path, "out/page-973978067daa-tg-history.svg");
    assert_string_equal(f1[3].path, "out/page.md");
    /* a model computed twice from the same arms renders the same bytes */
    ev_model m2 = {0};
    snprintf(m2.sha256, sizeof m2.sha256, "%s", SHA);
    m2.name = lvd_xstrdup(m->name);
    lvd_err err = {0};
    assert_int_equal(ev_model_compute(&m2, x.in, 7, "tg", &err), 0);
    lvd_sb c = {0}, d = {0};
    ev_svg_bars(m, 0, &c);
    ev_svg_bars(&m2, 0, &d);
    assert_string_equal(lvd_sb_str(&c), lvd_sb_str(&d));
    ev_model_free(&m2);
    ev_files_free(f1, n1);
    ev_files_free(f2, n2);
    lvd_sb_free(&a);
    lvd_sb_free(&b);
    lvd_sb_free(&c);
    lvd_sb_free(&d);
    synth_free(&x);
}

/* --- history from runs ----------------------------------------------------------- */

static void make_run(lvd_run *r, int64_t engine, const char *arm_key, const char *session, int64_t started,
                     const char *status, double mean)
{
    memset(r, 0, sizeof *r);
    r->engine_id = engine;
    r->arm_key = (char *)arm_key;
    r->session = (char *)session;
    r->started_at = started;
    snprintf(r->status, sizeof r->status, "%s", status);
    r->n_results = 1;
    r->results = lvd_xcalloc(1, sizeof *r->results);
    strcpy(r->results[0].test, "tg128");
    r->results[0].n_gen = 128;
    r->results[0].n = 3;
    r->results[0].ts = lvd_xmalloc(3 * sizeof(double));
    r->results[0].warmup = lvd_xcalloc(3, 1);
    r->results[0].ts[0] = mean / 2; /* warm-up, flagged: never in a median */
    r->results[0].warmup[0] = 1;
    r->results[0].ts[1] = mean - 1;
    r->results[0].ts[2] = mean + 1;
}

/* The page's two arms of engines 2 and 3 (arm key "k"), tg128 each. */
static void history_model(ev_model *m)
{
    memset(m, 0, sizeof *m);
    m->n_arms = 2;
    m->arms = lvd_xcalloc(2, sizeof *m->arms);
    m->arms[0].engine_id = 2;
    m->arms[0].arm_key = lvd_xstrdup("k");
    strcpy(m->arms[0].tg.test, "tg128");
    m->arms[1].engine_id = 3;
    m->arms[1].arm_key = lvd_xstrdup("k");
    strcpy(m->arms[1].tg.test, "tg128");
}

#define HISTORY_T0 1796000000 /* 2026-11-29 */
#define HISTORY_DAY 86400

/* Seven runs over three nights, in the order a night's runs come. */
static void history_runs(lvd_run runs[7])
{
    const int64_t day = HISTORY_DAY, t0 = HISTORY_T0;
    make_run(&runs[0], 2, "k", "n1", t0, "ok", 900);
    make_run(&runs[1], 2, "k", "n2", t0 + day, "ok", 950);
    /* the same session past midnight (t0 is 00:53 UTC): pooled on the session's date */
    make_run(&runs[2], 2, "k", "n2", t0 + 2 * day - 3000, "ok", 960);
    make_run(&runs[3], 2, "k", "n3", t0 + 2 * day, "failed", 10);   /* failed: no point */
    make_run(&runs[4], 3, "k", "n3", t0 + 2 * day + 1, "ok", 700);
    make_run(&runs[5], 3, "other", "n3", t0 + 2 * day + 2, "ok", 1); /* not an arm of the page */
    make_run(&runs[6], 2, "k", "n3", t0 + 2 * day + 5, "ok", 1000);
}

static void history_runs_free(lvd_run runs[7])
{
    for (size_t i = 0; i < 7; i++) {
        runs[i].arm_key = NULL;
        runs[i].session = NULL;
        lvd_run_free(&runs[i]);
    }
}

/* The history of history_runs, the last two nights. */
static void assert_history(const ev_model *m)
{
    assert_int_equal(m->n_dates, 2); /* the last two of three dates */
    char d2[11], d3[11];
    ev_date(HISTORY_T0 + HISTORY_DAY, d2);
    ev_date(HISTORY_T0 + 2 * HISTORY_DAY, d3);
    assert_string_equal(m->dates[0], d2);
    assert_string_equal(m->dates[1], d3);
    assert_int_equal(m->arms[0].n_hist, 2);
    /* n2 pooled 949, 951, 959, 961: median 955 */
    assert_string_equal(m->arms[0].hist[0].date, d2);
    assert_true(fabs(m->arms[0].hist[0].median - 955.0) < 1e-9);
    assert_int_equal(m->arms[0].hist[0].n, 4);
    assert_true(fabs(m->arms[0].hist[1].median - 1000.0) < 1e-9);
    assert_int_equal(m->arms[1].n_hist, 1);
    assert_string_equal(m->arms[1].hist[0].date, d3);
}

static void test_history_from_runs(void **state)
{
    (void)state;
    ev_model m;
    history_model(&m);
    lvd_run runs[7];
    history_runs(runs);
    ev_history_build(&m, runs, 7, 2);
    assert_history(&m);
    history_runs_free(runs);
    ev_model_free(&m);
}

/* Runs in any order (newest first, a session's runs apart) make the same
 * history: a session is dated by its first start, a night's samples pool. */
static void test_history_any_order(void **state)
{
    (void)state;
    lvd_run runs[7], shuffled[7];
    history_runs(runs);
    static const size_t order[7] = {6, 2, 4, 0, 5, 1, 3};
    for (size_t i = 0; i < 7; i++)
        shuffled[i] = runs[order[i]];
    ev_model m;
    history_model(&m);
    ev_history_build(&m, shuffled, 7, 2);
    assert_history(&m);
    history_runs_free(runs);
    ev_model_free(&m);
}

/* Sessions numbered in the order they first appear; no session is "". */
static void test_session_ids(void **state)
{
    (void)state;
    static const char *const names[] = {"b", "a", "b", NULL, "a", "", "c"};
    static const size_t want[] = {0, 1, 0, 2, 1, 2, 3};
    lvd_run runs[7];
    memset(runs, 0, sizeof runs);
    for (size_t i = 0; i < 7; i++)
        runs[i].session = (char *)names[i];
    size_t id[7];
    assert_int_equal(ev_session_ids(runs, 7, id), 4);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(id[i], want[i]);
    assert_int_equal(ev_session_ids(runs, 0, id), 0);
}

/* --- formats ---------------------------------------------------------------------- */

static void test_formats(void **state)
{
    (void)state;
    lvd_sb sb = {0};
    ev_fmt_pct(&sb, 1.0 - 1e-9);
    assert_string_equal(lvd_sb_str(&sb), "+0.0 %");
    lvd_sb_reset(&sb);
    ev_fmt_pct(&sb, 0.9995);
    assert_string_equal(lvd_sb_str(&sb), "+0.0 %"); /* -0.05 % rounds to zero, without a sign flip */
    lvd_sb_reset(&sb);
    ev_fmt_delta(&sb, 995.6 / 703.7, 1.402, 1.424);
    assert_string_equal(lvd_sb_str(&sb), "+41.5 % [+40.2, +42.4]");
    lvd_sb_reset(&sb);
    ev_fmt_pct(&sb, 18.36);
    assert_string_equal(lvd_sb_str(&sb), "×18.4");
    lvd_sb_reset(&sb);
    /* past 2x either way: a factor, its CI in the same form */
    ev_fmt_delta(&sb, 270.02, 255.77, 287.14);
    assert_string_equal(lvd_sb_str(&sb), "×270 [×256, ×287]");
    lvd_sb_reset(&sb);
    ev_fmt_delta(&sb, 2.0, 1.93, 2.08);
    assert_string_equal(lvd_sb_str(&sb), "×2.00 [×1.93, ×2.08]");
    lvd_sb_reset(&sb);
    ev_fmt_delta(&sb, 1.99, 1.93, 2.08);
    assert_string_equal(lvd_sb_str(&sb), "+99.0 % [+93.0, +108]");
    lvd_sb_reset(&sb);
    ev_fmt_delta(&sb, 0.054, 0.051, 0.0571);
    assert_string_equal(lvd_sb_str(&sb), "×0.054 [×0.051, ×0.057]");
    lvd_sb_reset(&sb);
    ev_fmt_pct(&sb, 0.0041);
    assert_string_equal(lvd_sb_str(&sb), "×0.0041");
    lvd_sb_reset(&sb);
    ev_fmt_pct(&sb, 0.5);
    assert_string_equal(lvd_sb_str(&sb), "×0.50");
    lvd_sb_reset(&sb);
    ev_fmt_pct(&sb, 0.51);
    assert_string_equal(lvd_sb_str(&sb), "-49.0 %");
    lvd_sb_reset(&sb);
    ev_fmt_ts(&sb, 86405.6);
    lvd_sb_adds(&sb, " ");
    ev_fmt_ts(&sb, 995.64);
    lvd_sb_adds(&sb, " ");
    ev_fmt_ts(&sb, 54.2);
    lvd_sb_adds(&sb, " ");
    ev_fmt_ts(&sb, NAN);
    assert_string_equal(lvd_sb_str(&sb), "86406 995.6 54.20 –");
    lvd_sb_reset(&sb);
    ev_md_cell(&sb, "a|b\\c\n<d>");
    assert_string_equal(lvd_sb_str(&sb), "a\\|b\\\\c &lt;d&gt;");
    lvd_sb_reset(&sb);
    ev_anchor(&sb, "dense-1b-f16.gguf (973978067daa)");
    assert_string_equal(lvd_sb_str(&sb), "dense-1b-f16gguf-973978067daa");
    lvd_sb_free(&sb);
    char *n = ev_chart_name("docs/evidence/backend-selection.md", SHA, "tg");
    assert_string_equal(n, "backend-selection-973978067daa-tg.svg");
    free(n);
    n = ev_page_dir("page.md");
    assert_string_equal(n, ".");
    free(n);
}

/* --- writing ----------------------------------------------------------------------- */

static void test_write_all_or_none(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    ev_file files[3] = {
        {.path = lvd_xasprintf("%s/sub/p-a.svg", dir), .data = "<svg/>", .len = 6},
        {.path = lvd_xasprintf("%s/sub/p-b.svg", dir), .data = "<svg/>", .len = 6},
        {.path = lvd_xasprintf("%s/sub/p.md", dir), .data = "# page\n", .len = 7},
    };
    lvd_err err = {0};
    /* the second chart cannot be staged: nothing at all is written */
    char *blocker = lvd_xasprintf("%s/sub/p-b.svg.lvd-new", dir);
    char *sub = lvd_xasprintf("%s/sub", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(mkdir(blocker, 0755), 0);
    assert_int_equal(ev_write_files(files, 3, &err), -1);
    struct stat st;
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(stat(files[i].path, &st), -1);
    char *staged = lvd_xasprintf("%s.lvd-new", files[0].path);
    assert_int_equal(stat(staged, &st), -1);
    assert_int_equal(rmdir(blocker), 0);
    /* then all of them */
    assert_int_equal(ev_write_files(files, 3, &err), 0);
    char *text = tu_read(files[2].path, NULL);
    assert_string_equal(text, "# page\n");
    free(text);
    assert_int_equal(stat(staged, &st), -1);
    for (size_t i = 0; i < 3; i++)
        free(files[i].path);
    free(staged);
    free(blocker);
    free(sub);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_ranking_and_deltas),
        cmocka_unit_test(test_model_objective_pp_and_refusal),
        cmocka_unit_test(test_markdown_table),
        cmocka_unit_test(test_markdown_no_verdict),
        cmocka_unit_test(test_svg_bars),
        cmocka_unit_test(test_svg_history_and_determinism),
        cmocka_unit_test(test_history_from_runs),
        cmocka_unit_test(test_history_any_order),
        cmocka_unit_test(test_session_ids),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_write_all_or_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
