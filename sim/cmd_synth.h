/* cmd_synth.h - `gpumemsim trace synth`: large synthetic binary traces from
 * named access patterns, for benchmarks and sweeps (sim/cmd_synth.c). */
#ifndef GMS_CMD_SYNTH_H
#define GMS_CMD_SYNTH_H

/* argv[0] is "synth"; returns the exit code (0, or 2 on bad usage or I/O). */
int cmd_trace_synth(int argc, char **argv);

#define SYNTH_USAGE \
    "gpumemsim trace synth --pattern NAME --instructions N -o FILE [--seed S]"

#endif
