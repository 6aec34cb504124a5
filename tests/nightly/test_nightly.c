/* test_nightly.c: the nightly job's config (nightly/config.h) and its lock. */
#include "tests/support/testutil.h"

#include "nightly/config.h"
#include "nightly/lock.h"
#include "nightly/nightly.h"
#include "nightly/resume.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void default_config_uses_shipped_files_and_never_promotes(void **state)
{
    (void)state;
    char *share = tu_source("share");
    setenv("LVD_DATADIR", share, 1);
    night_config c;
    lvd_err err = {{0}};
    assert_int_equal(night_config_load(NULL, &c, &err), 0);
    assert_true(c.is_default);
    assert_int_equal(c.promote, 0);
    assert_int_equal(c.n_models, 1);
    assert_non_null(strstr(c.models[0], "models/tiny-llama-q4_0.gguf"));
    assert_non_null(strstr(c.pin_file, "pin.default"));
    assert_string_equal(c.candidate, "latest");
    assert_string_equal(c.tests, "pp512,tg128");
    assert_int_equal(c.discover, 1); /* a box's engines are found without set-up */
    night_config_free(&c);
    free(share);
}

static void file_config_resolves_paths_and_checks_values(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/nightly.conf", dir);
    tu_write_str(path, "# night\nmodel = m/a.gguf\nmodel = /abs/b.gguf\npin_file = pin.conf\n"
                       "flavour = bin-ubuntu-vulkan-x64\ncandidate = b10800\nbudget = 2m\n"
                       "max_samples = 12\nfetch = off\npromote = on\nevidence = docs/e.md\ndiscover = off\n");
    night_config c;
    lvd_err err = {{0}};
    assert_int_equal(night_config_load(path, &c, &err), 0);
    assert_int_equal(c.n_models, 2);
    char *want = lvd_xasprintf("%s/m/a.gguf", dir);
    assert_string_equal(c.models[0], want);
    assert_string_equal(c.models[1], "/abs/b.gguf");
    free(want);
    want = lvd_xasprintf("%s/pin.conf", dir);
    assert_string_equal(c.pin_file, want);
    free(want);
    assert_int_equal(c.n_flavours, 1);
    assert_string_equal(c.candidate, "b10800");
    assert_string_equal(c.budget, "2m");
    assert_int_equal(c.max_samples, 12);
    assert_int_equal(c.fetch, 0);
    assert_int_equal(c.promote, 1);
    assert_int_equal(c.discover, 0);
    assert_int_equal(c.reps, 0); /* unset: the bench's cost model chooses -r */
    assert_int_equal(c.ctx, -1); /* unset: lvd select's default, measured at half of it */
    assert_null(c.depth);
    night_config_free(&c);
    tu_write_str(path, "model = a\nreps = 5\nctx = 8192\ndepth = 0,4096\n");
    assert_int_equal(night_config_load(path, &c, &err), 0);
    assert_int_equal(c.reps, 5);
    assert_int_equal(c.ctx, 8192);
    assert_string_equal(c.depth, "0,4096");
    night_config_free(&c);
    tu_write_str(path, "model = a\ndepth = 0,deep\n");
    assert_int_equal(night_config_load(path, &c, &err), -1);
    assert_non_null(strstr(err.msg, ":2: depth must be a list of depths like 0,4096, not '0,deep'"));

    /* fetch and promote take every spelling of lvd_parse_onoff (common/util.h) */
    static const char *const on[] = {"on", "1", "yes", "true"}, *const off[] = {"off", "0", "no", "false"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(on); i++) {
        char *text = lvd_xasprintf("model = a\nfetch = %s\npromote = %s\n", off[i], on[i]);
        tu_write_str(path, text);
        free(text);
        assert_int_equal(night_config_load(path, &c, &err), 0);
        assert_int_equal(c.fetch, 0);
        assert_int_equal(c.promote, 1);
        night_config_free(&c);
    }

    struct { const char *text; const char *msg; } bad[] = {
        {"model = a\nbogus = 1\n", ":2: unknown key 'bogus'"},
        {"model = a\ncandidate = newest\n", ":2: candidate must be latest, none or a build"},
        {"model = a\nbudget = soon\n", ":2: budget must be a duration"},
        {"model = a\nfetch = maybe\n", ":2: fetch must be on or off"},
        {"model = a\ndiscover = sometimes\n", ":2: discover must be on or off"},
        {"model = a\nmax_samples = 0\n", ":2: max_samples must be a whole number"},
        {"budget = 5m\n", ": no model"},
        {"model =\n", ":1: model has no value"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        tu_write_str(path, bad[i].text);
        assert_int_equal(night_config_load(path, &c, &err), -1);
        assert_non_null(strstr(err.msg, path));
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
    }
    free(path);
    tu_tmpdir_free(dir);
}

static void second_lock_is_refused_with_the_holder(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *store = lvd_xasprintf("%s/sub/store.db", dir);
    int a = -1, b = -1;
    lvd_err err = {{0}};
    assert_int_equal(night_lock(store, &a, &err), 0);
    assert_int_equal(night_lock(store, &b, &err), -1);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    assert_non_null(strstr(err.msg, "another nightly is running"));
    assert_non_null(strstr(err.msg, pid));
    night_unlock(a);
    assert_int_equal(night_lock(store, &b, &err), 0);
    night_unlock(b);
    free(store);
    tu_tmpdir_free(dir);
}

/* The resume rule (nightly/resume.c): a night that never ended is resumed
 * within resume_within of its session's first start, else a new session is
 * said; a night that ended leaves nothing to resume. */
static void interrupted_night_is_resumed_within_its_window(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *store = lvd_xasprintf("%s/store.db", dir);
    char *rec = lvd_xasprintf("%s.nightly.state", store);
    night_resume r;
    lvd_err err = {{0}};
    const int64_t t0 = 1800000000, day = 86400;
    assert_int_equal(night_resume_begin(store, "night-1", t0, day, &r, &err), 0);
    assert_string_equal(r.session, "night-1");
    assert_int_equal(r.resumed, 0);
    assert_null(r.note);
    assert_int_equal(access(rec, F_OK), 0);
    night_resume_free(&r);
    /* killed: the record stays; an hour later the next night resumes it */
    assert_int_equal(night_resume_begin(store, "night-2", t0 + 3600, day, &r, &err), 0);
    assert_string_equal(r.session, "night-1");
    assert_int_equal(r.resumed, 1);
    char want[96];
    snprintf(want, sizeof want, "the night of session night-1 (pid %ld) was interrupted: this night resumes",
             (long)getpid());
    assert_non_null(strstr(r.note, want));
    night_resume_free(&r);
    /* killed again: the window counts from the session's first start */
    assert_int_equal(night_resume_begin(store, "night-3", t0 + day + 1, day, &r, &err), 0);
    assert_string_equal(r.session, "night-3");
    assert_int_equal(r.resumed, 0);
    assert_non_null(strstr(r.note, "beyond resume_within (86400s): this night starts a new session"));
    night_resume_free(&r);
    /* a night that ended leaves nothing */
    night_resume_end(store);
    assert_int_equal(access(rec, F_OK), -1);
    assert_int_equal(night_resume_begin(store, "night-4", t0 + 2 * day, day, &r, &err), 0);
    assert_string_equal(r.session, "night-4");
    assert_null(r.note);
    night_resume_free(&r);
    /* resume_within 0: never resumed, and said so */
    assert_int_equal(night_resume_begin(store, "night-5", t0 + 2 * day + 60, 0, &r, &err), 0);
    assert_string_equal(r.session, "night-5");
    assert_int_equal(r.resumed, 0);
    assert_non_null(strstr(r.note, "resume_within is 0"));
    night_resume_free(&r);
    night_resume_end(store);
    free(rec);
    free(store);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_config_uses_shipped_files_and_never_promotes),
        cmocka_unit_test(file_config_resolves_paths_and_checks_values),
        cmocka_unit_test(second_lock_is_refused_with_the_holder),
        cmocka_unit_test(interrupted_night_is_resumed_within_its_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
