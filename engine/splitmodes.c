/* splitmodes.c: the split modes a build accepts, from its --help text
 * (splitmodes.h). The only I/O is running `BINARY --help`. */
#include "engine/splitmodes.h"

#include "common/proc.h"

#include <ctype.h>
#include <string.h>

static const struct {
    const char *name;
    int bit;
} modes[] = {
    {"none", ENGINE_SM_NONE}, {"layer", ENGINE_SM_LAYER}, {"row", ENGINE_SM_ROW},
    {"tensor", ENGINE_SM_TENSOR},
};

const char *engine_split_mode_name(int bit)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(modes); i++)
        if (modes[i].bit == bit)
            return modes[i].name;
    return NULL;
}

/* The bits of the words of s[0..len) (separated by anything not a letter). */
static int words_bits(const char *s, size_t len)
{
    int bits = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && !isalpha((unsigned char)s[i]))
            i++;
        size_t start = i;
        while (i < len && isalpha((unsigned char)s[i]))
            i++;
        for (size_t k = 0; k < LVD_ARRAY_LEN(modes); k++)
            if (i - start == strlen(modes[k].name) && !strncmp(s + start, modes[k].name, i - start))
                bits |= modes[k].bit;
    }
    return bits;
}

int engine_split_modes_parse(const char *help_text)
{
    const char *p = help_text ? strstr(help_text, "--split-mode") : NULL;
    if (!p)
        return 0;
    p += strlen("--split-mode");
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    /* the list: "<none|layer|row|tensor>" (llama-bench) or "{none,layer,...}" (llama-server) */
    const char *open = memchr(p, '<', len);
    if (!open)
        open = memchr(p, '{', len);
    if (!open)
        return 0;
    const char *close = memchr(open, *open == '<' ? '>' : '}', len - (size_t)(open - p));
    if (!close)
        return 0;
    return words_bits(open + 1, (size_t)(close - open - 1));
}

int engine_split_modes_probe(const char *binary, int timeout_ms)
{
    const char *argv[] = {binary, "--help", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = timeout_ms > 0 ? timeout_ms : 10000,
                      .max_capture = 256 * 1024};
    proc_result res;
    lvd_err err = {{0}};
    int bits = 0;
    if (proc_run(&spec, &res, &err) == 0 && res.spawned && !res.timed_out)
        bits = engine_split_modes_parse(lvd_sb_str(&res.out));
    proc_result_free(&res);
    return bits ? bits : ENGINE_SM_ASSUMED;
}
