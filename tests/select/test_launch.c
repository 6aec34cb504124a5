/* test_launch.c: the launch line (select/launch.h): which flags appear for
 * which engine, the JSON form, and the shell line round-tripping through a
 * real /bin/sh for hostile paths. The round trip puts a stand-in
 * llama-server (a shell script printing its argv and environment, NUL
 * separated) into a hostile engine directory and runs `sh -c LINE`: only
 * this test uses a shell; the product never does. */
#include "select/launch.h"
#include "tests/support/testutil.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static lvd_params gpu_params(void)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "CUDA0");
    p.ngl = 49;
    p.n_cpu_moe = 21;
    p.ubatch = 256;
    p.fa = 1;
    snprintf(p.type_k, sizeof p.type_k, "q8_0");
    snprintf(p.type_v, sizeof p.type_v, "q8_0");
    p.threads = 8;
    snprintf(p.env, sizeof p.env, "GGML_VK_PREFER_HOST_MEMORY=1  CUDA_VISIBLE_DEVICES=0");
    return p;
}

static void assert_argv(const sel_launch *l, const char *const *want)
{
    size_t n = 0;
    while (want[n])
        n++;
    if (l->argc != n) {
        char *line = sel_launch_to_shell(l);
        fail_msg("argc %zu, want %zu: %s", l->argc, n, line);
    }
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l->argv[i], want[i]);
    assert_null(l->argv[n]);
}

static void test_gpu_line(void **state)
{
    (void)state;
    lvd_params p = gpu_params();
    sel_launch l;
    lvd_err err;
    assert_int_equal(sel_launch_build("/opt/llama/b9749-cuda/", NULL, "/models/q.gguf", &p, 8192, 1, &l,
                                      &err), 0);
    const char *want[] = {"/opt/llama/b9749-cuda/llama-server", "-m", "/models/q.gguf",
                          "--device", "CUDA0", "-ngl", "49", "--n-cpu-moe", "21", "-ub", "256",
                          "-fa", "on", "-ctk", "q8_0", "-ctv", "q8_0", "-t", "8", "-c", "8192",
                          NULL};
    assert_argv(&l, want);
    assert_int_equal(l.n_env, 2);
    assert_string_equal(l.env[0], "GGML_VK_PREFER_HOST_MEMORY=1");
    assert_string_equal(l.env[1], "CUDA_VISIBLE_DEVICES=0");
    assert_null(l.env[2]);
    char *line = sel_launch_to_shell(&l);
    assert_string_equal(line, "GGML_VK_PREFER_HOST_MEMORY=1 CUDA_VISIBLE_DEVICES=0 "
                              "/opt/llama/b9749-cuda/llama-server -m /models/q.gguf --device CUDA0 "
                              "-ngl 49 --n-cpu-moe 21 -ub 256 -fa on -ctk q8_0 -ctv q8_0 -t 8 "
                              "-c 8192");
    free(line);
    sel_launch_free(&l);
    assert_null(l.argv);
}

/* A CPU-only engine gets no GPU flags, whatever the parameters say. */
static void test_cpu_line(void **state)
{
    (void)state;
    lvd_params p = gpu_params();
    p.fa = 0;
    snprintf(p.type_v, sizeof p.type_v, "f16"); /* a quantized V needs fa on (test_errors) */
    p.env[0] = '\0';
    sel_launch l;
    lvd_err err;
    assert_int_equal(sel_launch_build("/opt/llama/b9749-cpu", NULL, "m.gguf", &p, 0, 0, &l, &err), 0);
    const char *want[] = {"/opt/llama/b9749-cpu/llama-server", "-m", "m.gguf", "-ub", "256",
                          "-fa", "off", "-ctk", "q8_0", "-ctv", "f16", "-t", "8", NULL};
    assert_argv(&l, want);
    assert_int_equal(l.n_env, 0);
    assert_non_null(l.env);
    assert_null(l.env[0]);
    sel_launch_free(&l);
    /* Nothing set: the model alone (and -c). -ngl 0 is a value, passed. */
    lvd_params_init(&p);
    assert_int_equal(sel_launch_build("/e", NULL, "m.gguf", &p, 4096, 1, &l, &err), 0);
    const char *bare[] = {"/e/llama-server", "-m", "m.gguf", "-c", "4096", NULL};
    assert_argv(&l, bare);
    sel_launch_free(&l);
    p.ngl = 0;
    assert_int_equal(sel_launch_build("/e", NULL, "m.gguf", &p, 0, 1, &l, &err), 0);
    const char *ngl0[] = {"/e/llama-server", "-m", "m.gguf", "-ngl", "0", NULL};
    assert_argv(&l, ngl0);
    sel_launch_free(&l);
}

