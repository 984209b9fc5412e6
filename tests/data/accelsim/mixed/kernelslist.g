MemcpyHtoD,0x00007f0000001000,4096
MemcpyHtoD,0x00007f0000004000,256

kernel-1.traceg
kernel-2.traceg
