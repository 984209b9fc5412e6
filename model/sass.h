/* sass.h - what the model reads from an instruction's SASS text (the trace's
 * PC table): the few opcodes whose counting the record alone does not
 * decide (docs/metrics.md). */
#ifndef GMS_SASS_H
#define GMS_SASS_H

#include <stdbool.h>
#include <stdint.h>

/* The opcode of sass: past leading blanks and a guard predicate ("@!P0 ").
 * NULL stays NULL. */
const char *sass_opcode(const char *sass);

/* Whether sass's opcode starts with prefix (false for NULL). */
bool sass_opcode_is(const char *sass, const char *prefix);

/* The registers an instruction names, from op (its text from the opcode on,
 * as sass_opcode gives it): R<n> not part of a longer name (UR4, SR_TID and
 * P0 are not registers), a .64 operand naming the pair. With has_dst the
 * first register is the destination (*dst; 255 past R254), not a source;
 * every other sets bit n of src[n / 64] (R0..R254). Without, *dst is 255. */
void sass_registers(const char *op, bool has_dst, uint8_t *dst, uint64_t src[4]);

/* The constant-bank operand sass names at a fixed place, c[0xB][0xOFF] (ULDC,
 * LDC, or an operand of any instruction): true with its bank and byte offset;
 * false for none, or an indexed one (c[0x0][R2+0x10]: which line it reads the
 * text does not say). */
bool sass_const_operand(const char *sass, uint32_t *bank, uint32_t *offset);

#endif
