/* select_cli.h: the `lvd select` tool as a function (select_cli.c), so that
 * the lvd dispatcher runs it in its own process instead of starting
 * lvd-select: argv as the tool's main gets it, the tool's exit status back. */
#ifndef LVD_SELECT_CLI_H
#define LVD_SELECT_CLI_H

int sel_cli_main(int argc, char **argv);

#endif
