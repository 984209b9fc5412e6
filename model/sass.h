/* sass.h - what the model reads from an instruction's SASS text (the trace's
 * PC table): the few opcodes whose counting the record alone does not
 * decide (docs/metrics.md). */
#ifndef GMS_SASS_H
#define GMS_SASS_H

#include <stdbool.h>

/* The opcode of sass: past leading blanks and a guard predicate ("@!P0 ").
 * NULL stays NULL. */
const char *sass_opcode(const char *sass);

/* Whether sass's opcode starts with prefix (false for NULL). */
bool sass_opcode_is(const char *sass, const char *prefix);

#endif
