MemcpyHtoD,0x00007f580face400,225280
kernel-593-ctx_0x55c28dad19e0.traceg.xz
