/* test_energy.c: the energy sources and windows (energy/) on fake
 * sysfs trees and the fake NVML library: RAPL's counter wrap, a stalled
 * counter, a counter readable by root only, unmatched and ambiguous
 * devices, hwmon's energy and sampled power, the --progress parser on a
 * real capture, the windows' attribution, and the net-of-idle rule of
 * stats/energy.h. Not the end-to-end bench (e2e_energy). */
#include "tests/support/testutil.h"

#include "energy/energy.h"
#include "energy/match.h"
#include "energy/watch.h"
#include "evidence/energy.h"
#include "select/pin.h"
#include "stats/energy.h"
#include "stats/rank.h"

#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *dir, const char *rel, const char *text)
{
    char *p = lvd_xasprintf("%s/%s", dir, rel);
    char *slash = strrchr(p, '/');
    *slash = 0;
    lvd_err err = {0};
    assert_int_equal(lvd_mkdir_p(p, &err), 0);
    *slash = '/';
    tu_write_str(p, text);
    free(p);
}

/* A tree with RAPL package-0 (+ dram) at the given counters. */
static char *rapl_tree(const char *pkg, const char *range)
{
    char *d = tu_tmpdir();
    put(d, "class/powercap/intel-rapl:0/name", "package-0\n");
    put(d, "class/powercap/intel-rapl:0/energy_uj", pkg);
    put(d, "class/powercap/intel-rapl:0/max_energy_range_uj", range);
    put(d, "class/powercap/intel-rapl:0:0/name", "core\n");
    put(d, "class/powercap/intel-rapl:0:0/energy_uj", "5\n");
    put(d, "class/powercap/intel-rapl:0:1/name", "dram\n");
    put(d, "class/powercap/intel-rapl:0:1/energy_uj", "100\n");
    setenv("LVD_SYSFS_ROOT", d, 1);
    setenv("LVD_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    return d;
}

static void rapl_wrap_is_unfolded(void **state)
{
    (void)state;
    char *d = rapl_tree("999000000\n", "1000000000\n"); /* 1 uJ short of 1000 J */
    energy_set set;
    energy_open(&set);
    assert_int_equal(set.n, 2); /* package-0 and dram; core is inside the package */
    assert_string_equal(set.v[0].id, "package-0");
    assert_string_equal(set.v[1].id, "dram");
    assert_true(set.v[0].cpu && set.v[0].counter);
    double j0, j1;
    assert_int_equal(energy_read(&set, 0, &j0), 0);
    put(d, "class/powercap/intel-rapl:0/energy_uj", "2000000\n"); /* wrapped: 1 J + 2 J later */
    assert_int_equal(energy_read(&set, 0, &j1), 0);
    assert_true(fabs((j1 - j0) - 3.0) < 1e-9);
    energy_close(&set);
    tu_tmpdir_free(d);
}

static void stalled_counter_is_never_zero_joules(void **state)
{
    (void)state;
    char *d = rapl_tree("5000000\n", "1000000000\n");
    energy_set set;
    energy_open(&set);
    energy_target cpu = {.selector = ""};
    energy_pick pick;
    energy_match(&set, &cpu, &pick);
    assert_int_equal(pick.n, 2);
    assert_string_equal(pick.source, "rapl");
    double idle[2];
    energy_idle(&set, 20, idle);
    assert_true(isnan(idle[0])); /* did not move while idle: no idle figure */
    energy_watch w;
    energy_watch_init(&w, &set, &pick, idle);
    w.min_window_ms = 0;
    const char *lines = "llama-bench: benchmark 1/1: starting\nllama-bench: benchmark 1/1: generation run 1/2\n";
    energy_watch_feed(lines, strlen(lines), &w);
    put(d, "class/powercap/intel-rapl:0:1/energy_uj", "200\n"); /* dram moves, the package does not */
    energy_watch_end(&w);
    lvd_energy e;
    energy_watch_result(&w, 0, &e);
    assert_false(e.measured);
    assert_non_null(strstr(e.note, "package-0 did not advance"));
    energy_watch_free(&w);
    energy_close(&set);
    tu_tmpdir_free(d);
}

/* As an unprivileged user (nobody), a root-only energy_uj is said once. */
static void root_only_rapl_is_said_once(void **state)
{
    (void)state;
    char *d = rapl_tree("1\n", "1000000000\n");
    char *p = lvd_xasprintf("%s/class/powercap/intel-rapl:0/energy_uj", d);
    char *q = lvd_xasprintf("%s/class/powercap/intel-rapl:0:1/energy_uj", d);
    chmod(p, 0400);
    chmod(q, 0400);
    if (geteuid() != 0 && access(p, R_OK) == 0)
        skip(); /* a filesystem that ignores modes */
    chmod(d, 0755); /* the tree itself readable by nobody */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct passwd *pw = getpwnam("nobody");
        if (geteuid() == 0 && (!pw || setgid(pw->pw_gid) || setuid(pw->pw_uid)))
            _exit(3);
        energy_set set;
        energy_open(&set);
        const char *notes = lvd_sb_str(&set.notes);
        const char *hit = strstr(notes, "readable by root only");
        int once = hit && !strstr(hit + 1, "readable by root only");
        _exit(set.n == 0 && once ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    free(p);
    free(q);
    tu_tmpdir_free(d);
}

static energy_source gpu(const char *kind, const char *id, const char *name, int64_t mib)
{
    energy_source s;
    memset(&s, 0, sizeof s);
    snprintf(s.kind, sizeof s.kind, "%s", kind);
    snprintf(s.id, sizeof s.id, "%s", id);
    snprintf(s.name, sizeof s.name, "%s", name);
    s.mem_mib = mib;
    s.counter = 1;
    return s;
}

static void devices_are_matched_honestly(void **state)
{
    (void)state;
    energy_set set;
    memset(&set, 0, sizeof set);
    energy_source a = gpu("nvml", "00000000:17:00.0", "NVIDIA H200", 143771);
    energy_source b = gpu("nvml", "00000000:65:00.0", "NVIDIA H200", 143771);
    energy_source c = gpu("hwmon", "0000:03:00.0", "amdgpu", 24560);
    energy_add_source(&set, &a);
    energy_add_source(&set, &c);
    energy_pick p;
    energy_target h200 = {.selector = "CUDA0", .backend = "cuda", .name = "NVIDIA H200", .mem_mib = 143155};
    energy_match(&set, &h200, &p);
    assert_int_equal(p.n, 1); /* 143155 vs 143771 MiB: within 2 % */
    assert_string_equal(p.device, "CUDA0=00000000:17:00.0");
    energy_target a100 = {.selector = "CUDA0", .backend = "cuda", .name = "NVIDIA A100", .mem_mib = 81050};
    energy_match(&set, &a100, &p);
    assert_int_equal(p.n, 0); /* never another device's */
    assert_non_null(strstr(p.note, "no energy source matches NVIDIA A100"));
    energy_target small = {.selector = "CUDA0", .backend = "cuda", .name = "NVIDIA H200", .mem_mib = 80000};
    energy_match(&set, &small, &p);
    assert_int_equal(p.n, 0); /* same name, other memory */
    energy_target rx = {.selector = "Vulkan0", .backend = "vulkan", .name = "AMD Radeon RX 7900 XTX", .mem_mib = 24560};
    energy_match(&set, &rx, &p);
    assert_int_equal(p.n, 1);
    assert_string_equal(p.source, "hwmon");
    energy_target cpu = {.selector = ""};
    energy_match(&set, &cpu, &p);
    assert_int_equal(p.n, 0);
    assert_string_equal(p.note, "no CPU energy source");
    energy_add_source(&set, &b); /* two identical cards */
    energy_match(&set, &h200, &p);
    assert_int_equal(p.n, 0);
    assert_non_null(strstr(p.note, "2 sources match equally"));
    h200.bus_id = "0000:65:00.0"; /* a bus id decides */
    energy_match(&set, &h200, &p);
    assert_int_equal(p.n, 1);
    assert_string_equal(p.device, "CUDA0=00000000:65:00.0");
    free(set.v);
}

static void hwmon_counter_and_sampled_power(void **state)
{
    (void)state;
    char *d = tu_tmpdir();
    put(d, "class/hwmon/hwmon0/name", "amdgpu\n");
    put(d, "class/hwmon/hwmon0/energy1_input", "1000000\n");
    put(d, "class/hwmon/hwmon1/name", "amdgpu\n");
    put(d, "class/hwmon/hwmon1/power1_average", "50000000\n"); /* 50 W */
    put(d, "class/hwmon/hwmon2/name", "nvme\n");
    setenv("LVD_SYSFS_ROOT", d, 1);
    setenv("LVD_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("LVD_ENERGY_SAMPLE_MS", "10", 1);
    energy_set set;
    energy_open(&set);
    assert_int_equal(set.n, 2);
    assert_true(set.v[0].counter);
    assert_false(set.v[1].counter);
    double idle[2];
    energy_idle(&set, 300, idle);
    assert_true(isnan(idle[0]));                    /* the counter did not move */
    assert_true(fabs(idle[1] - 50.0) < 50.0 * 0.15); /* 50 W sampled every 10 ms */
    energy_close(&set);
    unsetenv("LVD_ENERGY_SAMPLE_MS");
    tu_tmpdir_free(d);
}

static void fake_nvml_is_loaded_at_run_time(void **state)
{
    (void)state;
    const char *lib = getenv("LVD_FAKE_NVML");
    if (!lib)
        skip();
    char *d = tu_tmpdir();
    char *busy = lvd_xasprintf("%s/busy.uj", d);
    tu_write_str(busy, "0\n");
    char *devs = lvd_xasprintf("NVIDIA H200|00000000:17:00.0|143771|60|counter|%s\n"
                               "NVIDIA H200|00000000:65:00.0|143771|60|power|%s\n", busy, busy);
    put(d, "nvml.txt", devs);
    char *list = lvd_xasprintf("%s/nvml.txt", d);
    setenv("FAKE_NVML_DEVICES", list, 1);
    setenv("LVD_NVML_LIBRARY", lib, 1);
    setenv("LVD_SYSFS_ROOT", d, 1);
    energy_set set;
    energy_open(&set);
    assert_int_equal(set.n, 2);
    assert_string_equal(set.v[0].kind, "nvml");
    assert_string_equal(set.v[0].id, "00000000:17:00.0");
    assert_int_equal(set.v[0].mem_mib, 143771);
    assert_true(set.v[0].counter);
    assert_false(set.v[1].counter); /* no counter: power sampled, and said */
    assert_non_null(strstr(lvd_sb_str(&set.notes), "power sampled"));
    double idle[2];
    energy_idle(&set, 300, idle);
    assert_true(fabs(idle[0] - 60.0) < 3.0);
    energy_close(&set);
    setenv("LVD_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    free(list);
    free(devs);
    free(busy);
    tu_tmpdir_free(d);
}

static void progress_lines_of_a_real_capture(void **state)
{
    (void)state;
    char *path = tu_fixture("llama.cpp/cpu-build-b9749/bench-progress.stderr");
    size_t n;
    char *text = tu_read(path, &n);
    char **lines = lvd_split(text, '\n', NULL);
    size_t first_run[2] = {0, 0}, starts = 0, warm = 0, runs = 0;
    for (size_t i = 0; lines[i]; i++) {
        size_t b;
        int run;
        if (!energy_progress_line(lines[i], &b, &run))
            continue;
        assert_true(b < 2);
        starts += run == 0;
        warm += run == -1;
        runs += run > 0;
        if (run == 1)
            first_run[b] = i;
    }
    assert_int_equal(starts, 2);
    assert_int_equal(warm, 2);
    assert_int_equal(runs, 6); /* -r 3 for pp16 and tg8 */
    assert_true(first_run[0] > 0 && first_run[1] > first_run[0]);
    size_t b;
    int run;
    assert_false(energy_progress_line("llama_model_load: loaded meta data", &b, &run));
    lvd_strv_free(lines);
    free(text);
    free(path);
}

/* Net of idle, per the repetitions' own time (stats/energy.h). */
static void net_watts_and_tokens_per_joule(void **state)
{
    (void)state;
    int64_t ns[2] = {500000000, 500000000}; /* two reps of 0.5 s */
    double ts[2] = {100, 100};
    lvd_result r;
    memset(&r, 0, sizeof r);
    r.n = 2;
    r.ns = ns;
    r.ts = ts;
    r.energy.measured = 1;
    r.energy.joules = 330; /* over a 1.1 s window */
    r.energy.window_s = 1.1;
    r.energy.idle_watts = 100; /* 110 J of it idle */
    assert_true(fabs(stats_energy_watts(&r) - 220.0) < 1e-9);
    assert_true(fabs(stats_energy_gross_watts(&r) - 330.0) < 1e-9);
    assert_true(fabs(stats_sample_tpj(&r, 0) - 100.0 / 220.0) < 1e-12);
    r.energy.idle_watts = NAN; /* idle unknown: gross */
    assert_true(fabs(stats_energy_watts(&r) - 330.0) < 1e-9);
    r.energy.measured = 0;
    assert_true(isnan(stats_sample_tpj(&r, 0)));
    assert_true(fabs(stats_sample_value(&r, 1, 0) - 100.0) < 1e-12);
    stats_rule rule;
    stats_rule_default(&rule);
    double x[4] = {2.0, 2.1, 1.9, 2.0};
    stats_energy_stat st;
    stats_energy_summary(x, 4, &rule, &st);
    assert_true(st.has);
    assert_true(fabs(st.tpj - 2.0) < 1e-9 && fabs(st.jpt - 0.5) < 1e-9);
    assert_true(st.jpt_lo <= st.jpt && st.jpt <= st.jpt_hi);
}

static void objectives_per_joule_parse(void **state)
{
    (void)state;
    stats_objective o;
    lvd_err err = {0};
    char name[32];
    assert_int_equal(stats_objective_parse("tpj", &o, &err), 0);
    assert_true(o.per_joule && o.kind == STATS_OBJ_TG);
    stats_objective_name(&o, name, sizeof name);
    assert_string_equal(name, "tpj");
    assert_int_equal(stats_objective_parse("wj=0.7", &o, &err), 0);
    assert_true(o.per_joule && o.kind == STATS_OBJ_WEIGHTED);
    stats_objective_name(&o, name, sizeof name);
    assert_string_equal(name, "wj=0.70");
    assert_int_equal(stats_objective_parse("ppj", &o, &err), 0);
    assert_true(o.per_joule && o.kind == STATS_OBJ_PP);
    assert_int_equal(stats_objective_parse("tg", &o, &err), 0);
    assert_false(o.per_joule);
    assert_int_equal(stats_objective_parse("wj=tg", &o, &err), -1);
    assert_int_equal(stats_objective_parse("wj=2", &o, &err), -1);
}

/* The pin section's energy delta: recorded in the details, read back, shown. */
static void pin_energy_delta(void **state)
{
    (void)state;
    const char *details = "{\"comparisons\":[{\"artifact\":\"a\",\"backend\":\"cuda\",\"params\":\"\","
                          "\"test\":\"tg128\",\"pinned\":{\"median\":900,\"n\":5,\"tokens_per_joule\":2.0},"
                          "\"candidate\":{\"median\":950,\"n\":5,\"tokens_per_joule\":2.5}},"
                          "{\"artifact\":\"a\",\"backend\":\"cpu\",\"test\":\"tg128\","
                          "\"pinned\":{\"median\":50,\"n\":5},\"candidate\":{\"median\":50,\"n\":5}}],"
                          "\"issues\":[]}";
    sel_pin_row *rows;
    size_t n, ni;
    char **issues;
    lvd_err err = {0};
    assert_int_equal(sel_pin_details_rows(details, &rows, &n, &issues, &ni, &err), 0);
    assert_int_equal(n, 2);
    lvd_sb sb = {0};
    ev_energy_pin_cell(&sb, &rows[0]);
    assert_string_equal(lvd_sb_str(&sb), "+25.0 % tokens/J");
    lvd_sb_reset(&sb);
    ev_energy_pin_cell(&sb, &rows[1]); /* no energy recorded */
    assert_string_equal(lvd_sb_str(&sb), "–");
    lvd_sb_free(&sb);
    sel_pin_rows_free(rows, n);
    for (size_t i = 0; i < ni; i++)
        free(issues[i]);
    free(issues);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rapl_wrap_is_unfolded),
        cmocka_unit_test(stalled_counter_is_never_zero_joules),
        cmocka_unit_test(root_only_rapl_is_said_once),
        cmocka_unit_test(devices_are_matched_honestly),
        cmocka_unit_test(hwmon_counter_and_sampled_power),
        cmocka_unit_test(fake_nvml_is_loaded_at_run_time),
        cmocka_unit_test(progress_lines_of_a_real_capture),
        cmocka_unit_test(net_watts_and_tokens_per_joule),
        cmocka_unit_test(objectives_per_joule_parse),
        cmocka_unit_test(pin_energy_delta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
