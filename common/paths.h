/* paths.h: where llama-verdict keeps things. Its own state lives under the XDG
 * data directory; the data files it ships (pin.default, perplexity-input.txt,
 * models/) live in its installed share directory, or in the source tree when
 * the tools run from a build directory. */
#ifndef LVD_PATHS_H
#define LVD_PATHS_H

/* $XDG_DATA_HOME/llama-verdict/REL, else ~/.local/share/llama-verdict/REL
 * (REL may be "" for the directory itself). malloc'd. */
char *lvd_state_path(const char *rel);

/* The first existing of: $LVD_DATADIR, EXE_DIR/../share/llama-verdict (an
 * installed tree), the compiled-in install directory, the source tree's
 * share/. Never NULL (the last candidate is returned when none exists). */
const char *lvd_datadir(void);

/* The directory of the running executable (from /proc/self/exe), or NULL.
 * malloc'd. Tools find their siblings (lvd-*) and data files from here. */
char *lvd_exe_dir(void);

/* lvd_datadir()/NAME when that file exists, else NULL. malloc'd. */
char *lvd_data_file(const char *name);

#endif
