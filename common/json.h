/* json.h: the cJSON values that the JSON writers of every module build the
 * same way: a number that may be unknown (NaN), a string that may be absent,
 * a list of strings.
 * Not for printing (common/cli.h: lvd_json_emit) or for parsing. */
#ifndef LVD_JSON_H
#define LVD_JSON_H

#include <stddef.h>

struct cJSON;

/* A number, or null when v is not finite (unknown). */
struct cJSON *lvd_json_num(double v);
/* v when known, else null (a flag not passed, an id of none, a count not
 * measured). */
struct cJSON *lvd_json_num_if(int known, double v);
/* A string, or null when s is NULL. */
struct cJSON *lvd_json_str(const char *s);
/* A string, or null when s is NULL or empty (fixed-size fields that hold ""
 * for "none"). */
struct cJSON *lvd_json_text(const char *s);
/* v[0..n-1] as an array of strings; [] when n is 0 (v may then be NULL). */
struct cJSON *lvd_json_strings(char *const *v, size_t n);
/* The NULL-terminated v as an array of strings; [] when v is NULL. */
struct cJSON *lvd_json_strv(char *const *v);

/* The string member key of object o; "" when o is not an object, has no
 * such member, or it is not a string (never NULL). */
const char *lvd_json_string(const struct cJSON *o, const char *key);

/* v printed compactly, as a malloc'd string (never NULL: exhaustion aborts,
 * as lvd_xmalloc does); v is deleted. For JSON kept in the store. */
char *lvd_json_compact(struct cJSON *v);

#endif
