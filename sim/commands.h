/* commands.h - the subcommands of gpumemsim. Each takes the arguments after
 * its own name (argv[0] is the subcommand name) and returns the exit code:
 * 0 ok, 1 validation failed, 2 bad input or usage (docs/architecture.md). */
#ifndef GMS_COMMANDS_H
#define GMS_COMMANDS_H

#include <stdio.h>

int cmd_run(int argc, char **argv);      /* gpumemsim run --config FILE TRACE... */
int cmd_trace(int argc, char **argv);    /* gpumemsim trace info|dump|check|synth|import ... */
int cmd_trace_check(int argc, char **argv); /* gpumemsim trace check TRACE NCU_CSV */
int cmd_trace_import(int argc, char **argv); /* gpumemsim trace import --accelsim PATH -o OUT */
int cmd_validate(int argc, char **argv); /* gpumemsim validate --config FILE CAPTURE... */
int cmd_config(int argc, char **argv);   /* gpumemsim config check FILE | config doc */
int cmd_explain(int argc, char **argv);  /* gpumemsim explain --config FILE TRACE [--pc|--line] [--lanes] */

/* Print "gpumemsim: <msg>" on stderr; returns 2 for use as `return fail(...)`. */
int cmd_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where a command's -o PATH writes: standard output for NULL or "-" (the
 * usual convention; the trace commands take it too), else PATH created for
 * writing (NULL, errno set, when it cannot be). */
FILE *cmd_open_output(const char *path);
/* Finish an output cmd_open_output gave: flush standard output, close a
 * file. -1 when anything written to it failed. */
int cmd_close_output(FILE *f);

#endif