static void test_errors(void **state)
{
    (void)state;
    lvd_params p;
    sel_launch l;
    lvd_err err;
    lvd_params_init(&p);
    assert_int_equal(sel_launch_build("", NULL, "m", &p, 0, 1, &l, &err), -1);
    assert_int_equal(sel_launch_build("/e", NULL, "", &p, 0, 1, &l, &err), -1);
    assert_non_null(strstr(err.msg, "/e"));
    p.ngl = -2;
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), -1);
    lvd_params_init(&p);
    p.fa = 2;
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), -1);
    lvd_params_init(&p);
    snprintf(p.type_k, sizeof p.type_k, "q3_k");
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), -1);
    assert_non_null(strstr(err.msg, "q3_k"));
    /* a quantized V cache with flash attention off: llama.cpp refuses it */
    lvd_params_init(&p);
    snprintf(p.type_k, sizeof p.type_k, "q8_0");
    snprintf(p.type_v, sizeof p.type_v, "q8_0");
    p.fa = 0;
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), -1);
    assert_string_equal(err.msg, "-ctv q8_0 with -fa off: llama.cpp needs flash attention for a quantized V"
                                 " cache (use -fa on, or -ctv f16)");
    assert_null(l.argv);
    p.fa = 1;
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), 0);
    sel_launch_free(&l);
    snprintf(p.type_v, sizeof p.type_v, "f16");
    p.fa = 0; /* a quantized K alone is llama.cpp's business, not refused */
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), 0);
    sel_launch_free(&l);
    const char *bad_env[] = {"NOEQUALS", "1X=2", "=v", "A-B=1", "OK=1 bad"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad_env); i++) {
        lvd_params_init(&p);
        snprintf(p.env, sizeof p.env, "%s", bad_env[i]);
        assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), -1);
        assert_non_null(strstr(err.msg, "NAME=VALUE"));
        assert_null(l.argv);
        assert_null(l.env);
    }
    /* An empty value is a value. */
    lvd_params_init(&p);
    snprintf(p.env, sizeof p.env, "EMPTY= _U=x=y");
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), 0);
    assert_int_equal(l.n_env, 2);
    assert_string_equal(l.env[0], "EMPTY=");
    assert_string_equal(l.env[1], "_U=x=y");
    char *line = sel_launch_to_shell(&l);
    assert_string_equal(line, "EMPTY='' _U=x=y /e/llama-server -m m");
    free(line);
    sel_launch_free(&l);
}

/* The visibility a device was probed under is carried into the line; the
 * arm's own assignment of a name wins; a hostile value stays quoted. */
static void test_carry_env(void **state)
{
    (void)state;
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "Vulkan0");
    p.ngl = 99;
    snprintf(p.env, sizeof p.env, "GGML_VK_PREFER_HOST_MEMORY=1 GGML_VK_VISIBLE_DEVICES=1");
    sel_launch l;
    lvd_err err = {{0}};
    assert_int_equal(sel_launch_build("/e", NULL, "m", &p, 0, 1, &l, &err), 0);
    assert_int_equal(sel_launch_carry_env(&l, "CUDA_VISIBLE_DEVICES=1 GGML_VK_VISIBLE_DEVICES=0 VK_DRIVER_FILES=/a;b",
                                          "vulkan"), 0);
    assert_int_equal(l.n_env, 3);
    assert_string_equal(l.env[1], "GGML_VK_VISIBLE_DEVICES=1");
    assert_string_equal(l.env[2], "VK_DRIVER_FILES=/a;b");
    assert_null(l.env[3]);
    char *line = sel_launch_to_shell(&l);
    assert_string_equal(line, "GGML_VK_PREFER_HOST_MEMORY=1 GGML_VK_VISIBLE_DEVICES=1 VK_DRIVER_FILES='/a;b' "
                              "/e/llama-server -m m --device Vulkan0 -ngl 99");
    free(line);
    /* the CPU and a backend the record says nothing for add nothing */
    assert_int_equal(sel_launch_carry_env(&l, "CUDA_VISIBLE_DEVICES=1", "cpu"), 0);
    assert_int_equal(sel_launch_carry_env(&l, "CUDA_VISIBLE_DEVICES=1", "sycl"), 0);
    assert_int_equal(sel_launch_carry_env(&l, NULL, "vulkan"), 0);
    assert_int_equal(l.n_env, 3);
    sel_launch_free(&l);
}

