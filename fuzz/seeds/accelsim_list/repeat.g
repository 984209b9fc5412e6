  kernel-2.traceg.xz
kernel-1.traceg	
kernel-1.traceg
MemcpyHtoD,0x7f580face400,225280
