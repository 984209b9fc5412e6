/* capture_elf.c - a kernel's symbol index in a cubin (see capture_elf.h). */
#include "capture_elf.h"

#include <string.h>

#define ELF_HEADER_BYTES 64u
#define ELF_SECTION_BYTES 64u
#define ELF_SYMBOL_BYTES 24u
#define SHT_SYMTAB 2u
#define STT_FUNC 2u

static uint64_t rd(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Is [off, off + len) inside an image of size bytes? */
static int inside(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

int capture_elf_function_index(const unsigned char *image, size_t size, const char *name, uint32_t *index,
                               err_info *err)
{
    if (size < ELF_HEADER_BYTES || memcmp(image, "\177ELF", 4) != 0 || image[4] != 2 || image[5] != 1) {
        err_set(err, "not a 64-bit little-endian ELF image");
        return -1;
    }
    uint64_t shoff = rd(image + 0x28, 8);
    uint64_t shentsize = rd(image + 0x3a, 2);
    uint64_t shnum = rd(image + 0x3c, 2);
    if (shentsize != ELF_SECTION_BYTES || !inside(shoff, shnum * ELF_SECTION_BYTES, size)) {
        err_set(err, "ELF section headers out of the image (offset %llu, %llu of %llu bytes)",
                (unsigned long long)shoff, (unsigned long long)shnum, (unsigned long long)shentsize);
        return -1;
    }
    size_t name_len = strlen(name);
    for (uint64_t s = 0; s < shnum; s++) {
        const unsigned char *sh = image + shoff + s * ELF_SECTION_BYTES;
        if (rd(sh + 4, 4) != SHT_SYMTAB)
            continue;
        uint64_t off = rd(sh + 0x18, 8), bytes = rd(sh + 0x20, 8), link = rd(sh + 0x28, 4);
        if (rd(sh + 0x38, 8) != ELF_SYMBOL_BYTES || !inside(off, bytes, size) || link >= shnum) {
            err_set(err, "ELF symbol table out of the image");
            return -1;
        }
        const unsigned char *str = image + shoff + link * ELF_SECTION_BYTES;
        uint64_t str_off = rd(str + 0x18, 8), str_bytes = rd(str + 0x20, 8);
        if (!inside(str_off, str_bytes, size)) {
            err_set(err, "ELF string table out of the image");
            return -1;
        }
        uint64_t n = bytes / ELF_SYMBOL_BYTES;
        for (uint64_t i = 0; i < n && i <= UINT32_MAX; i++) {
            const unsigned char *sym = image + off + i * ELF_SYMBOL_BYTES;
            if ((sym[4] & 0xfu) != STT_FUNC)
                continue;
            uint64_t at = rd(sym, 4);
            /* the name and its terminating NUL must lie in the string table */
            if (at >= str_bytes || name_len >= str_bytes - at)
                continue;
            const char *s_name = (const char *)image + str_off + at;
            if (memcmp(s_name, name, name_len + 1) == 0) {
                *index = (uint32_t)i;
                return 1;
            }
        }
    }
    return 0;
}
