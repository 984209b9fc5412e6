/* cmd_config.c - `gpumemsim config`: check and dump GPU configs, and print
 * the reference of every config key (docs/config.md embeds that output; a
 * test keeps the two equal).
 *
 *   gpumemsim config check FILE...   load and validate; "FILE: ok" per good file
 *   gpumemsim config dump FILE       the effective config, defaults included
 *   gpumemsim config doc             Markdown table of every key
 *
 * Exit codes: 0 ok, 2 a bad config or bad usage (one line on stderr each). */
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "commands.h"
#include "err.h"

static const char config_usage[] =
    "usage: gpumemsim config check FILE...   load and validate configs\n"
    "       gpumemsim config dump FILE       print the effective config (defaults included)\n"
    "       gpumemsim config doc             print the key reference (Markdown)\n";

/* Bad usage is one line, like every other error; the usage is on --help. */
static int usage_fail(const char *why)
{
    return cmd_fail("config: %s (see gpumemsim config --help)", why);
}

/* Flush stdout and turn a failed write (a full disk, a closed pipe) into exit 2. */
static int finish_output(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return cmd_fail("config: cannot write the standard output");
    return rc;
}

static int config_check(int argc, char **argv)
{
    if (argc < 1)
        return usage_fail("check needs at least one FILE");
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        cfg_gpu c;
        err_info err;
        err_clear(&err);
        if (cfg_load(argv[i], &c, &err) != 0)
            rc = cmd_fail("%s", err.msg);
        else
            printf("%s: ok\n", argv[i]);
    }
    return finish_output(rc);
}

static int config_dump(int argc, char **argv)
{
    if (argc != 1)
        return usage_fail("dump needs exactly one FILE");
    cfg_gpu c;
    err_info err;
    err_clear(&err);
    if (cfg_load(argv[0], &c, &err) != 0)
        return cmd_fail("%s", err.msg);
    printf("; effective config of %s (\"; default\": the key's default value)\n", argv[0]);
    cfg_dump(&c, stdout, "");
    cfg_dump_timing(&c, stdout, "");
    return finish_output(0);
}

/* One Markdown table cell: '|' would end the cell, so it is escaped. */
static void md_cell(const char *s)
{
    fputs("| ", stdout);
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', stdout);
        fputc(*s, stdout);
    }
    fputc(' ', stdout);
}

static int config_doc(int argc)
{
    if (argc != 0)
        return usage_fail("doc takes no arguments");
    puts("| key | type | unit | default | values | description |");
    puts("|---|---|---|---|---|---|");
    for (size_t i = 0; i < cfg_key_count(); i++) {
        char key[96], bounds[128];
        snprintf(key, sizeof key, "`%s`", cfg_key_name(i));
        cfg_key_bounds(i, bounds, sizeof bounds);
        const char *def = cfg_key_default(i);
        md_cell(key);
        md_cell(cfg_key_type(i));
        md_cell(cfg_key_unit(i));
        md_cell(def ? def : "required");
        md_cell(bounds);
        md_cell(cfg_key_help(i));
        puts("|");
    }
    return finish_output(0);
}

int cmd_config(int argc, char **argv)
{
    if (argc < 2)
        return usage_fail("expected check, dump or doc");
    const char *sub = argv[1];
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
        fputs(config_usage, stdout);
        return finish_output(0);
    }
    if (strcmp(sub, "check") == 0)
        return config_check(argc - 2, argv + 2);
    if (strcmp(sub, "dump") == 0)
        return config_dump(argc - 2, argv + 2);
    if (strcmp(sub, "doc") == 0)
        return config_doc(argc - 2);
    char why[160];
    snprintf(why, sizeof why, "unknown subcommand \"%.100s\", expected check, dump or doc", sub);
    return usage_fail(why);
}
