/* patches_blob.S - embeds the device patch fatbin (built by nvcc from
 * capture/device/patches.cu) in libgpumemsim_capture.so, so that the library
 * needs no file at run time (sanitizerAddPatches takes the image from memory).
 * CAPTURE_PATCHES_FATBIN is the fatbin's path, as a string. */
    .section .rodata.gms_capture_patches,"a",@progbits
    .balign 64
    .globl gms_capture_patches_fatbin
    .hidden gms_capture_patches_fatbin
    .type gms_capture_patches_fatbin, @object
gms_capture_patches_fatbin:
    .incbin CAPTURE_PATCHES_FATBIN
    .size gms_capture_patches_fatbin, . - gms_capture_patches_fatbin
    .byte 0
    .section .note.GNU-stack,"",@progbits
