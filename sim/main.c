/* main.c - gpumemsim: dispatch to the subcommands.
 *
 * Exit codes (README.md): 0 ok, 1 validation failed, 2 bad input or usage. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "version.h"

static const char usage[] =
    "usage: gpumemsim COMMAND [ARGS]\n"
    "\n"
    "Replay GPU memory traces through a model of a GPU's memory system and report\n"
    "what Nsight Compute would count.\n"
    "\n"
    "commands:\n"
    "  run --config FILE TRACE... [--kernel REGEX] [--format table|csv|json] [-o FILE]\n"
    "      [--timing]     simulate traces; counters per kernel launch and in total;\n"
    "                     --timing adds the cycle model\n"
    "  validate --config FILE CAPTURE... [--timing] [--per-pc]\n"
    "                     compare predictions with Nsight Compute CSVs, per launch\n"
    "                     (and per SASS instruction)\n"
    "  explain --config FILE TRACE [--pc 0xPC | --line FILE:LINE] [--lanes] ...\n"
    "                     what each memory instruction costs and why: ncu's source-view\n"
    "                     columns per line and instruction, or one execution lane by lane\n"
    "  trace info|dump|check|synth|import ...\n"
    "                     inspect, convert and check traces; make synthetic ones;\n"
    "                     import Accel-Sim trace collections\n"
    "  config check|dump|doc ...           check and document GPU configs\n"
    "  help [COMMAND]     this text, or a command's own help (COMMAND --help)\n"
    "  version            print the version\n"
    "\n"
    "exit codes: 0 ok, 1 validation failed, 2 bad input or usage\n";

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"run", cmd_run},
    {"validate", cmd_validate},
    {"explain", cmd_explain},
    {"trace", cmd_trace},
    {"config", cmd_config},
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return cmd_fail("no command given (expected run, validate, trace, config, help or version; "
                        "see gpumemsim --help)");
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            char help[] = "--help";
            char *sub[] = {argv[2], help, NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(commands[i].name, argv[2]) == 0)
                    return commands[i].fn(2, sub);
            return cmd_fail("help: unknown command '%s'", argv[2]);
        }
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(name, "version") == 0 || strcmp(name, "--version") == 0) {
        if (argc > 2)
            return cmd_fail("%s: unexpected argument '%s'", name, argv[2]);
        printf("gpumemsim %s (trace format %u)\n", GMS_VERSION, 1u);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return cmd_fail("unknown command '%s' (expected run, validate, explain, trace, config, help or version)", name);
}
