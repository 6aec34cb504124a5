/* help.c: whether a usage text lists a flag (ik_llama.cpp's persona refuses
 * every flag its usage does not list), and the flags a scenario's build
 * lacks (help_omit, fake.h): its
 * --help lists no option line naming one of them (nor that line's other
 * spellings, nor its continuation lines), and every persona refuses them as
 * a build older than them does. The usage texts themselves are each
 * persona's (fake_bench_args.c, args.c). */
#include "fake.h"

/* The flag names an option line of usage text starts with (within four
 * spaces of its start; words up to the first that is not a flag), or 0
 * names when it is not one. */
static size_t line_names(const char *line, size_t len, char ***names)
{
    size_t n = 0, i = strspn(line, " ");
    *names = NULL;
    if (i > 4 || i >= len)
        return 0;
    while (i < len && line[i] == '-' && isalpha((unsigned char)line[i + 1 + (line[i + 1] == '-')])) {
        size_t w = i;
        while (w < len && line[w] != ' ' && line[w] != ',')
            w++;
        lvd_strv_push(names, &n, lvd_xstrndup(line + i, w - i));
        while (w < len && (line[w] == ' ' || line[w] == ','))
            w++;
        i = w;
    }
    return n;
}

/* 1 when one of names is in the scenario's help_omit list. */
static int names_omitted(char **names, size_t n)
{
    char **omit = lvd_split(scn_str("help_omit", ""), ',', NULL);
    int hit = 0;
    for (size_t i = 0; omit[i] && !hit; i++)
        for (size_t k = 0; k < n && !hit; k++)
            hit = !strcmp(trim(omit[i]), names[k]);
    lvd_strv_free(omit);
    return hit;
}

/* The option line of usage naming arg: 1 when there is one (and, omitted
 * set, when help_omit drops it), else 0. */
static int line_naming(const char *usage, const char *arg, int omitted)
{
    int hit = 0;
    for (const char *s = usage; *s && !hit;) {
        size_t len = strcspn(s, "\n");
        char **names;
        size_t n = line_names(s, len, &names);
        int named = 0;
        for (size_t k = 0; k < n; k++)
            named |= !strcmp(names[k], arg);
        hit = named && (!omitted || names_omitted(names, n));
        lvd_strv_free(names);
        s += len + (s[len] ? 1 : 0);
    }
    return hit;
}

int fake_help_lacks(const char *usage, const char *arg)
{
    return line_naming(usage, arg, 1);
}

int fake_help_lists(const char *usage, const char *arg)
{
    return line_naming(usage, arg, 0);
}

void fake_help_print(const char *usage)
{
    int dropping = 0;
    for (const char *s = usage; *s;) {
        size_t len = strcspn(s, "\n");
        char **names;
        size_t n = line_names(s, len, &names);
        size_t indent = strspn(s, " ");
        if (n)
            dropping = names_omitted(names, n);
        else if (indent <= 4 || indent >= len)
            dropping = 0; /* a heading, a paragraph or a blank line: no option's continuation */
        lvd_strv_free(names);
        if (!dropping)
            printf("%.*s\n", (int)len, s);
        s += len + (s[len] ? 1 : 0);
    }
}