static void check_quote(const char *word, const char *want)
{
    lvd_sb sb = {0};
    lvd_shell_quote(&sb, word);
    assert_string_equal(lvd_sb_str(&sb), want);
    lvd_sb_free(&sb);
}

static void test_quote(void **state)
{
    (void)state;
    check_quote("abc", "abc");
    check_quote("-ngl", "-ngl");
    check_quote("--n-cpu-moe", "--n-cpu-moe");
    check_quote("/a/b_c.d/e=f:g,h+i-j", "/a/b_c.d/e=f:g,h+i-j");
    check_quote("", "''");
    check_quote("a b", "'a b'");
    check_quote("it's", "'it'\\''s'");
    check_quote("'", "''\\'''");
    check_quote("$HOME", "'$HOME'");
    check_quote("`id`", "'`id`'");
    check_quote("a\nb", "'a\nb'");
    check_quote("~", "'~'");
    check_quote("#x", "'#x'");
    check_quote("*", "'*'");
    check_quote("ünï", "'ünï'");
    check_quote("a\\b", "'a\\b'");
}

/* argv[0] with '=' must not read as an assignment. */
static void test_command_word_with_equals(void **state)
{
    (void)state;
    lvd_params p;
    lvd_params_init(&p);
    sel_launch l;
    lvd_err err;
    assert_int_equal(sel_launch_build("X=1", NULL, "m", &p, 0, 1, &l, &err), 0);
    char *line = sel_launch_to_shell(&l);
    assert_string_equal(line, "'X=1/llama-server' -m m");
    free(line);
    sel_launch_free(&l);
}

static void test_json(void **state)
{
    (void)state;
    lvd_params p = gpu_params();
    sel_launch l;
    lvd_err err;
    assert_int_equal(sel_launch_build("/e d", NULL, "/m\n'x'.gguf", &p, 512, 1, &l, &err), 0);
    cJSON *j = sel_launch_to_json(&l);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    cJSON *back = cJSON_Parse(text);
    free(text);
    assert_non_null(back);
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(back, "argv");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(back, "env");
    assert_true(cJSON_IsArray(argv) && cJSON_IsArray(env));
    assert_int_equal(cJSON_GetArraySize(argv), (int)l.argc);
    assert_int_equal(cJSON_GetArraySize(env), (int)l.n_env);
    for (size_t i = 0; i < l.argc; i++)
        assert_string_equal(cJSON_GetArrayItem(argv, (int)i)->valuestring, l.argv[i]);
    for (size_t i = 0; i < l.n_env; i++)
        assert_string_equal(cJSON_GetArrayItem(env, (int)i)->valuestring, l.env[i]);
    assert_string_equal(cJSON_GetArrayItem(argv, 2)->valuestring, "/m\n'x'.gguf");
    cJSON_Delete(back);
    sel_launch_free(&l);
}

/* Runs `sh -c line` and returns what it printed (malloc'd, *n bytes). */
static char *run_sh(const char *line, size_t *n)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char *const argv[] = {"sh", "-c", (char *)line, NULL};
        execv("/bin/sh", argv);
        _exit(127);
    }
    close(fd[1]);
    lvd_sb sb = {0};
    char buf[4096];
    ssize_t r;
    while ((r = read(fd[0], buf, sizeof buf)) > 0)
        lvd_sb_add(&sb, buf, (size_t)r);
    close(fd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("sh -c failed (status %d): %s", status, line);
    *n = sb.len;
    return lvd_sb_detach(&sb);
}

