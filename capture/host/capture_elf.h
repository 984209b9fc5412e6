/* capture_elf.h - the one thing the capture tool reads from a cubin itself:
 * the symbol-table index of a kernel, so that `nvdisasm -fun INDEX`
 * disassembles that kernel alone instead of the whole module (library
 * modules hold hundreds of kernels: seconds each).
 *
 * A cubin is an ELF64 little-endian file; only the section headers, the
 * symbol table and its string table are read, every offset checked against
 * the image size. */
#ifndef GMS_CAPTURE_ELF_H
#define GMS_CAPTURE_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The index in .symtab of the function symbol called name. Returns 1 with
 * *index set, 0 when the image has no such function, -1 with a message when
 * the image is not a well-formed ELF64 file. */
int capture_elf_function_index(const unsigned char *image, size_t size, const char *name, uint32_t *index,
                               err_info *err);

#endif
