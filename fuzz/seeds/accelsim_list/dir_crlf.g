MemcpyDtoH,0x10,8
kernel-5.traceg
