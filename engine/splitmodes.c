/* splitmodes.c: the split modes a build accepts, from what its --help lists
 * (splitmodes.h). No I/O. */
#include "engine/splitmodes.h"

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

int engine_split_modes_of(const engine_help *h)
{
    const engine_opt *o = engine_help_opt(h, ENGINE_TOOL_BENCH, "-sm");
    if (!o)
        o = engine_help_opt(h, ENGINE_TOOL_BENCH, "--split-mode");
    /* the list: "<none|layer|row|tensor>" (llama-bench) or "{none,layer,...}" (llama-server) */
    size_t len = o ? strlen(o->arg) : 0;
    int bits = len > 2 && strchr("<{", o->arg[0]) && strchr(">}", o->arg[len - 1]) ? words_bits(o->arg + 1, len - 2)
                                                                                 : 0;
    return bits ? bits : ENGINE_SM_ASSUMED;
}