/* The stand-in server: argv NUL-separated, a marker, then the environment. */
static const char server_script[] =
    "#!/bin/sh\n"
    "printf '%s\\0' \"$0\" \"$@\"\n"
    "printf 'END-OF-ARGV\\0'\n"
    "exec env -0\n";

static const char *hostile[] = {
    "sp ace", "quo'te", "dq\"uote", "$HOME", "back`id`tick", "new\nline", "-leading",
    "ünïcödé", "semi;colon&amp|pipe", "glob*?[x]", "tab\there", "trailing\\", "~tilde",
    "$(id)", "'\\''",
};

static void round_trip(const char *dir, const char *model, const char *env)
{
    lvd_params p = gpu_params();
    snprintf(p.device, sizeof p.device, "Vulkan0,CUDA0");
    snprintf(p.env, sizeof p.env, "%s", env);
    sel_launch l;
    lvd_err err;
    if (sel_launch_build(dir, NULL, model, &p, 4096, 1, &l, &err) != 0)
        fail_msg("%s", err.msg);
    char *line = sel_launch_to_shell(&l);
    size_t n;
    char *out = run_sh(line, &n);
    /* argv back, word for word. */
    size_t at = 0, i = 0;
    while (at < n && strcmp(out + at, "END-OF-ARGV") != 0) {
        if (i >= l.argc)
            fail_msg("extra word '%s' from: %s", out + at, line);
        if (strcmp(out + at, l.argv[i]) != 0)
            fail_msg("word %zu: got '%s', want '%s', from: %s", i, out + at, l.argv[i], line);
        at += strlen(out + at) + 1;
        i++;
    }
    if (i != l.argc)
        fail_msg("%zu words back, %zu sent: %s", i, l.argc, line);
    at += strlen("END-OF-ARGV") + 1;
    /* Every assignment is in the environment, value intact. */
    for (size_t e = 0; e < l.n_env; e++) {
        int found = 0;
        for (size_t k = at; k < n; k += strlen(out + k) + 1)
            found |= strcmp(out + k, l.env[e]) == 0;
        if (!found)
            fail_msg("'%s' missing from the environment of: %s", l.env[e], line);
    }
    free(out);
    free(line);
    sel_launch_free(&l);
}

static void test_shell_round_trip(void **state)
{
    (void)state;
    char *tmp = tu_tmpdir();
    for (size_t h = 0; h < LVD_ARRAY_LEN(hostile); h++) {
        char *dir = lvd_xasprintf("%s/e %zu %s", tmp, h, hostile[h]);
        assert_int_equal(mkdir(dir, 0755), 0);
        char *server = lvd_xasprintf("%s/llama-server", dir);
        tu_write_str(server, server_script);
        assert_int_equal(chmod(server, 0755), 0);
        char *model = lvd_xasprintf("%s/models/%s.gguf", dir, hostile[h]);
        char *env = lvd_xasprintf("LVD_T_A=%s LVD_T_B=1", strchr(hostile[h], ' ') ||
                                  strchr(hostile[h], '\t') || strchr(hostile[h], '\n')
                                      ? "x'$`\"y" : hostile[h]);
        round_trip(dir, model, env);
        /* A relative model path that starts with '-' stays one word. */
        round_trip(dir, hostile[h], "");
        free(env);
        free(model);
        free(server);
        free(dir);
    }
    tu_tmpdir_free(tmp);
}

/* And through the shell: a relative engine dir "X=1" from its parent. */
static void test_command_word_with_equals_runs(void **state)
{
    (void)state;
    char *tmp = tu_tmpdir();
    char *dir = lvd_xasprintf("%s/X=1", tmp);
    assert_int_equal(mkdir(dir, 0755), 0);
    char *server = lvd_xasprintf("%s/llama-server", dir);
    tu_write_str(server, server_script);
    assert_int_equal(chmod(server, 0755), 0);
    char *cwd = getcwd(NULL, 0);
    assert_int_equal(chdir(tmp), 0);
    round_trip("X=1", "m.gguf", "A=1");
    assert_int_equal(chdir(cwd), 0);
    free(cwd);
    free(server);
    free(dir);
    tu_tmpdir_free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_line),
        cmocka_unit_test(test_cpu_line),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_carry_env),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_command_word_with_equals),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_shell_round_trip),
        cmocka_unit_test(test_command_word_with_equals_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
