/* store_tool.h: opening the store a tool was given, for the tools' mains and
 * the commands they share (common/cli.h is the layer below and knows no store).
 * Not for the store's API itself (store.h). */
#ifndef LVD_STORE_TOOL_H
#define LVD_STORE_TOOL_H

#include "store/store.h"

/* Opens the store a tool was given (store_opt, see store_default_path) with
 * store_open's flags: LVD_EXIT_OK, or LVD_EXIT_STORE with the error printed
 * as tool's error line and *out NULL. Close it with store_close. */
int store_tool_open(const char *tool, const char *store_opt, int flags, store **out);

/* `lvd store merge OTHER`: merges OTHER into s (store/mergedb.h) and prints
 * the rows added per table (JSON when json). LVD_EXIT_OK; LVD_EXIT_INPUT
 * when OTHER cannot be merged (cannot be opened, another schema, s itself);
 * LVD_EXIT_STORE when s fails; the error printed as tool's line. */
int store_tool_merge(const char *tool, store *s, const char *other, int json);

/* What lvd store info, engines, artifacts and model print (store_show.c), as
 * tables or with json as JSON: the exit status, a failure as tool's error
 * line. store_show_model records the model file at path (hashed once, its
 * GGUF shape read) and prints its sha256 and shape. */
int store_show_info(const char *tool, store *s, int json);
int store_show_engines(const char *tool, store *s, int json);
int store_show_artifacts(const char *tool, store *s, int json);
int store_show_model(const char *tool, store *s, const char *path, int json);
/* {sha256, size, path, created_at, shape: {arch, name, ...} or null} */
struct cJSON *store_artifact_json(const store_artifact *a);

#endif
